package sqlite

import (
	"context"
	"testing"
)

// TestConnectionPragmas checks the settings that make a commit durable and
// keep the writer's statement journals off the disk, on the connections
// each is meant for.
func TestConnectionPragmas(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, c := range []struct {
		conn, pragma, want string
	}{
		{"writer", "journal_mode", "wal"},
		{"writer", "synchronous", "2"}, // FULL
		{"writer", "temp_store", "2"},  // MEMORY
		{"reader", "journal_mode", "wal"},
		{"reader", "temp_store", "0"}, // DEFAULT: a large sort spills to a file
	} {
		db := s.w
		if c.conn == "reader" {
			db = s.r
		}
		var got string
		if err := db.QueryRowContext(ctx, "PRAGMA "+c.pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != c.want {
			t.Errorf("%s: PRAGMA %s = %s, want %s", c.conn, c.pragma, got, c.want)
		}
	}
}
