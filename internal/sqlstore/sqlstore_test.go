package sqlstore

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

func TestBind(t *testing.T) {
	for _, c := range []struct{ in, sqlite, postgres string }{
		{"SELECT 1", "SELECT 1", "SELECT 1"},
		{"UPDATE t SET a = ?, b = ? WHERE id = ?", "UPDATE t SET a = ?, b = ? WHERE id = ?", "UPDATE t SET a = $1, b = $2 WHERE id = $3"},
		// A ? in a string or a quoted name is text, not a parameter.
		{`SELECT '?', "a?b" FROM t WHERE x = ? AND y = 'it''s?'`, `SELECT '?', "a?b" FROM t WHERE x = ? AND y = 'it''s?'`,
			`SELECT '?', "a?b" FROM t WHERE x = $1 AND y = 'it''s?'`},
	} {
		if got := SQLite.Bind(c.in); got != c.sqlite {
			t.Errorf("SQLite.Bind(%q) = %q", c.in, got)
		}
		for range 2 { // the second from the cache
			if got := PostgreSQL.Bind(c.in); got != c.postgres {
				t.Errorf("PostgreSQL.Bind(%q) = %q, want %q", c.in, got, c.postgres)
			}
		}
	}
}

func TestStrings(t *testing.T) {
	for _, ss := range [][]string{nil, {}, {"a.example", "b.example"}} {
		arg, err := SQLite.Strings(ss)
		if err != nil {
			t.Fatal(err)
		}
		var back []string
		if err := SQLite.ScanStrings(&back).(*jsonStrings).Scan(arg); err != nil {
			t.Fatal(err)
		}
		if len(ss) > 0 && !reflect.DeepEqual(back, ss) || len(ss) == 0 && len(back) != 0 {
			t.Errorf("%q stored as %v, read back as %q", ss, arg, back)
		}
		if arg, _ := PostgreSQL.Strings(ss); arg == nil || PostgreSQL.ScanStrings(&back) != &back {
			t.Errorf("PostgreSQL keeps %q as %v", ss, arg)
		}
	}
}

func TestNullTime(t *testing.T) {
	at := time.Date(2026, 11, 27, 12, 30, 0, 0, time.UTC)
	for _, src := range []any{Millis(at), at.In(time.FixedZone("x", 3600)), nil} {
		var n NullTime
		if err := n.Scan(src); err != nil {
			t.Fatal(err)
		}
		if want := (NullTime{at, src != nil}); src == nil && n.Valid || src != nil && (!n.Time.Equal(want.Time) || n.Time.Location() != time.UTC) {
			t.Errorf("Scan(%v) = %+v", src, n)
		}
	}
	if SQLite.Time(at) != Millis(at) || PostgreSQL.Time(at) != at {
		t.Error("Dialect.Time")
	}
	var n NullTime
	if n.Scan("2026") == nil {
		t.Error("a string scanned as a time")
	}
}

// TestIdLists: a list of ids is one argument in both dialects, and the
// condition on it binds to one placeholder.
func TestIdLists(t *testing.T) {
	ids := []int64{3, 1, 2}
	if got := SQLite.Int64s(ids); got != "[3,1,2]" {
		t.Errorf("SQLite.Int64s = %v", got)
	}
	if got := PostgreSQL.Int64s(ids); !reflect.DeepEqual(got, ids) {
		t.Errorf("PostgreSQL.Int64s = %v", got)
	}
	if got := PostgreSQL.Bind("DELETE FROM t WHERE " + PostgreSQL.InList("id")); got != "DELETE FROM t WHERE id = ANY($1)" {
		t.Errorf("PostgreSQL.InList: %q", got)
	}
	if got := SQLite.InList("v.id"); got != "v.id IN (SELECT value FROM json_each(?))" {
		t.Errorf("SQLite.InList: %q", got)
	}
}

// TestLock: SQLite's one writer runs no lock statement.
func TestLock(t *testing.T) {
	if err := SQLite.Lock(t.Context(), nil, "rollup_hours"); err != nil {
		t.Error(err)
	}
	if got := fmt.Sprintf(PostgreSQL.lock, "a, b"); got != "LOCK TABLE a, b IN EXCLUSIVE MODE" {
		t.Errorf("PostgreSQL's lock: %q", got)
	}
}
