package carts_test

import (
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/carts"
)

// A session counts once per product, at its latest add-to-cart, until it
// leaves the window; a cart without a session is no one's.
func TestDistinctSessions(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	c := carts.New()
	a, b := "a", "b"
	c.Add(1, now.Add(-50*time.Minute), &a, now)
	c.Add(1, now.Add(-10*time.Minute), &a, now) // the same session, later
	c.Add(1, now.Add(-20*time.Minute), &b, now)
	c.Add(1, now.Add(-5*time.Minute), nil, now)
	c.Add(2, now.Add(-5*time.Minute), &a, now)
	for _, tc := range []struct {
		ref  svc.ProductRef
		w    time.Duration
		want int64
	}{
		{1, time.Hour, 2}, {1, 15 * time.Minute, 1}, {1, time.Minute, 0}, {2, time.Hour, 1}, {3, time.Hour, 0},
	} {
		if got := c.In(tc.ref, now, tc.w); got != tc.want {
			t.Errorf("product %d in %s: %d carts, want %d", tc.ref, tc.w, got, tc.want)
		}
	}
	later := now.Add(svc.MaxCartWindow + time.Hour)
	c.Sweep(later)
	if got := c.In(1, later, svc.MaxCartWindow); got != 0 {
		t.Errorf("after the window: %d carts, want 0", got)
	}
}
