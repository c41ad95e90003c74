// Package auth keeps every brand and active API key in memory, refreshed
// from the store, and answers who may act for which brand.
package auth

import (
	"context"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/poll"
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
	list    []*svc.Brand             // the brands as the store lists them
	secrets map[webhookKey]string    // webhook secrets by brand and platform
	// uses are the keys' last uses this server saw: the active keys', and
	// those of keys revoked since that were not written yet.
	uses map[[32]byte]*use
}

// use is a key's latest use this server saw, and the latest it wrote to
// the store, in Unix seconds: a request only stores a number, and
// FlushUsage writes what moved, at most every svc.KeyUseFlush.
type use struct{ seen, flushed atomic.Int64 }

type webhookKey struct{ brand, platform string }

// Cache holds the brands and keys of a store. Create it with Open; it is
// safe for concurrent use.
type Cache struct {
	store svc.BrandStore
	state atomic.Pointer[state]
	stop  func() // ends the polling and the writing of the keys' uses
	now   func() time.Time
}

// Open loads the brands and keys, then reloads them every interval (DefaultPoll
// when zero) when the store's config version moved, until Close.
func Open(ctx context.Context, store svc.BrandStore, interval time.Duration, log *slog.Logger) (*Cache, error) {
	c := &Cache{store: store, now: time.Now}
	if err := c.Refresh(ctx); err != nil {
		return nil, fmt.Errorf("load brands and keys: %w", err)
	}
	if interval == 0 {
		interval = DefaultPoll
	}
	if log == nil {
		log = slog.Default()
	}
	stopPoll := poll.Every(interval, log, "reload brands and keys", c.Refresh)
	stopFlush := poll.Every(svc.KeyUseFlush, log, "write the keys' last use", c.FlushUsage)
	c.stop = func() {
		stopPoll()
		stopFlush()
		// The last minute's uses, so that a restart loses none of them.
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := c.FlushUsage(ctx); err != nil {
			log.Warn("write the keys' last use", "err", err)
		}
	}
	return c, nil
}

// Close stops the polling and writes the keys' last uses not written yet.
func (c *Cache) Close() {
	c.stop()
}

// FlushUsage writes to the store the keys' last uses seen since the last
// flush, in one call; Open's loop calls it every svc.KeyUseFlush, and
// Close once more.
func (c *Cache) FlushUsage(ctx context.Context) error {
	var uses []svc.KeyUse
	var seen []int64
	var pending []*use
	for hash, u := range c.state.Load().uses {
		if t := u.seen.Load(); t > u.flushed.Load() {
			uses = append(uses, svc.KeyUse{Hash: hash, At: time.Unix(t, 0).UTC()})
			seen, pending = append(seen, t), append(pending, u)
		}
	}
	if len(uses) == 0 {
		return nil
	}
	if err := c.store.TouchAPIKeys(ctx, uses); err != nil {
		return err // written at the next flush
	}
	for i, u := range pending {
		u.flushed.Store(seen[i])
	}
	return nil
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
	s := &state{version: v, list: brands, brands: make(map[string]*svc.Brand, len(brands)), keys: make(map[[32]byte]*svc.APIKey, len(keys))}
	for _, b := range brands {
		s.brands[b.ID] = b
	}
	s.uses = make(map[[32]byte]*use, len(keys))
	for _, k := range keys {
		if k.RevokedAt == nil {
			s.keys[k.Hash] = k
			s.uses[k.Hash] = &use{}
		}
	}
	if cur := c.state.Load(); cur != nil { // the uses seen so far stay
		for hash, u := range cur.uses {
			if s.uses[hash] != nil || u.seen.Load() > u.flushed.Load() {
				s.uses[hash] = u
			}
		}
	}
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
	s := c.state.Load()
	hash := svc.HashAPIKey(cred.Key)
	if k := s.keys[hash]; k != nil {
		// Its use, to the second: one atomic store a second per key at
		// most, no write to the store (FlushUsage).
		if u := s.uses[hash]; u != nil {
			if now := c.now().Unix(); u.seen.Load() < now {
				u.seen.Store(now)
			}
		}
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

// Brands returns every brand, and the store's config version they are of:
// it moves when any of them changes (enrichment's directory of brands by
// domain is built again then).
func (c *Cache) Brands() (version int64, all []*svc.Brand) {
	s := c.state.Load()
	return s.version, s.list
}

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
