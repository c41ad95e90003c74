package postgres

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// AddPasskey stores a passkey (svc.PasskeyStore).
func (s *Store) AddPasskey(ctx context.Context, p *svc.Passkey) error {
	tag, err := s.pool.Exec(ctx, `INSERT INTO passkeys (id, email, user_handle, name, credential, created_at, last_used)
		VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (id) DO NOTHING`, p.ID, p.Email, p.UserHandle, p.Name, p.Credential, millis(p.CreatedAt), millis(p.LastUsed))
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return svc.Errorf(svc.ECONFLICT, "the passkey is registered already")
	}
	return nil
}

func (s *Store) passkeys(ctx context.Context, where string, arg any) ([]*svc.Passkey, error) {
	rows, err := s.pool.Query(ctx, "SELECT id, email, user_handle, name, credential, created_at, last_used FROM passkeys WHERE "+where+" ORDER BY created_at, id", arg)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*svc.Passkey
	for rows.Next() {
		p := &svc.Passkey{}
		var created, used int64
		if err := rows.Scan(&p.ID, &p.Email, &p.UserHandle, &p.Name, &p.Credential, &created, &used); err != nil {
			return nil, err
		}
		p.CreatedAt, p.LastUsed = fromMillis(created), fromMillis(used)
		out = append(out, p)
	}
	return out, rows.Err()
}

// Passkeys returns a member's passkeys (svc.PasskeyStore).
func (s *Store) Passkeys(ctx context.Context, email string) ([]*svc.Passkey, error) {
	return s.passkeys(ctx, "email = $1", email)
}

// PasskeysByHandle returns a user handle's passkeys (svc.PasskeyStore).
func (s *Store) PasskeysByHandle(ctx context.Context, handle []byte) ([]*svc.Passkey, error) {
	return s.passkeys(ctx, "user_handle = $1", handle)
}

// UsePasskey records a sign-in with a passkey (svc.PasskeyStore).
func (s *Store) UsePasskey(ctx context.Context, id, credential []byte, at time.Time) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		res, err := tx.Exec(ctx, "UPDATE passkeys SET credential = $1, last_used = $2 WHERE id = $3", credential, millis(at), id)
		if err != nil {
			return err
		}
		if res.RowsAffected() == 0 {
			return svc.Errorf(svc.ENOTFOUND, "no such passkey")
		}
		return nil
	})
}

// RemovePasskey deletes a member's passkey (svc.PasskeyStore).
func (s *Store) RemovePasskey(ctx context.Context, email string, id []byte) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		res, err := tx.Exec(ctx, "DELETE FROM passkeys WHERE email = $1 AND id = $2", email, id)
		if err != nil {
			return err
		}
		if res.RowsAffected() == 0 {
			return svc.Errorf(svc.ENOTFOUND, "no such passkey")
		}
		return nil
	})
}

// PutCeremony stores a WebAuthn ceremony's state (svc.PasskeyStore).
func (s *Store) PutCeremony(ctx context.Context, hash [32]byte, data []byte, now, expires time.Time) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "DELETE FROM webauthn_ceremonies WHERE expires_at <= $1 OR hash = $2", millis(now), hash[:]); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO webauthn_ceremonies (hash, data, expires_at) VALUES ($1, $2, $3)", hash[:], data, millis(expires))
		return err
	})
}

// TakeCeremony deletes and returns a live ceremony (svc.PasskeyStore).
func (s *Store) TakeCeremony(ctx context.Context, hash [32]byte, now time.Time) ([]byte, error) {
	var data []byte
	err := s.inTx(ctx, func(tx pgx.Tx) error {
		return tx.QueryRow(ctx, "DELETE FROM webauthn_ceremonies WHERE hash = $1 AND expires_at > $2 RETURNING data", hash[:], millis(now)).Scan(&data)
	})
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, svc.Errorf(svc.ENOTFOUND, "no such passkey ceremony")
	}
	return data, err
}

// CreateDashboardSession stores a session (svc.PasskeyStore).
func (s *Store) CreateDashboardSession(ctx context.Context, sess *svc.DashboardSession) error {
	return s.inTx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO dashboard_sessions (hash, brand_id, email, csrf, user_agent, ip, created_at, last_seen, expires_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
			sess.Hash[:], sess.BrandID, sess.Email, sess.CSRF, sess.UserAgent, sess.IP, millis(sess.CreatedAt), millis(sess.LastSeen), millis(sess.ExpiresAt))
		return err
	})
}
