package sqlite

import (
	"context"
	"database/sql"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/sqlstore"
)

// ExportEvents calls fn for every stored event of the brand: views, then
// orders, each oldest first.
func (s *Store) ExportEvents(ctx context.Context, brandID string, fn func(svc.ExportedEvent) error) error {
	if _, err := s.Brand(ctx, brandID); err != nil {
		return err
	}
	return sqlstore.ExportBrand(brandID, "?", fn, func(q string, row func(func(...any) error) error) error {
		return s.eachRow(ctx, func(rows *sql.Rows) error { return row(rows.Scan) }, q, brandID)
	}, func() error { return sqlstore.ExportBlockViews(ctx, sqlQ{s.r}, brandID, fn) })
}
