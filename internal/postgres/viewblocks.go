package postgres

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/svc-project/svc"
)

// exportViews emits the brand's views, oldest first.
func exportViews(ctx context.Context, tx pgx.Tx, brandID string, emit func(svc.ExportedEvent) error,
	query func(q string, row func(func(...any) error) error) error) error {
	x := svc.Exporter{BrandID: brandID, Emit: emit}
	return query("SELECT "+svc.ViewRowColumns+" FROM "+svc.ViewRowTables+" WHERE p.brand_id = $1 ORDER BY v.ts, v.id", x.View)
}
