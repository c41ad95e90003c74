package postgres_test

import (
	"database/sql"
	"os"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/storetest"
)

// TestOldAnonymousCities runs migration 00029 on a database written
// before it.
func TestOldAnonymousCities(t *testing.T) {
	url := pgtest.URL(t)
	s := open(t, url)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.OldAnonymousCities(t, s, db, storetest.MigrateTo(t, goose.DialectPostgres, db, os.DirFS("migrations")))
}
