package storetest

import (
	"testing"
	"time"

	"github.com/svc-project/svc"
)

// testKeyLabelAndLastUse checks that a key keeps its label, that its last
// use starts unset and moves only forward, and that a use is not a change
// of configuration (servers would reload every brand each minute).
func testKeyLabelAndLastUse(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	_, k := svc.NewAPIKey("br_1", t0)
	if err := k.SetLabel("  shop server  "); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	_, other := svc.NewAPIKey("br_1", t0)
	if err := s.CreateAPIKey(ctx, other); err != nil {
		t.Fatal(err)
	}
	get := func(hash [32]byte) *svc.APIKey {
		t.Helper()
		keys, err := s.APIKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range keys {
			if k.Hash == hash {
				return k
			}
		}
		t.Fatal("key not listed")
		return nil
	}
	if got := get(k.Hash); got.Label != "shop server" || !got.LastUsedAt.IsZero() {
		t.Fatalf("new key: label %q, last used %v", got.Label, got.LastUsedAt)
	}
	v0, _ := s.ConfigVersion(ctx)
	later := t0.Add(90 * time.Second)
	if err := s.TouchAPIKeys(ctx, []svc.KeyUse{{Hash: k.Hash, At: later}, {Hash: [32]byte{1}, At: later}}); err != nil {
		t.Fatal(err)
	}
	if got := get(k.Hash); !got.LastUsedAt.Equal(later) {
		t.Fatalf("last used %v, want %v", got.LastUsedAt, later)
	}
	if got := get(other.Hash); !got.LastUsedAt.IsZero() || got.Label != "" {
		t.Fatalf("the other key moved: %+v", got)
	}
	// Another node's older use does not move it back.
	if err := s.TouchAPIKeys(ctx, []svc.KeyUse{{Hash: k.Hash, At: t0}}); err != nil {
		t.Fatal(err)
	}
	if got := get(k.Hash); !got.LastUsedAt.Equal(later) {
		t.Fatalf("moved back to %v", got.LastUsedAt)
	}
	if err := s.TouchAPIKeys(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if v1, _ := s.ConfigVersion(ctx); v1 != v0 {
		t.Fatalf("a use changed the config version %d -> %d", v0, v1)
	}
}
