package tracker

import (
	"context"
	"sync/atomic"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match"
)

// authSnapshot is every brand and active key, swapped whole on a change so
// that requests read it without locks.
type authSnapshot struct {
	version int64
	brands  map[string]*svc.Brand
	keys    map[[32]byte]*svc.APIKey // active keys only
	dir     *match.Directory         // brands by domain, for enrichment
}

type authCache struct {
	store svc.BrandStore
	snap  atomic.Pointer[authSnapshot]
}

// refresh reloads brands and keys when the store's version moved.
func (a *authCache) refresh(ctx context.Context) error {
	v, err := a.store.ConfigVersion(ctx)
	if err != nil {
		return err
	}
	if cur := a.snap.Load(); cur != nil && cur.version == v {
		return nil
	}
	brands, err := a.store.Brands(ctx)
	if err != nil {
		return err
	}
	keys, err := a.store.APIKeys(ctx)
	if err != nil {
		return err
	}
	s := &authSnapshot{version: v, brands: make(map[string]*svc.Brand, len(brands)), keys: make(map[[32]byte]*svc.APIKey, len(keys))}
	for _, b := range brands {
		s.brands[b.ID] = b
	}
	for _, k := range keys {
		if k.RevokedAt == nil {
			s.keys[k.Hash] = k
		}
	}
	s.dir = match.NewDirectory(brands)
	a.snap.Store(s)
	return nil
}

// Credentials are what a request says about who sends it.
type Credentials struct {
	Key       string // the X-svc-Api-Key header
	HasKey    bool   // the header was present, even if empty
	Origin    string // the Origin header of a browser request
	UserAgent string
}

// key checks the API key, if one was sent: an unknown or revoked key is a
// 401 whatever else the request says. It returns nil without a key.
func (a *authCache) key(c Credentials) (*svc.APIKey, error) {
	if !c.HasKey {
		return nil, nil
	}
	if k := a.active(c.Key); k != nil {
		return k, nil
	}
	return nil, svc.Errorf(svc.EUNAUTHORIZED, "the API key is invalid or revoked")
}

// active returns the active key with the secret, or nil. The lookup is by
// the hash of the secret, so its timing tells nothing about stored secrets.
func (a *authCache) active(secret string) *svc.APIKey {
	return a.snap.Load().keys[svc.HashAPIKey(secret)]
}

// brand returns the brand a request acts for, after the checks of DESIGN 4:
// a key must be the brand's; without one the brand must not require a key,
// and a browser's Origin must be one of the brand's domains.
func (a *authCache) brand(brandID string, key *svc.APIKey, origin string) (*svc.Brand, error) {
	if key != nil && key.BrandID != brandID {
		return nil, svc.Errorf(svc.EUNAUTHORIZED, "the API key does not belong to brand %q", brandID)
	}
	b := a.snap.Load().brands[brandID]
	switch {
	case b == nil:
		return nil, svc.Errorf(svc.ENOTFOUND, "brand %q not found", brandID)
	case key != nil:
		return b, nil
	case b.RequireKey:
		return nil, svc.Errorf(svc.EUNAUTHORIZED, "brand %q requires an API key in the X-svc-Api-Key header", brandID)
	case origin != "" && !b.AllowsOrigin(origin):
		return nil, svc.Errorf(svc.EUNAUTHORIZED, "origin %q is not one of brand %q's domains", origin, brandID)
	}
	return b, nil
}

// ValidKey reports whether secret is an active key: such requests are
// trusted, and not rate limited per address.
func (t *Tracker) ValidKey(secret string) bool {
	return secret != "" && t.auth.active(secret) != nil
}
