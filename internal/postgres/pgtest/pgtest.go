// Package pgtest gives each test a PostgreSQL schema of its own, so that
// tests run in parallel and again on one server.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// DefaultURL is the server tests use when SVC_TEST_POSTGRES is not set.
const DefaultURL = "postgres://root@127.0.0.1:5432/test?sslmode=disable"

// ServerURL is the server tests use: SVC_TEST_POSTGRES, or DefaultURL.
func ServerURL() string {
	if u := os.Getenv("SVC_TEST_POSTGRES"); u != "" {
		return u
	}
	return DefaultURL
}

// URL creates an empty schema, dropped when the test ends, and returns the
// server's URL with that schema as the search path. Without a server that
// answers, the test is skipped, or fails when CI=true: CI must run them.
func URL(t testing.TB) string {
	t.Helper()
	base := ServerURL()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, base)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("PostgreSQL at %s (SVC_TEST_POSTGRES) does not answer, and CI=true: %v", base, err)
		}
		t.Skipf("no PostgreSQL at %s (set SVC_TEST_POSTGRES to run these tests): %v", base, err)
	}
	defer conn.Close(ctx)
	var b [6]byte
	_, _ = rand.Read(b[:])
	schema := "svctest_" + hex.EncodeToString(b[:])
	if _, err := conn.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", schema, err)
		}
	})
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
