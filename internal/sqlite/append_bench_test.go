package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/svc-project/svc/internal/sqlite"
	"github.com/svc-project/svc/internal/storetest"
)

// BenchmarkAppendViews appends batches of views of known products, as the
// group commit does: 32 under load, 1 to 4 at moderate rates
// (storetest.AppendViews). The sizes together split a commit's fixed cost
// from a view's. With feed, the store's change feed is followed, as by svc
// serve: each commit notes its ids (feed.go).
func BenchmarkAppendViews(b *testing.B) {
	for _, size := range []int{1, 4, 32} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) { benchmarkAppendViews(b, size, false) })
		b.Run(fmt.Sprintf("batch=%d/feed", size), func(b *testing.B) { benchmarkAppendViews(b, size, true) })
	}
}

func benchmarkAppendViews(b *testing.B, batchSize int, feed bool) {
	dir := b.TempDir()
	s, err := sqlite.Open(context.Background(), dir)
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	storetest.AppendViews(b, s, batchSize, feed, func(n int) string { return fmt.Sprint("e", n) },
		func() int64 { return dbBytes(b, dir) }, nil)
}

// dbBytes is the size of the database's pages, those in the log too.
func dbBytes(b *testing.B, dir string) int64 {
	db, err := sql.Open("sqlite", filepath.Join(dir, sqlite.FileName))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	var pages, size int64
	if err := db.QueryRow("SELECT page_count * page_size, freelist_count * page_size FROM pragma_page_count(), pragma_page_size(), pragma_freelist_count()").Scan(&pages, &size); err != nil {
		b.Fatal(err)
	}
	return pages - size
}
