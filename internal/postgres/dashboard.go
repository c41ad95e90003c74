package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// CreateSignInLink stores a link (svc.DashboardStore).
func (s *Store) CreateSignInLink(ctx context.Context, l *svc.SignInLink) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM dashboard_links WHERE expires_at <= $1", millis(l.CreatedAt)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO dashboard_links (hash, brand_id, email, binding, created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6)",
			l.Hash[:], l.BrandID, l.Email, bindingArg(l.Binding), millis(l.CreatedAt), millis(l.ExpiresAt))
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
	err := s.pool.QueryRow(ctx, `SELECT brand_id, email, binding, created_at, expires_at FROM dashboard_links
		WHERE hash = $1 AND used_at IS NULL AND expires_at > $2`, hash[:], millis(now)).Scan(&l.BrandID, &l.Email, &binding, &created, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, svc.Errorf(svc.ENOTFOUND, "the sign-in link is unknown, used or expired")
	}
	if err != nil {
		return nil, err
	}
	copy(l.Binding[:], binding)
	l.CreatedAt, l.ExpiresAt = fromMillis(created), fromMillis(expires)
	return l, nil
}

// RedeemSignInLink uses up a link and stores the session it opens
// (svc.DashboardStore). The update takes the link's row lock, so two
// nodes redeeming one link at once open one session.
func (s *Store) RedeemSignInLink(ctx context.Context, hash [32]byte, now time.Time, sess *svc.DashboardSession) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `UPDATE dashboard_links SET used_at = $1
			WHERE hash = $2 AND used_at IS NULL AND expires_at > $3 RETURNING brand_id, email`,
			millis(now), hash[:], millis(now)).Scan(&sess.BrandID, &sess.Email)
		if errors.Is(err, pgx.ErrNoRows) {
			return svc.Errorf(svc.ENOTFOUND, "the sign-in link is unknown, used or expired")
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO dashboard_sessions (hash, brand_id, email, csrf, user_agent, ip, created_at, last_seen, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			sess.Hash[:], sess.BrandID, sess.Email, sess.CSRF, sess.UserAgent, sess.IP, millis(sess.CreatedAt), millis(sess.LastSeen), millis(sess.ExpiresAt))
		return err
	})
}

const sessionColumns = "hash, brand_id, email, csrf, user_agent, ip, created_at, last_seen, expires_at"

func scanSession(row interface{ Scan(...any) error }) (*svc.DashboardSession, error) {
	sess := &svc.DashboardSession{}
	var hash []byte
	var created, seen, expires int64
	if err := row.Scan(&hash, &sess.BrandID, &sess.Email, &sess.CSRF, &sess.UserAgent, &sess.IP, &created, &seen, &expires); err != nil {
		return nil, err
	}
	copy(sess.Hash[:], hash)
	sess.CreatedAt, sess.LastSeen, sess.ExpiresAt = fromMillis(created), fromMillis(seen), fromMillis(expires)
	return sess, nil
}

// DashboardSession returns a live session (svc.DashboardStore).
func (s *Store) DashboardSession(ctx context.Context, hash [32]byte, now time.Time) (*svc.DashboardSession, error) {
	sess, err := scanSession(s.pool.QueryRow(ctx, "SELECT "+sessionColumns+" FROM dashboard_sessions WHERE hash = $1 AND expires_at > $2",
		hash[:], millis(now)))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, svc.Errorf(svc.ENOTFOUND, "no such dashboard session")
	}
	return sess, err
}

// EndDashboardSession deletes a session and the expired ones
// (svc.DashboardStore).
func (s *Store) EndDashboardSession(ctx context.Context, hash [32]byte, now time.Time) error {
	_, err := s.pool.Exec(ctx, "DELETE FROM dashboard_sessions WHERE hash = $1 OR expires_at <= $2", hash[:], millis(now))
	return err
}

// TouchDashboardSession slides a live session's end (svc.DashboardStore).
func (s *Store) TouchDashboardSession(ctx context.Context, hash [32]byte, now time.Time) error {
	_, err := s.pool.Exec(ctx, "UPDATE dashboard_sessions SET last_seen = $1, expires_at = $2 WHERE hash = $3 AND expires_at > $4",
		millis(now), millis(now.Add(svc.SessionTTL)), hash[:], millis(now))
	return err
}

// DashboardSessions returns a member's live sessions (svc.DashboardStore).
func (s *Store) DashboardSessions(ctx context.Context, email string, now time.Time) ([]*svc.DashboardSession, error) {
	rows, err := s.pool.Query(ctx, "SELECT "+sessionColumns+" FROM dashboard_sessions WHERE email = $1 AND email <> '' AND expires_at > $2 ORDER BY last_seen DESC, created_at DESC",
		email, millis(now))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*svc.DashboardSession
	for rows.Next() {
		sess, err := scanSession(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, sess)
	}
	return out, rows.Err()
}

// EndMemberSessions deletes a member's sessions but one (svc.DashboardStore).
func (s *Store) EndMemberSessions(ctx context.Context, email string, keep [32]byte, now time.Time) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, `WITH gone AS (DELETE FROM dashboard_sessions WHERE email = $1 AND email <> '' AND hash <> $2 RETURNING expires_at)
			SELECT count(*) FROM gone WHERE expires_at > $3`, email, keep[:], millis(now)).Scan(&n)
	})
	return n, err
}
