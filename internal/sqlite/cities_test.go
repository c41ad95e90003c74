package sqlite_test

import (
	"database/sql"
	"os"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/storetest"
)

// TestOldAnonymousCities runs migration 00029 on a file written before it.
func TestOldAnonymousCities(t *testing.T) {
	s := open(t, sqlitetest.Dir(t))
	db, err := sql.Open("sqlite", "file:"+s.Path()+"?_pragma=busy_timeout(10000)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	storetest.OldAnonymousCities(t, s, db, storetest.MigrateTo(t, goose.DialectSQLite3, db, os.DirFS("migrations")))
}
