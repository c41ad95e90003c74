package svc

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"time"
)

// SigningKey is an Ed25519 key pair that signs svc's answers (RFC 9421).
// The newest key signs; older ones stay published until they expire, so
// that answers signed before a rotation still verify.
type SigningKey struct {
	ID        string // the keyid: the key's JWK thumbprint (RFC 7638)
	Private   ed25519.PrivateKey
	CreatedAt time.Time
	ExpiresAt *time.Time // set when a newer key replaced it; nil for the current key
	// ReplacedAt is when the key stopped signing, set with ExpiresAt: a
	// signature it made later is not svc's (see KeyReplacedAt).
	ReplacedAt *time.Time
}

// KeySwitch is how long the servers of a store take to sign with a new
// key: each reads the keys every 250 ms (signing.DefaultPoll).
const KeySwitch = time.Second

// KeyReplacedAt is when a key stopped signing, given when the key that
// replaced it was made and until when it stays published: the servers
// still sign with it until they read the new key, within KeySwitch. A key
// dropped at once (published no longer than that) stopped at once: a
// signature made with it since is refused, a server's or a thief's. It is
// whole seconds, as a signature's created is.
func KeyReplacedAt(next, expires time.Time) time.Time {
	at := expires
	if switched := next.Add(KeySwitch); switched.Before(expires) {
		at = switched
	}
	return at.UTC().Truncate(time.Second)
}

// Public is the key's public half.
func (k *SigningKey) Public() ed25519.PublicKey { return k.Private.Public().(ed25519.PublicKey) }

// DefaultSigningGrace is how long a replaced key stays published.
const DefaultSigningGrace = 7 * 24 * time.Hour

// NewSigningKey draws a key created at now.
func NewSigningKey(now time.Time) (*SigningKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return &SigningKey{ID: KeyThumbprint(priv.Public().(ed25519.PublicKey)), Private: priv, CreatedAt: now.UTC().Truncate(time.Millisecond)}, nil
}

// KeyThumbprint is the RFC 7638 thumbprint of an Ed25519 public key's JWK
// (RFC 8037, section 2): a keyid that names the key itself, so that two
// nodes can never give one id to different keys.
func KeyThumbprint(pub ed25519.PublicKey) string {
	// The members in lexicographic order, no white space (RFC 7638, 3.2).
	j := `{"crv":"Ed25519","kty":"OKP","x":"` + base64.RawURLEncoding.EncodeToString(pub) + `"}`
	sum := sha256.Sum256([]byte(j))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// SigningKeyStore keeps the signing keys. Every server of a shared store
// reads the same keys.
type SigningKeyStore interface {
	// SigningKeys returns the keys that have not expired at now, the
	// current one first, then the others newest first.
	SigningKeys(ctx context.Context, now time.Time) ([]*SigningKey, error)
	// InitSigningKey stores k as the current key if there is none, and
	// returns the current key (k or the one already there). Servers that
	// start together end with one current key.
	InitSigningKey(ctx context.Context, k *SigningKey) (*SigningKey, error)
	// RotateSigningKey makes k the current key and sets the replaced key,
	// and every older one published later than that, to expire at
	// oldExpires, in one transaction: a rotation with no grace drops every
	// older key at once.
	RotateSigningKey(ctx context.Context, k *SigningKey, oldExpires time.Time) error
}
