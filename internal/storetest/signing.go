package storetest

import (
	"sync"
	"testing"
	"time"

	"github.com/svc-project/svc"
)

func testSigningKeys(t *testing.T, s svc.Store) {
	newKey := func(at time.Time) *svc.SigningKey {
		k, err := svc.NewSigningKey(at)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	ids := func(now time.Time) []string {
		keys, err := s.SigningKeys(ctx, now)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, k := range keys {
			out = append(out, k.ID)
		}
		return out
	}
	if got := ids(t0); len(got) != 0 {
		t.Fatalf("keys of a new store: %v", got)
	}

	// Servers starting at once end with one current key.
	var wg sync.WaitGroup
	current := make([]*svc.SigningKey, 4)
	for i := range current {
		wg.Go(func() {
			k, err := s.InitSigningKey(ctx, newKey(t0))
			if err != nil {
				t.Error(err)
				return
			}
			current[i] = k
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	first := current[0]
	for _, k := range current {
		if k.ID != first.ID || !k.Private.Equal(first.Private) {
			t.Fatalf("InitSigningKey gave %s and %s", first.ID, k.ID)
		}
	}
	if first.ID != svc.KeyThumbprint(first.Public()) || !first.CreatedAt.Equal(t0) || first.ExpiresAt != nil {
		t.Errorf("current key = %+v", first)
	}
	if got, err := s.InitSigningKey(ctx, newKey(t0)); err != nil || got.ID != first.ID {
		t.Errorf("InitSigningKey with a current key = %v, %v; want %s", got, err, first.ID)
	}

	// A rotation: the new key signs, the old one is published until it expires.
	second := newKey(t0.Add(time.Hour))
	expires := t0.Add(time.Hour + svc.DefaultSigningGrace)
	if err := s.RotateSigningKey(ctx, second, expires); err != nil {
		t.Fatal(err)
	}
	keys, err := s.SigningKeys(ctx, t0.Add(2*time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || keys[0].ID != second.ID || keys[0].ExpiresAt != nil || keys[1].ID != first.ID ||
		keys[1].ExpiresAt == nil || !keys[1].ExpiresAt.Equal(expires) || !keys[0].Private.Equal(second.Private) {
		t.Fatalf("keys after a rotation = %+v", keys)
	}
	third := newKey(t0.Add(2 * time.Hour))
	if err := s.RotateSigningKey(ctx, third, t0.Add(2*time.Hour+time.Minute)); err != nil {
		t.Fatal(err)
	}
	if got := ids(t0.Add(2 * time.Hour)); len(got) != 3 || got[0] != third.ID || got[1] != second.ID || got[2] != first.ID {
		t.Errorf("keys after two rotations = %v, want %s %s %s", got, third.ID, second.ID, first.ID)
	}
	if got := ids(expires); len(got) != 1 || got[0] != third.ID {
		t.Errorf("keys once both old ones expired = %v, want %s", got, third.ID)
	}
}
