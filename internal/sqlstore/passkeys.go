package sqlstore

import (
	"context"
	"time"

	"github.com/svc-project/svc"
)

// AddPasskey stores a passkey (svc.PasskeyStore).
func (s *Store) AddPasskey(ctx context.Context, p *svc.Passkey) error {
	n, err := s.w.Exec(ctx, `INSERT INTO passkeys (id, email, user_handle, name, credential, created_at, last_used)
		VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`, p.ID, p.Email, p.UserHandle, p.Name, p.Credential, Millis(p.CreatedAt), Millis(p.LastUsed))
	if err != nil {
		return err
	}
	if n == 0 {
		return svc.Errorf(svc.ECONFLICT, "the passkey is registered already")
	}
	return nil
}

func (s *Store) passkeys(ctx context.Context, where string, arg any) ([]*svc.Passkey, error) {
	return Collect(ctx, s.r, func(r Row) (*svc.Passkey, error) {
		p := &svc.Passkey{}
		var created, used int64
		err := r.Scan(&p.ID, &p.Email, &p.UserHandle, &p.Name, &p.Credential, &created, &used)
		p.CreatedAt, p.LastUsed = FromMillis(created), FromMillis(used)
		return p, err
	}, "SELECT id, email, user_handle, name, credential, created_at, last_used FROM passkeys WHERE "+where+" ORDER BY created_at, id", arg)
}

// Passkeys returns a member's passkeys (svc.PasskeyStore).
func (s *Store) Passkeys(ctx context.Context, email string) ([]*svc.Passkey, error) {
	return s.passkeys(ctx, "email = ?", email)
}

// PasskeysByHandle returns a user handle's passkeys (svc.PasskeyStore).
func (s *Store) PasskeysByHandle(ctx context.Context, handle []byte) ([]*svc.Passkey, error) {
	return s.passkeys(ctx, "user_handle = ?", handle)
}

// UsePasskey records a sign-in with a passkey (svc.PasskeyStore).
func (s *Store) UsePasskey(ctx context.Context, id, credential []byte, at time.Time) error {
	n, err := s.w.Exec(ctx, "UPDATE passkeys SET credential = ?, last_used = ? WHERE id = ?", credential, Millis(at), id)
	if err == nil && n == 0 {
		err = svc.Errorf(svc.ENOTFOUND, "no such passkey")
	}
	return err
}

// RemovePasskey deletes a member's passkey (svc.PasskeyStore).
func (s *Store) RemovePasskey(ctx context.Context, email string, id []byte) error {
	n, err := s.w.Exec(ctx, "DELETE FROM passkeys WHERE email = ? AND id = ?", email, id)
	if err == nil && n == 0 {
		err = svc.Errorf(svc.ENOTFOUND, "no such passkey")
	}
	return err
}

// PutCeremony stores a WebAuthn ceremony's state (svc.PasskeyStore).
func (s *Store) PutCeremony(ctx context.Context, hash [32]byte, data []byte, now, expires time.Time) error {
	return s.inTx(ctx, func(tx Querier) error {
		if _, err := tx.Exec(ctx, "DELETE FROM webauthn_ceremonies WHERE expires_at <= ? OR hash = ?", Millis(now), hash[:]); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, "INSERT INTO webauthn_ceremonies (hash, data, expires_at) VALUES (?, ?, ?)", hash[:], data, Millis(expires))
		return err
	})
}

// TakeCeremony deletes and returns a live ceremony (svc.PasskeyStore).
func (s *Store) TakeCeremony(ctx context.Context, hash [32]byte, now time.Time) ([]byte, error) {
	var data []byte
	err := s.w.QueryRow(ctx, "DELETE FROM webauthn_ceremonies WHERE hash = ? AND expires_at > ? RETURNING data", hash[:], Millis(now)).Scan(&data)
	if NoRows(err) {
		return nil, svc.Errorf(svc.ENOTFOUND, "no such passkey ceremony")
	}
	return data, err
}

// CreateDashboardSession stores a session (svc.PasskeyStore).
func (s *Store) CreateDashboardSession(ctx context.Context, sess *svc.DashboardSession) error {
	return insertSession(ctx, s.w, sess)
}
