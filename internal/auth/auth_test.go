package auth_test

import (
	"context"
	"log/slog"
	"slices"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
	"github.com/svc-project/svc/internal/sqlite"
)

// cache opens a cache on a real store with an open brand (domain
// shop.example) and a brand that requires a key, a key for each, and a
// revoked key of the open brand.
func cache(t testing.TB) (c *auth.Cache, store *sqlite.Store, keys map[string]string, revoked string) {
	t.Helper()
	ctx := context.Background()
	store, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	now := time.Now()
	keys = map[string]string{}
	for _, b := range []*svc.Brand{
		{ID: "br_open", Name: "Open", Domains: []string{"shop.example"}, CreatedAt: now},
		{ID: "br_locked", Name: "Locked", RequireKey: true, CreatedAt: now},
	} {
		secret, k := svc.NewAPIKey(b.ID, now)
		if err := store.CreateBrand(ctx, b, k); err != nil {
			t.Fatal(err)
		}
		keys[b.ID] = secret
	}
	revoked, k := svc.NewAPIKey("br_open", now)
	if err := store.CreateAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if _, err := store.RevokeAPIKey(ctx, "br_open", revoked, now); err != nil {
		t.Fatal(err)
	}
	c, err = auth.Open(ctx, store, time.Hour, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c, store, keys, revoked
}

func TestAuthenticateAndAuthorize(t *testing.T) {
	c, _, keys, revoked := cache(t)
	for _, tc := range []struct {
		name  string
		cred  auth.Credentials
		brand string
		want  string // the error code of Authenticate, else of Authorize; "" for none
		keyed bool
	}{
		{name: "no key, no origin", brand: "br_open"},
		{name: "no key, own origin", cred: auth.Credentials{Origin: "https://www.shop.example"}, brand: "br_open"},
		{name: "no key, other origin", cred: auth.Credentials{Origin: "https://evil.example"}, brand: "br_open", want: svc.EUNAUTHORIZED},
		{name: "no key, brand requires one", brand: "br_locked", want: svc.EUNAUTHORIZED},
		{name: "no key, unknown brand", brand: "br_nope", want: svc.ENOTFOUND},
		{name: "own key", cred: auth.Credentials{Key: keys["br_locked"], HasKey: true}, brand: "br_locked", keyed: true},
		{name: "own key, any origin", cred: auth.Credentials{Key: keys["br_open"], HasKey: true, Origin: "https://evil.example"}, brand: "br_open", keyed: true},
		{name: "another brand's key", cred: auth.Credentials{Key: keys["br_open"], HasKey: true}, brand: "br_locked", keyed: true, want: svc.EUNAUTHORIZED},
		{name: "revoked key", cred: auth.Credentials{Key: revoked, HasKey: true}, brand: "br_open", want: svc.EUNAUTHORIZED},
		{name: "unknown key", cred: auth.Credentials{Key: "sk_nope", HasKey: true}, brand: "br_open", want: svc.EUNAUTHORIZED},
		{name: "empty key header", cred: auth.Credentials{HasKey: true}, brand: "br_open", want: svc.EUNAUTHORIZED},
	} {
		t.Run(tc.name, func(t *testing.T) {
			key, err := c.Authenticate(tc.cred)
			if err == nil {
				if (key != nil) != tc.keyed {
					t.Fatalf("key %v, want keyed %v", key, tc.keyed)
				}
				_, err = c.Authorize(tc.brand, key, tc.cred.Origin)
			}
			if got := svc.ErrorCode(err); err != nil && got != tc.want || err == nil && tc.want != "" {
				t.Fatalf("error %v, want code %q", err, tc.want)
			}
		})
	}
}

// A change in the store is seen at the next refresh, not before.
func TestRefreshSeesChanges(t *testing.T) {
	c, store, keys, _ := cache(t)
	ctx := context.Background()
	before, _ := c.Brands()
	if _, err := store.RevokeAPIKey(ctx, "br_open", keys["br_open"], time.Now()); err != nil {
		t.Fatal(err)
	}
	cred := auth.Credentials{Key: keys["br_open"], HasKey: true}
	if _, err := c.Authenticate(cred); err != nil {
		t.Fatalf("before the refresh: %v", err)
	}
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Authenticate(cred); svc.ErrorCode(err) != svc.EUNAUTHORIZED {
		t.Fatalf("after the refresh: %v, want unauthorized", err)
	}
	if c.Brand("br_open") == nil || c.Brand("br_nope") != nil {
		t.Fatal("Brand does not find the brands")
	}
	// Enrichment builds its brands by domain again when the version moves.
	after, all := c.Brands()
	if after == before || !slices.ContainsFunc(all, func(b *svc.Brand) bool { return b.ID == "br_open" }) {
		t.Fatalf("Brands: version %d after %d, %d brands", after, before, len(all))
	}
}

// A key's use costs no write: it is kept in memory and written by
// FlushUsage, and by Close so that a restart loses none.
func TestKeyUseFlushedNotWrittenPerRequest(t *testing.T) {
	ctx := context.Background()
	c, store, keys, _ := cache(t)
	lastUsed := func() time.Time {
		t.Helper()
		all, err := store.APIKeys(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range all {
			if k.Hash == svc.HashAPIKey(keys["br_open"]) {
				return k.LastUsedAt
			}
		}
		t.Fatal("no key")
		return time.Time{}
	}
	before := time.Now().Truncate(time.Second)
	for range 100 {
		if _, err := c.Authenticate(auth.Credentials{Key: keys["br_open"], HasKey: true}); err != nil {
			t.Fatal(err)
		}
	}
	if got := lastUsed(); !got.IsZero() {
		t.Fatalf("written per request: %v", got)
	}
	if err := c.FlushUsage(ctx); err != nil {
		t.Fatal(err)
	}
	got := lastUsed()
	if got.Before(before) || got.After(time.Now()) {
		t.Fatalf("last used %v, want about %v", got, before)
	}
	// A refresh of the brands keeps the uses not yet written; Close writes them.
	if err := store.TouchAPIKeys(ctx, []svc.KeyUse{{Hash: svc.HashAPIKey(keys["br_open"]), At: time.Unix(0, 0)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Authenticate(auth.Credentials{Key: keys["br_locked"], HasKey: true}); err != nil {
		t.Fatal(err)
	}
	_, k := svc.NewAPIKey("br_open", time.Now())
	if err := store.CreateAPIKey(ctx, k); err != nil {
		t.Fatal(err)
	}
	if err := c.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	c.Close()
	all, _ := store.APIKeys(ctx)
	for _, k := range all {
		if k.Hash == svc.HashAPIKey(keys["br_locked"]) && k.LastUsedAt.Before(before) {
			t.Fatalf("Close lost a use: %v", k.LastUsedAt)
		}
	}
}

// BenchmarkAuthenticateKey is the key check of every keyed request, with
// its use kept in memory: go test -bench AuthenticateKey ./internal/auth
func BenchmarkAuthenticateKey(b *testing.B) {
	c, _, keys, _ := cache(b)
	cred := auth.Credentials{Key: keys["br_open"], HasKey: true}
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := c.Authenticate(cred); err != nil {
				b.Fatal(err)
			}
		}
	})
}
