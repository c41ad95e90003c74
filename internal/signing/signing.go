// Package signing keeps the keys that sign svc's answers, refreshed from
// the store, and publishes their public halves as a JWK Set.
package signing

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/poll"
)

// DefaultPoll is how often the keys are read: a rotation run beside a
// server signs its answers within a second.
const DefaultPoll = 250 * time.Millisecond

// Keyring holds the current signing key and the published ones. Create it
// with Open; it is safe for concurrent use.
type Keyring struct {
	store svc.SigningKeyStore
	now   func() time.Time
	state atomic.Pointer[state]
	stop  func() // ends the polling
	cache sigCache
}

type state struct {
	current *svc.SigningKey
	keys    []*svc.SigningKey // published: current first
}

// Open makes a first key if the store has none, loads the keys, then
// reloads them every interval (DefaultPoll when zero) until Close. now is the
// clock (time.Now when nil).
func Open(ctx context.Context, store svc.SigningKeyStore, interval time.Duration, now func() time.Time, log *slog.Logger) (*Keyring, error) {
	if now == nil {
		now = time.Now
	}
	if interval == 0 {
		interval = DefaultPoll
	}
	if log == nil {
		log = slog.Default()
	}
	k := &Keyring{store: store, now: now}
	first, err := svc.NewSigningKey(now())
	if err != nil {
		return nil, err
	}
	if _, err := store.InitSigningKey(ctx, first); err != nil {
		return nil, fmt.Errorf("signing key: %w", err)
	}
	if err := k.Refresh(ctx); err != nil {
		return nil, err
	}
	k.stop = poll.Every(interval, log, "reload signing keys", k.Refresh)
	return k, nil
}

// Close stops the polling.
func (k *Keyring) Close() {
	k.stop()
}

// Refresh reloads the keys now.
func (k *Keyring) Refresh(ctx context.Context) error {
	keys, err := k.store.SigningKeys(ctx, k.now())
	if err != nil {
		return fmt.Errorf("load signing keys: %w", err)
	}
	if len(keys) == 0 || keys[0].ExpiresAt != nil {
		return fmt.Errorf("load signing keys: the store has no current key")
	}
	k.state.Store(&state{current: keys[0], keys: keys})
	return nil
}

// Current is the key that signs.
func (k *Keyring) Current() *svc.SigningKey { return k.state.Load().current }

// Sign is the Ed25519 signature of a signature base made at the second
// created, by key. Signatures of the current second are remembered: the
// same answer to the same request within one second has the same base
// (created is whole seconds), and a popular product's proof is read many
// times a second. A signature costs tens of microseconds, a hit one
// SHA-256 of the base.
func (k *Keyring) Sign(key *svc.SigningKey, created int64, base []byte) []byte {
	return k.cache.sign(key, created, base)
}

// sigCache holds the signatures of one second, at most maxCached.
type sigCache struct {
	mu     sync.Mutex
	second int64
	sigs   map[[sha256.Size]byte][]byte
}

const maxCached = 4096

func (c *sigCache) sign(key *svc.SigningKey, created int64, base []byte) []byte {
	// The base names the key (keyid) and the second (created): equal
	// bases are signed by one key with one signature.
	h := sha256.Sum256(base)
	c.mu.Lock()
	if c.second == created {
		if sig, ok := c.sigs[h]; ok {
			c.mu.Unlock()
			return sig
		}
	}
	c.mu.Unlock()
	sig := ed25519.Sign(key.Private, base)
	c.mu.Lock()
	switch {
	case created > c.second:
		c.second, c.sigs = created, map[[sha256.Size]byte][]byte{h: sig}
	case created == c.second && len(c.sigs) < maxCached:
		c.sigs[h] = sig
	}
	c.mu.Unlock()
	return sig
}

// Published returns the public key with the keyid if it is published now,
// else nil.
func (k *Keyring) Published(keyID string) ed25519.PublicKey {
	now := k.now()
	for _, key := range k.state.Load().keys {
		if key.ID == keyID && (key.ExpiresAt == nil || key.ExpiresAt.After(now)) {
			return key.Public()
		}
	}
	return nil
}

// JWKSet is the published keys as a JWK Set (RFC 7517, section 5), each an
// RFC 8037 OKP key.
func (k *Keyring) JWKSet() []byte {
	now := k.now()
	set := JWKSet{Keys: []JWK{}}
	for _, key := range k.state.Load().keys {
		if key.ExpiresAt == nil || key.ExpiresAt.After(now) {
			j := NewJWK(key.ID, key.Public(), key.ExpiresAt)
			j.Replaced = key.ReplacedAt
			set.Keys = append(set.Keys, j)
		}
	}
	b, _ := json.Marshal(set) // strings and times always marshal
	return append(b, '\n')
}

// JWKSet is a set of public keys.
type JWKSet struct {
	Keys []JWK `json:"keys"`
}

// JWK is an Ed25519 public key as RFC 8037 writes it. Expires and
// Replaced, not registered members, say until when a replaced key stays
// published and when it stopped signing: a signature it made later does
// not verify.
type JWK struct {
	Kty      string     `json:"kty"`
	Crv      string     `json:"crv"`
	X        string     `json:"x"`
	Kid      string     `json:"kid"`
	Use      string     `json:"use"`
	Alg      string     `json:"alg"`
	Expires  *time.Time `json:"expires,omitempty"`
	Replaced *time.Time `json:"replaced,omitempty"`
}

// NewJWK is the JWK of an Ed25519 public key.
func NewJWK(kid string, pub ed25519.PublicKey, expires *time.Time) JWK {
	return JWK{Kty: "OKP", Crv: "Ed25519", X: base64.RawURLEncoding.EncodeToString(pub), Kid: kid, Use: "sig", Alg: "EdDSA", Expires: expires}
}

// PublicKey checks the JWK as RFC 8037 asks and returns its key.
func (j *JWK) PublicKey() (ed25519.PublicKey, error) {
	if j.Kty != "OKP" || j.Crv != "Ed25519" {
		return nil, fmt.Errorf("key %q: kty %q crv %q, want OKP Ed25519", j.Kid, j.Kty, j.Crv)
	}
	x, err := base64.RawURLEncoding.DecodeString(j.X)
	if err != nil || len(x) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("key %q: x is not 32 bytes of unpadded base64url", j.Kid)
	}
	return ed25519.PublicKey(x), nil
}
