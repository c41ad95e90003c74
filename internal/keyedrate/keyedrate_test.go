package keyedrate_test

import (
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/svc-project/svc/internal/keyedrate"
)

// A key's bucket is its own, and an idle key is forgotten only once its
// bucket would be full again: a slow limit keeps its keys longer than the
// five minutes a fast one does.
func TestBucketsPerKeyForgottenWhenFull(t *testing.T) {
	t.Parallel()
	now := time.Now()
	fast := keyedrate.New[string](rate.Limit(1), 1)
	if !fast.Get("a", now).AllowN(now, 1) || fast.Get("a", now).AllowN(now, 1) || !fast.Get("b", now).AllowN(now, 1) {
		t.Fatal("a key's second token, or another key's first")
	}
	fast.Get("c", now.Add(6*time.Minute))
	if n := fast.Len(); n != 1 {
		t.Fatalf("fast: %d keys kept after 6 idle minutes, want 1", n)
	}

	slow := keyedrate.New[string](rate.Every(5*time.Minute), 3) // full again after 15 minutes
	for range 3 {
		slow.Get("mail", now).AllowN(now, 1)
	}
	later := now.Add(10 * time.Minute)
	slow.Get("other", later)
	if slow.Len() != 2 || slow.Get("mail", later).TokensAt(later) >= 3 {
		t.Fatalf("slow: an emptied key forgotten after 10 of the 15 minutes it needs: %d kept", slow.Len())
	}
	slow.Get("other", now.Add(26*time.Minute))
	if n := slow.Len(); n != 1 {
		t.Fatalf("slow: %d keys kept after 16 idle minutes, want 1", n)
	}
}
