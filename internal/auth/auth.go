// Package auth keeps every brand and active API key in memory, refreshed
// from the store, and answers who may act for which brand.
package auth

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/match"
)

// DefaultPoll is how often the store's config version is read: admin
// commands run beside a server take effect within a second.
const DefaultPoll = 250 * time.Millisecond

// state is every brand and active key, swapped whole on a change so that
// requests read it without locks.
type state struct {
	version int64
	brands  map[string]*svc.Brand
	keys    map[[32]byte]*svc.APIKey // active keys only
	dir     *match.Directory         // brands by domain, for enrichment
	secrets map[webhookKey]string    // webhook secrets by brand and platform
}

type webhookKey struct{ brand, platform string }

// Cache holds the brands and keys of a store. Create it with Open; it is
// safe for concurrent use.
type Cache struct {
	store svc.BrandStore
	state atomic.Pointer[state]
	stop  context.CancelFunc
	wg    sync.WaitGroup
}

// Open loads the brands and keys, then reloads them every poll (DefaultPoll
// when zero) when the store's config version moved, until Close.
func Open(ctx context.Context, store svc.BrandStore, poll time.Duration, log *slog.Logger) (*Cache, error) {
	c := &Cache{store: store}
	if err := c.Refresh(ctx); err != nil {
		return nil, fmt.Errorf("load brands and keys: %w", err)
	}
	if poll == 0 {
		poll = DefaultPoll
	}
	if log == nil {
		log = slog.Default()
	}
	bg, stop := context.WithCancel(context.Background())
	c.stop = stop
	c.wg.Go(func() {
		tick := time.NewTicker(poll)
		defer tick.Stop()
		for {
			select {
			case <-bg.Done():
				return
			case <-tick.C:
				if err := c.Refresh(bg); err != nil && bg.Err() == nil {
					log.Warn("reload brands and keys", "err", err)
				}
			}
		}
	})
	return c, nil
}

// Close stops the polling.
func (c *Cache) Close() {
	c.stop()
	c.wg.Wait()
}

// Refresh reloads the brands and keys now if the store's version moved,
// rather than at the next poll.
func (c *Cache) Refresh(ctx context.Context) error {
	v, err := c.store.ConfigVersion(ctx)
	if err != nil {
		return err
	}
	if cur := c.state.Load(); cur != nil && cur.version == v {
		return nil
	}
	brands, err := c.store.Brands(ctx)
	if err != nil {
		return err
	}
	keys, err := c.store.APIKeys(ctx)
	if err != nil {
		return err
	}
	s := &state{version: v, brands: make(map[string]*svc.Brand, len(brands)), keys: make(map[[32]byte]*svc.APIKey, len(keys))}
	for _, b := range brands {
		s.brands[b.ID] = b
	}
	for _, k := range keys {
		if k.RevokedAt == nil {
			s.keys[k.Hash] = k
		}
	}
	s.dir = match.NewDirectory(brands)
	if s.secrets, err = c.webhookSecrets(ctx); err != nil {
		return err
	}
	c.state.Store(s)
	return nil
}

// Credentials are what a request says about who sends it.
type Credentials struct {
	Key    string // the X-svc-Api-Key header
	HasKey bool   // the header was present, even if empty
	Origin string // the Origin header of a browser request
}

// Authenticate checks the API key, if one was sent, and returns it: an
// unknown, revoked or empty key is EUNAUTHORIZED whatever else the request
// says. Without a key it returns nil and no error.
func (c *Cache) Authenticate(cred Credentials) (*svc.APIKey, error) {
	if !cred.HasKey {
		return nil, nil
	}
	// By the hash of the secret, so that the lookup's timing tells nothing
	// about stored secrets.
	if k := c.state.Load().keys[svc.HashAPIKey(cred.Key)]; k != nil {
		return k, nil
	}
	return nil, svc.Errorf(svc.EUNAUTHORIZED, "the API key is invalid or revoked")
}

// Authorize returns the brand a request acts for, after the checks of
// docs/decisions.md ("Order of checks", step 4): a key must be the brand's;
// without one the brand must not require a key, and a browser's Origin must
// be one of the brand's domains. key is what Authenticate returned. Returns
// EUNAUTHORIZED, or ENOTFOUND for an unknown brand.
func (c *Cache) Authorize(brandID string, key *svc.APIKey, origin string) (*svc.Brand, error) {
	if key != nil && key.BrandID != brandID {
		return nil, svc.Errorf(svc.EUNAUTHORIZED, "the API key does not belong to brand %q", brandID)
	}
	b := c.state.Load().brands[brandID]
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

// Brand returns a brand, or nil.
func (c *Cache) Brand(id string) *svc.Brand { return c.state.Load().brands[id] }

// Directory returns the brands by the domains their pages live on.
func (c *Cache) Directory() *match.Directory { return c.state.Load().dir }

func (c *Cache) webhookSecrets(ctx context.Context) (map[webhookKey]string, error) {
	all, err := c.store.WebhookSecrets(ctx)
	if err != nil {
		return nil, err
	}
	out := make(map[webhookKey]string, len(all))
	for _, w := range all {
		out[webhookKey{w.BrandID, w.Platform}] = w.Secret
	}
	return out, nil
}

// WebhookSecret returns the secret the platform signs the brand's webhooks
// with; ok is false when the brand has none (or does not exist).
func (c *Cache) WebhookSecret(brandID, platform string) (secret string, ok bool) {
	secret, ok = c.state.Load().secrets[webhookKey{brandID, platform}]
	return secret, ok
}
