package sqlstore

import (
	"context"
	"time"

	"github.com/svc-project/svc"
)

// PutMember adds a member or changes its role (svc.MemberStore).
func (s *Store) PutMember(ctx context.Context, m *svc.Member) (bool, error) {
	if err := m.Validate(); err != nil {
		return false, err
	}
	var added bool
	err := s.inTx(ctx, func(tx Querier) error {
		var n int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM brands WHERE id = ?", m.BrandID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return svc.Errorf(svc.ENOTFOUND, "no brand %q", m.BrandID)
		}
		var role string
		var digest bool
		var created int64
		err := tx.QueryRow(ctx, "SELECT role, digest, created_at FROM brand_members WHERE brand_id = ? AND email = ?", m.BrandID, m.Email).Scan(&role, &digest, &created)
		switch {
		case NoRows(err):
			added = true
			_, err = tx.Exec(ctx, "INSERT INTO brand_members (brand_id, email, role, digest, created_at) VALUES (?, ?, ?, ?, ?)",
				m.BrandID, m.Email, m.Role, m.Digest, Millis(m.CreatedAt))
			return err
		case err != nil:
			return err
		}
		if role == svc.RoleOwner && m.Role != svc.RoleOwner {
			if err := s.lastOwner(ctx, tx, m.BrandID); err != nil {
				return err
			}
		}
		m.Digest, m.CreatedAt = digest, FromMillis(created)
		_, err = tx.Exec(ctx, "UPDATE brand_members SET role = ? WHERE brand_id = ? AND email = ?", m.Role, m.BrandID, m.Email)
		return err
	})
	return added, err
}

// lastOwner refuses to take the owner role from a brand's only owner. It
// locks the owners' rows where other writers run at once (PostgreSQL), so
// that two owners removing each other on two nodes at once cannot both
// succeed: the second counts again after the first commits.
func (s *Store) lastOwner(ctx context.Context, tx Querier, brandID string) error {
	owners := 0
	if err := Each(ctx, tx, func(Row) error { owners++; return nil },
		"SELECT email FROM brand_members WHERE brand_id = ? AND role = 'owner'"+s.d.ForUpdate(), brandID); err != nil {
		return err
	}
	if owners <= 1 {
		return svc.Errorf(svc.ECONFLICT, "the brand's last owner stays: make another member an owner first")
	}
	return nil
}

// RemoveMember removes a member, and its sessions with its last brand
// (svc.MemberStore).
func (s *Store) RemoveMember(ctx context.Context, brandID, email string) error {
	return s.inTx(ctx, func(tx Querier) error {
		var role string
		err := tx.QueryRow(ctx, "SELECT role FROM brand_members WHERE brand_id = ? AND email = ?", brandID, email).Scan(&role)
		if NoRows(err) {
			return svc.Errorf(svc.ENOTFOUND, "%s is not a member of %s", email, brandID)
		}
		if err != nil {
			return err
		}
		if role == svc.RoleOwner {
			if err := s.lastOwner(ctx, tx, brandID); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "DELETE FROM brand_members WHERE brand_id = ? AND email = ?", brandID, email); err != nil {
			return err
		}
		for _, table := range []string{"dashboard_sessions", "passkeys"} {
			if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE email = ? AND email <> ''
				AND NOT EXISTS (SELECT 1 FROM brand_members WHERE email = ?)`, email, email); err != nil {
				return err
			}
		}
		return nil
	})
}

const memberColumns = "brand_id, email, role, digest, created_at"

func (s *Store) members(ctx context.Context, q string, args ...any) ([]*svc.Member, error) {
	return Collect(ctx, s.r, func(r Row) (*svc.Member, error) {
		m := &svc.Member{}
		var created int64
		err := r.Scan(&m.BrandID, &m.Email, &m.Role, &m.Digest, &created)
		m.CreatedAt = FromMillis(created)
		return m, err
	}, "SELECT "+memberColumns+" FROM brand_members "+q, args...)
}

// Member returns one member (svc.MemberStore).
func (s *Store) Member(ctx context.Context, brandID, email string) (*svc.Member, error) {
	ms, err := s.members(ctx, "WHERE brand_id = ? AND email = ?", brandID, email)
	if err != nil {
		return nil, err
	}
	if len(ms) == 0 {
		return nil, svc.Errorf(svc.ENOTFOUND, "%s is not a member of %s", email, brandID)
	}
	return ms[0], nil
}

// Members returns a brand's members, or every brand's (svc.MemberStore).
func (s *Store) Members(ctx context.Context, brandID string) ([]*svc.Member, error) {
	if brandID == "" {
		return s.members(ctx, "ORDER BY brand_id, email")
	}
	return s.members(ctx, "WHERE brand_id = ? ORDER BY email", brandID)
}

// MemberBrands returns an address's memberships (svc.MemberStore).
func (s *Store) MemberBrands(ctx context.Context, email string) ([]*svc.Member, error) {
	return s.members(ctx, "WHERE email = ? ORDER BY brand_id", email)
}

// SetDigest turns a member's digest on or off (svc.MemberStore).
func (s *Store) SetDigest(ctx context.Context, brandID, email string, on bool) error {
	n, err := s.w.Exec(ctx, "UPDATE brand_members SET digest = ? WHERE brand_id = ? AND email = ?", on, brandID, email)
	if err == nil && n == 0 {
		err = svc.Errorf(svc.ENOTFOUND, "%s is not a member of %s", email, brandID)
	}
	return err
}

// ClaimDigest claims a member's digest of a week (svc.MemberStore).
func (s *Store) ClaimDigest(ctx context.Context, brandID, email, week string, unsubscribe [32]byte, now time.Time) (bool, error) {
	n, err := s.w.Exec(ctx, `INSERT INTO digest_sends (brand_id, email, week, unsubscribe, claimed_at) VALUES (?, ?, ?, ?, ?)
		ON CONFLICT (brand_id, email, week) DO NOTHING`, brandID, email, week, unsubscribe[:], Millis(now))
	return n == 1, err
}

// UnsubscribeDigest turns off the digest a token names (svc.MemberStore).
func (s *Store) UnsubscribeDigest(ctx context.Context, unsubscribe [32]byte) (*svc.Member, error) {
	m := &svc.Member{}
	err := s.w.QueryRow(ctx, `UPDATE brand_members SET digest = ? WHERE (brand_id, email) =
		(SELECT brand_id, email FROM digest_sends WHERE unsubscribe = ?) RETURNING brand_id, email`, false, unsubscribe[:]).Scan(&m.BrandID, &m.Email)
	if NoRows(err) {
		return nil, svc.Errorf(svc.ENOTFOUND, "unknown unsubscribe link")
	}
	return m, err
}

// AppendAudit stores an audit event (svc.AuditStore).
func (s *Store) AppendAudit(ctx context.Context, e *svc.AuditEvent) error {
	return s.w.QueryRow(ctx, "INSERT INTO audit_events (brand_id, at, actor, ip, action, detail) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
		e.BrandID, Millis(e.At), e.Actor, e.IP, e.Action, e.Detail).Scan(&e.ID)
}

// AuditEvents returns a brand's audit events, newest first (svc.AuditStore).
func (s *Store) AuditEvents(ctx context.Context, brandID string, before int64, limit int) ([]*svc.AuditEvent, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	return Collect(ctx, s.r, func(r Row) (*svc.AuditEvent, error) {
		e := &svc.AuditEvent{}
		var at int64
		err := r.Scan(&e.ID, &e.BrandID, &at, &e.Actor, &e.IP, &e.Action, &e.Detail)
		e.At = FromMillis(at)
		return e, err
	}, "SELECT id, brand_id, at, actor, ip, action, detail FROM audit_events WHERE brand_id = ? AND id < ? ORDER BY id DESC LIMIT ?",
		brandID, before, limit)
}
