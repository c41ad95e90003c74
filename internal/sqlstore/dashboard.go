package sqlstore

import (
	"context"
	"time"

	"github.com/svc-project/svc"
)

// CreateSignInLink stores a link (svc.DashboardStore).
func (s *Store) CreateSignInLink(ctx context.Context, l *svc.SignInLink) error {
	return s.inTx(ctx, func(tx Querier) error {
		if _, err := tx.Exec(ctx, "DELETE FROM dashboard_links WHERE expires_at <= ?", Millis(l.CreatedAt)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO dashboard_links (hash, brand_id, email, binding, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?)",
			l.Hash[:], l.BrandID, l.Email, bindingArg(l.Binding), Millis(l.CreatedAt), Millis(l.ExpiresAt))
		return err
	})
}

// bindingArg stores a zero binding (a command's link) as NULL.
func bindingArg(b [32]byte) any {
	if b == ([32]byte{}) {
		return nil
	}
	return b[:]
}

// SignInLink returns a live link (svc.DashboardStore).
func (s *Store) SignInLink(ctx context.Context, hash [32]byte, now time.Time) (*svc.SignInLink, error) {
	l := &svc.SignInLink{Hash: hash}
	var binding []byte
	var created, expires int64
	err := s.r.QueryRow(ctx, `SELECT brand_id, email, binding, created_at, expires_at FROM dashboard_links
		WHERE hash = ? AND used_at IS NULL AND expires_at > ?`, hash[:], Millis(now)).Scan(&l.BrandID, &l.Email, &binding, &created, &expires)
	if NoRows(err) {
		return nil, svc.Errorf(svc.ENOTFOUND, "the sign-in link is unknown, used or expired")
	}
	if err != nil {
		return nil, err
	}
	copy(l.Binding[:], binding)
	l.CreatedAt, l.ExpiresAt = FromMillis(created), FromMillis(expires)
	return l, nil
}

// RedeemSignInLink uses up a link and stores the session it opens
// (svc.DashboardStore). The update takes the link's row lock, so two
// nodes redeeming one link at once open one session.
func (s *Store) RedeemSignInLink(ctx context.Context, hash [32]byte, now time.Time, sess *svc.DashboardSession) error {
	return s.inTx(ctx, func(tx Querier) error {
		err := tx.QueryRow(ctx, `UPDATE dashboard_links SET used_at = ?
			WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING brand_id, email`,
			Millis(now), hash[:], Millis(now)).Scan(&sess.BrandID, &sess.Email)
		if NoRows(err) {
			return svc.Errorf(svc.ENOTFOUND, "the sign-in link is unknown, used or expired")
		}
		if err != nil {
			return err
		}
		return insertSession(ctx, tx, sess)
	})
}

// insertSession stores a new dashboard session.
func insertSession(ctx context.Context, tx Querier, sess *svc.DashboardSession) error {
	_, err := tx.Exec(ctx, `INSERT INTO dashboard_sessions (hash, brand_id, email, csrf, user_agent, ip, created_at, last_seen, expires_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		sess.Hash[:], sess.BrandID, sess.Email, sess.CSRF, sess.UserAgent, sess.IP, Millis(sess.CreatedAt), Millis(sess.LastSeen), Millis(sess.ExpiresAt))
	return err
}

const sessionColumns = "hash, brand_id, email, csrf, user_agent, ip, created_at, last_seen, expires_at"

func scanSession(row Row) (*svc.DashboardSession, error) {
	sess := &svc.DashboardSession{}
	var hash []byte
	var created, seen, expires int64
	if err := row.Scan(&hash, &sess.BrandID, &sess.Email, &sess.CSRF, &sess.UserAgent, &sess.IP, &created, &seen, &expires); err != nil {
		return nil, err
	}
	copy(sess.Hash[:], hash)
	sess.CreatedAt, sess.LastSeen, sess.ExpiresAt = FromMillis(created), FromMillis(seen), FromMillis(expires)
	return sess, nil
}

// DashboardSession returns a live session (svc.DashboardStore).
func (s *Store) DashboardSession(ctx context.Context, hash [32]byte, now time.Time) (*svc.DashboardSession, error) {
	sess, err := scanSession(s.r.QueryRow(ctx, "SELECT "+sessionColumns+" FROM dashboard_sessions WHERE hash = ? AND expires_at > ?",
		hash[:], Millis(now)))
	if NoRows(err) {
		return nil, svc.Errorf(svc.ENOTFOUND, "no such dashboard session")
	}
	return sess, err
}

// EndDashboardSession deletes a session and the expired ones
// (svc.DashboardStore).
func (s *Store) EndDashboardSession(ctx context.Context, hash [32]byte, now time.Time) error {
	_, err := s.w.Exec(ctx, "DELETE FROM dashboard_sessions WHERE hash = ? OR expires_at <= ?", hash[:], Millis(now))
	return err
}

// TouchDashboardSession slides a live session's end (svc.DashboardStore).
func (s *Store) TouchDashboardSession(ctx context.Context, hash [32]byte, now time.Time) error {
	_, err := s.w.Exec(ctx, "UPDATE dashboard_sessions SET last_seen = ?, expires_at = ? WHERE hash = ? AND expires_at > ?",
		Millis(now), Millis(now.Add(svc.SessionTTL)), hash[:], Millis(now))
	return err
}

// DashboardSessions returns a member's live sessions (svc.DashboardStore).
func (s *Store) DashboardSessions(ctx context.Context, email string, now time.Time) ([]*svc.DashboardSession, error) {
	return Collect(ctx, s.r, scanSession, "SELECT "+sessionColumns+` FROM dashboard_sessions
		WHERE email = ? AND email <> '' AND expires_at > ? ORDER BY last_seen DESC, created_at DESC`, email, Millis(now))
}

// EndMemberSessions deletes a member's sessions but one, and counts the
// live ones among them (svc.DashboardStore).
func (s *Store) EndMemberSessions(ctx context.Context, email string, keep [32]byte, now time.Time) (int64, error) {
	var n int64
	err := Each(ctx, s.w, func(r Row) error {
		var expires int64
		if err := r.Scan(&expires); err != nil {
			return err
		}
		if expires > Millis(now) {
			n++
		}
		return nil
	}, "DELETE FROM dashboard_sessions WHERE email = ? AND email <> '' AND hash <> ? RETURNING expires_at", email, keep[:])
	return n, err
}
