package window

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// A snapshot copies each shard under its lock and encodes it after, into
// arenas reused from shard to shard: encodes beside writes, sweeps and trims
// must neither race (-race) nor write a snapshot that does not load.
func TestEncodeBesideWrites(t *testing.T) {
	e, now := busyEngine(t, 2)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		n := now
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			ref := svc.ProductRef(i % 600)
			n = n.Add(time.Millisecond * 10)
			e.AddPurchase(ref, n, 2, n)
			e.AddView(ref, n.Add(time.Minute), e.SessionHash("x"), n)
			e.AddView(ref, n.Add(-time.Hour), e.SessionHash("y"), n)
			if i%5000 == 0 {
				e.Sweep(n)
				e.Trim()
			}
		}
	})
	for range 3 {
		var buf bytes.Buffer
		enc, err := e.NewEncoder(&buf, now, nil)
		if err != nil {
			t.Fatal(err)
		}
		for range Shards {
			if err := enc.EncodeShard(nil, func() {}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := load(buf.Bytes()); err != nil {
			t.Fatal(err)
		}
	}
	close(stop)
	wg.Wait()
}
