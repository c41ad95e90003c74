package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// PutMember adds a member or changes its role (svc.MemberStore).
func (s *Store) PutMember(ctx context.Context, m *svc.Member) (bool, error) {
	if err := m.Validate(); err != nil {
		return false, err
	}
	var added bool
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var n int
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM brands WHERE id = $1", m.BrandID).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			return svc.Errorf(svc.ENOTFOUND, "no brand %q", m.BrandID)
		}
		var role string
		var digest bool
		var created int64
		err := tx.QueryRow(ctx, "SELECT role, digest, created_at FROM brand_members WHERE brand_id = $1 AND email = $2", m.BrandID, m.Email).Scan(&role, &digest, &created)
		switch {
		case errors.Is(err, pgx.ErrNoRows):
			added = true
			_, err = tx.Exec(ctx, "INSERT INTO brand_members (brand_id, email, role, digest, created_at) VALUES ($1, $2, $3, $4, $5)",
				m.BrandID, m.Email, m.Role, m.Digest, millis(m.CreatedAt))
			return err
		case err != nil:
			return err
		}
		if role == svc.RoleOwner && m.Role != svc.RoleOwner {
			if err := lastOwner(ctx, tx, m.BrandID); err != nil {
				return err
			}
		}
		m.Digest, m.CreatedAt = digest, fromMillis(created)
		_, err = tx.Exec(ctx, "UPDATE brand_members SET role = $1 WHERE brand_id = $2 AND email = $3", m.Role, m.BrandID, m.Email)
		return err
	})
	return added, err
}

// lastOwner refuses to take the owner role from a brand's only owner. It
// locks the owners' rows, so that two owners removing each other on two
// nodes at once cannot both succeed: the second counts again after the
// first commits.
func lastOwner(ctx context.Context, tx pgx.Tx, brandID string) error {
	rows, err := tx.Query(ctx, "SELECT email FROM brand_members WHERE brand_id = $1 AND role = 'owner' FOR UPDATE", brandID)
	if err != nil {
		return err
	}
	owners := 0
	for rows.Next() {
		owners++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
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
	return s.inTx(ctx, func(tx pgx.Tx) error {
		var role string
		err := tx.QueryRow(ctx, "SELECT role FROM brand_members WHERE brand_id = $1 AND email = $2", brandID, email).Scan(&role)
		if errors.Is(err, pgx.ErrNoRows) {
			return svc.Errorf(svc.ENOTFOUND, "%s is not a member of %s", email, brandID)
		}
		if err != nil {
			return err
		}
		if role == svc.RoleOwner {
			if err := lastOwner(ctx, tx, brandID); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, "DELETE FROM brand_members WHERE brand_id = $1 AND email = $2", brandID, email); err != nil {
			return err
		}
		for _, table := range []string{"dashboard_sessions", "passkeys"} {
			if _, err := tx.Exec(ctx, `DELETE FROM `+table+` WHERE email = $1 AND email <> ''
				AND NOT EXISTS (SELECT 1 FROM brand_members WHERE email = $2)`, email, email); err != nil {
				return err
			}
		}
		return nil
	})
}

const memberColumns = "brand_id, email, role, digest, created_at"

func (s *Store) members(ctx context.Context, q string, args ...any) ([]*svc.Member, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+memberColumns+" FROM brand_members "+q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*svc.Member
	for rows.Next() {
		m := &svc.Member{}
		var created int64
		if err := rows.Scan(&m.BrandID, &m.Email, &m.Role, &m.Digest, &created); err != nil {
			return nil, err
		}
		m.CreatedAt = fromMillis(created)
		out = append(out, m)
	}
	return out, rows.Err()
}

// Member returns one member (svc.MemberStore).
func (s *Store) Member(ctx context.Context, brandID, email string) (*svc.Member, error) {
	ms, err := s.members(ctx, "WHERE brand_id = $1 AND email = $2", brandID, email)
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
	return s.members(ctx, "WHERE brand_id = $1 ORDER BY email", brandID)
}

// MemberBrands returns an address's memberships (svc.MemberStore).
func (s *Store) MemberBrands(ctx context.Context, email string) ([]*svc.Member, error) {
	return s.members(ctx, "WHERE email = $1 ORDER BY brand_id", email)
}

// SetDigest turns a member's digest on or off (svc.MemberStore).
func (s *Store) SetDigest(ctx context.Context, brandID, email string, on bool) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		res, err := tx.Exec(ctx, "UPDATE brand_members SET digest = $1 WHERE brand_id = $2 AND email = $3", on, brandID, email)
		if err != nil {
			return err
		}
		if res.RowsAffected() == 0 {
			return svc.Errorf(svc.ENOTFOUND, "%s is not a member of %s", email, brandID)
		}
		return nil
	})
}

// ClaimDigest claims a member's digest of a week (svc.MemberStore).
func (s *Store) ClaimDigest(ctx context.Context, brandID, email, week string, unsubscribe [32]byte, now time.Time) (bool, error) {
	var won bool
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		res, err := tx.Exec(ctx, `INSERT INTO digest_sends (brand_id, email, week, unsubscribe, claimed_at) VALUES ($1, $2, $3, $4, $5)
			ON CONFLICT (brand_id, email, week) DO NOTHING`, brandID, email, week, unsubscribe[:], millis(now))
		if err != nil {
			return err
		}
		won = res.RowsAffected() == 1
		return nil
	})
	return won, err
}

// UnsubscribeDigest turns off the digest a token names (svc.MemberStore).
func (s *Store) UnsubscribeDigest(ctx context.Context, unsubscribe [32]byte) (*svc.Member, error) {
	var m *svc.Member
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		var brandID, email string
		err := tx.QueryRow(ctx, `UPDATE brand_members SET digest = false WHERE (brand_id, email) =
			(SELECT brand_id, email FROM digest_sends WHERE unsubscribe = $1) RETURNING brand_id, email`, unsubscribe[:]).Scan(&brandID, &email)
		if errors.Is(err, pgx.ErrNoRows) {
			return svc.Errorf(svc.ENOTFOUND, "unknown unsubscribe link")
		}
		m = &svc.Member{BrandID: brandID, Email: email}
		return err
	})
	return m, err
}

// AppendAudit stores an audit event (svc.AuditStore).
func (s *Store) AppendAudit(ctx context.Context, e *svc.AuditEvent) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "INSERT INTO audit_events (brand_id, at, actor, ip, action, detail) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
			e.BrandID, millis(e.At), e.Actor, e.IP, e.Action, e.Detail).Scan(&e.ID)
	})
}

// AuditEvents returns a brand's audit events, newest first (svc.AuditStore).
func (s *Store) AuditEvents(ctx context.Context, brandID string, before int64, limit int) ([]*svc.AuditEvent, error) {
	if before <= 0 {
		before = 1<<63 - 1
	}
	rows, err := s.pool.Query(ctx, "SELECT id, brand_id, at, actor, ip, action, detail FROM audit_events WHERE brand_id = $1 AND id < $2 ORDER BY id DESC LIMIT $3",
		brandID, before, limit)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*svc.AuditEvent
	for rows.Next() {
		e := &svc.AuditEvent{}
		var at int64
		if err := rows.Scan(&e.ID, &e.BrandID, &at, &e.Actor, &e.IP, &e.Action, &e.Detail); err != nil {
			return nil, err
		}
		e.At = fromMillis(at)
		out = append(out, e)
	}
	return out, rows.Err()
}
