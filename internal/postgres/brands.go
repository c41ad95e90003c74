package postgres

import (
	"context"

	"github.com/svc-project/svc"
)

// TouchAPIKeys records the keys' last uses, the later of the stored and
// the given (svc.BrandStore.TouchAPIKeys): in one statement, so that nodes
// flushing together never move a key's last use back. The brands' and
// keys' other statements are internal/sqlstore's.
func (s *Store) TouchAPIKeys(ctx context.Context, uses []svc.KeyUse) error {
	if len(uses) == 0 {
		return nil
	}
	hashes, ats := make([][]byte, len(uses)), make([]int64, len(uses))
	for i, u := range uses {
		hashes[i], ats[i] = u.Hash[:], millis(u.At)
	}
	_, err := s.pool.Exec(ctx, `UPDATE api_keys k SET last_used_at = greatest(coalesce(k.last_used_at, 0), u.at)
		FROM unnest($1::bytea[], $2::bigint[]) AS u(hash, at) WHERE k.hash = u.hash`, hashes, ats)
	return err
}
