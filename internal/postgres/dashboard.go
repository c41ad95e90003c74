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
		_, err := tx.Exec(ctx, "INSERT INTO dashboard_links (hash, brand_id, created_at, expires_at) VALUES ($1, $2, $3, $4)",
			l.Hash[:], l.BrandID, millis(l.CreatedAt), millis(l.ExpiresAt))
		return err
	})
}

// RedeemSignInLink uses up a link and stores the session it opens
// (svc.DashboardStore). The update takes the link's row lock, so two
// nodes redeeming one link at once open one session.
func (s *Store) RedeemSignInLink(ctx context.Context, hash [32]byte, now time.Time, sess *svc.DashboardSession) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `UPDATE dashboard_links SET used_at = $1
			WHERE hash = $2 AND used_at IS NULL AND expires_at > $1 RETURNING brand_id`,
			millis(now), hash[:]).Scan(&sess.BrandID)
		if errors.Is(err, pgx.ErrNoRows) {
			return svc.Errorf(svc.ENOTFOUND, "the sign-in link is unknown, used or expired")
		}
		if err != nil {
			return err
		}
		_, err = tx.Exec(ctx, "INSERT INTO dashboard_sessions (hash, brand_id, csrf, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
			sess.Hash[:], sess.BrandID, sess.CSRF, millis(sess.CreatedAt), millis(sess.ExpiresAt))
		return err
	})
}

// SignInLink returns a live link without using it (svc.DashboardStore).
func (s *Store) SignInLink(ctx context.Context, hash [32]byte, now time.Time) (*svc.SignInLink, error) {
	l := &svc.SignInLink{Hash: hash}
	var created, expires int64
	err := s.pool.QueryRow(ctx, "SELECT brand_id, created_at, expires_at FROM dashboard_links WHERE hash = $1 AND used_at IS NULL AND expires_at > $2",
		hash[:], millis(now)).Scan(&l.BrandID, &created, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, svc.Errorf(svc.ENOTFOUND, "the sign-in link is unknown, used or expired")
	}
	if err != nil {
		return nil, err
	}
	l.CreatedAt, l.ExpiresAt = fromMillis(created), fromMillis(expires)
	return l, nil
}

// DashboardSession returns a live session (svc.DashboardStore).
func (s *Store) DashboardSession(ctx context.Context, hash [32]byte, now time.Time) (*svc.DashboardSession, error) {
	sess := &svc.DashboardSession{Hash: hash}
	var created, expires int64
	err := s.pool.QueryRow(ctx, "SELECT brand_id, csrf, created_at, expires_at FROM dashboard_sessions WHERE hash = $1 AND expires_at > $2",
		hash[:], millis(now)).Scan(&sess.BrandID, &sess.CSRF, &created, &expires)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, svc.Errorf(svc.ENOTFOUND, "no such dashboard session")
	}
	if err != nil {
		return nil, err
	}
	sess.CreatedAt, sess.ExpiresAt = fromMillis(created), fromMillis(expires)
	return sess, nil
}

// EndDashboardSession deletes a session and the expired ones
// (svc.DashboardStore).
func (s *Store) EndDashboardSession(ctx context.Context, hash [32]byte, now time.Time) error {
	_, err := s.pool.Exec(ctx, "DELETE FROM dashboard_sessions WHERE hash = $1 OR expires_at <= $2", hash[:], millis(now))
	return err
}
