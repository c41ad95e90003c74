package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlstore"
)

// ExportEvents calls fn for every stored event of the brand: views, then
// orders, each oldest first. Both are read in one snapshot.
func (s *Store) ExportEvents(ctx context.Context, brandID string, fn func(svc.ExportedEvent) error) error {
	if _, err := s.Brand(ctx, brandID); err != nil {
		return err
	}
	return pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		return sqlstore.ExportBrand(brandID, "$1", fn, func(q string, row func(func(...any) error) error) error {
			return eachRow(ctx, tx, func(rows pgx.Rows) error { return row(rows.Scan) }, q, brandID)
		}, func() error {
			return sqlstore.PostgreSQL.ExportBlockViews(ctx, sqlstore.PostgreSQL.Wrap(pgQ{tx}), brandID, fn)
		})
	})
}
