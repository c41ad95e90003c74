package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"time"

	"github.com/svc-project/svc"
)

// CreateSignInLink stores a link (svc.DashboardStore).
func (s *Store) CreateSignInLink(ctx context.Context, l *svc.SignInLink) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, "DELETE FROM dashboard_links WHERE expires_at <= ?", millis(l.CreatedAt)); err != nil {
			return err
		}
		_, err := tx.ExecContext(ctx, "INSERT INTO dashboard_links (hash, brand_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
			l.Hash[:], l.BrandID, millis(l.CreatedAt), millis(l.ExpiresAt))
		return err
	})
}

// RedeemSignInLink uses up a link and stores the session it opens
// (svc.DashboardStore).
func (s *Store) RedeemSignInLink(ctx context.Context, hash [32]byte, now time.Time, sess *svc.DashboardSession) error {
	return s.inTx(ctx, func(tx *sql.Tx) error {
		err := tx.QueryRowContext(ctx, `UPDATE dashboard_links SET used_at = ?
			WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING brand_id`,
			millis(now), hash[:], millis(now)).Scan(&sess.BrandID)
		if errors.Is(err, sql.ErrNoRows) {
			return svc.Errorf(svc.ENOTFOUND, "the sign-in link is unknown, used or expired")
		}
		if err != nil {
			return err
		}
		_, err = tx.ExecContext(ctx, "INSERT INTO dashboard_sessions (hash, brand_id, csrf, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
			sess.Hash[:], sess.BrandID, sess.CSRF, millis(sess.CreatedAt), millis(sess.ExpiresAt))
		return err
	})
}

// SignInLink returns a live link without using it (svc.DashboardStore).
func (s *Store) SignInLink(ctx context.Context, hash [32]byte, now time.Time) (*svc.SignInLink, error) {
	l := &svc.SignInLink{Hash: hash}
	var created, expires int64
	err := s.r.QueryRowContext(ctx, "SELECT brand_id, created_at, expires_at FROM dashboard_links WHERE hash = ? AND used_at IS NULL AND expires_at > ?",
		hash[:], millis(now)).Scan(&l.BrandID, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
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
	err := s.r.QueryRowContext(ctx, "SELECT brand_id, csrf, created_at, expires_at FROM dashboard_sessions WHERE hash = ? AND expires_at > ?",
		hash[:], millis(now)).Scan(&sess.BrandID, &sess.CSRF, &created, &expires)
	if errors.Is(err, sql.ErrNoRows) {
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
	return s.inTx(ctx, func(tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "DELETE FROM dashboard_sessions WHERE hash = ? OR expires_at <= ?", hash[:], millis(now))
		return err
	})
}
