package sqlite

import (
	"context"
	"database/sql"

	"github.com/svc-project/svc"
)

// TouchAPIKeys records the keys' last uses, the later of the stored and
// the given (svc.BrandStore.TouchAPIKeys). The brands' and keys' other
// statements are internal/sqlstore's.
func (s *Store) TouchAPIKeys(ctx context.Context, uses []svc.KeyUse) error {
	if len(uses) == 0 {
		return nil
	}
	return s.inTx(ctx, func(tx *sql.Tx) error {
		for _, u := range uses {
			if _, err := tx.ExecContext(ctx, "UPDATE api_keys SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE hash = ?",
				millis(u.At), u.Hash[:]); err != nil {
				return err
			}
		}
		return nil
	})
}
