package sqlite

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// BenchmarkCommitFrames measures what a commit of views writes: the pages
// (WAL frames, 4 KiB each) it adds to the log, per view and per table or
// index, with views of Zipf-popular products among 20,000 from random
// sessions among a million, on a store that already holds a day's worth of
// sessions, 2,000 views a second. In WAL mode every page a commit dirties is written whole and
// fsynced, so frames per view, not rows, is what a view costs the disk
// (bench/RESULTS.md, Findings). b.N is the commits measured.
func BenchmarkCommitFrames(b *testing.B) {
	for _, size := range []int{16, 100} {
		b.Run(fmt.Sprintf("batch=%d", size), func(b *testing.B) { benchmarkCommitFrames(b, size) })
	}
}

func benchmarkCommitFrames(b *testing.B, batchSize int) {
	ctx := context.Background()
	s, err := Open(ctx, b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	// The log holds only the measured commits: no checkpoint copies it away.
	s.stopOnce.Do(func() { close(s.stopCheckpoints) })
	<-s.checkpoints
	now := time.Now()
	start := now.Add(-time.Hour)
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_1", Name: "One", CreatedAt: now}, nil); err != nil {
		b.Fatal(err)
	}
	const products, sessions = 20000, 1000000
	rng := rand.New(rand.NewPCG(1, 2))
	zipf := rand.NewZipf(rng, 1.1, 1, products-1)
	country, locale := "DE", "de-DE"
	n := 0
	batch := func(everyProduct bool) []*svc.Write {
		ws := make([]*svc.Write, batchSize)
		for i := range ws {
			p := int(zipf.Uint64())
			if everyProduct {
				p = n % products
			}
			session := fmt.Sprint("s", rng.IntN(sessions))
			ev := &svc.ViewEvent{BrandID: "br_1", Product: svc.ViewProduct{ProductID: fmt.Sprint("p", p)},
				Context: svc.ViewContext{SessionID: &session, Country: &country, Locale: &locale}}
			at := start.Add(time.Duration(n) * 500 * time.Microsecond) // 2,000 views a second
			ev.Meta = svc.EventMeta{EventID: fmt.Sprint("e", n), Time: at, ReceivedAt: at}
			ws[i] = &svc.Write{View: ev, MayRegister: true}
			n++
		}
		return ws
	}
	appendAll := func(commits int, everyProduct bool) {
		for range commits {
			if err := s.Append(ctx, batch(everyProduct)); err != nil {
				b.Fatal(err)
			}
		}
	}
	appendAll(products/batchSize, true)
	appendAll(48000/batchSize, false)
	for _, pragma := range []string{"PRAGMA wal_autocheckpoint=0", "PRAGMA wal_checkpoint(TRUNCATE)"} {
		if _, err := s.w.ExecContext(ctx, pragma); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	appendAll(b.N, false)
	b.StopTimer()

	owner := map[uint32]string{}
	rows, err := s.r.QueryContext(ctx, "SELECT name, pageno FROM dbstat")
	if err != nil {
		b.Fatal(err)
	}
	for rows.Next() {
		var name string
		var page uint32
		if err := rows.Scan(&name, &page); err != nil {
			b.Fatal(err)
		}
		owner[page] = name
	}
	if err := rows.Close(); err != nil {
		b.Fatal(err)
	}
	wal, err := os.ReadFile(s.path + "-wal")
	if err != nil {
		b.Fatal(err)
	}
	// The log: a 32-byte header, then frames of a 24-byte header (the page
	// number first) and the page.
	pageSize := int(binary.BigEndian.Uint32(wal[8:12]))
	frames, byOwner := 0, map[string]int{}
	for off := 32; off+24+pageSize <= len(wal); off += 24 + pageSize {
		frames++
		byOwner[owner[binary.BigEndian.Uint32(wal[off:off+4])]]++
	}
	views := float64(b.N * batchSize)
	b.ReportMetric(float64(frames)/views, "frames/view")
	names := make([]string, 0, len(byOwner))
	for name := range byOwner {
		names = append(names, name)
	}
	slices.SortFunc(names, func(x, y string) int { return byOwner[y] - byOwner[x] })
	var line strings.Builder
	for _, name := range names {
		fmt.Fprintf(&line, " %s %.2f", name, float64(byOwner[name])/views)
	}
	b.Logf("frames a view by table or index:%s", line.String())
}
