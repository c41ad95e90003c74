package signing_test

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/signing"
	"github.com/svc-project/svc/internal/sqlite"
)

func TestParseJWKSet(t *testing.T) {
	const x = "JrQLj5P_89iXES9-vFgrIy29clF9CC_oPPsw3c5D0bs" // RFC 9421, B.1.4
	keys, err := signing.ParseJWKSet([]byte(`{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + x + `","kid":"k1","use":"sig","alg":"EdDSA","expires":"2026-12-01T00:00:00Z"}]}`))
	if err != nil || len(keys["k1"]) != 32 {
		t.Fatalf("ParseJWKSet = %v, %v", keys, err)
	}
	for name, set := range map[string]string{
		"not JSON":       `{`,
		"no keys":        `{}`,
		"a private key":  `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + x + `","d":"n4Ni-HpISpVObnQMW0wOhCKROaIKqKtW_2ZYb2p9KcU","kid":"k1"}]}`,
		"another curve":  `{"keys":[{"kty":"OKP","crv":"X25519","x":"` + x + `","kid":"k1"}]}`,
		"an EC key":      `{"keys":[{"kty":"EC","crv":"P-256","x":"` + x + `","kid":"k1"}]}`,
		"a short x":      `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + x[:20] + `","kid":"k1"}]}`,
		"a padded x":     `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + x + `=","kid":"k1"}]}`,
		"no kid":         `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + x + `"}]}`,
		"standard b64 x": `{"keys":[{"kty":"OKP","crv":"Ed25519","x":"` + strings.NewReplacer("_", "/", "-", "+").Replace(x) + `","kid":"k1"}]}`,
	} {
		if _, err := signing.ParseJWKSet([]byte(set)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestSignRemembersOneSecond(t *testing.T) {
	ctx := context.Background()
	store, err := sqlite.Open(ctx, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	kr, err := signing.Open(ctx, store, time.Hour, nil, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer kr.Close()
	key := kr.Current()
	base, other := []byte("base one"), []byte("base two")
	first := kr.Sign(key, 100, base)
	if !ed25519.Verify(key.Public(), base, first) {
		t.Fatal("the signature does not verify")
	}
	if again := kr.Sign(key, 100, base); &again[0] != &first[0] {
		t.Error("the same base in the same second was signed again")
	}
	if sig := kr.Sign(key, 100, other); !ed25519.Verify(key.Public(), other, sig) || bytes.Equal(sig, first) {
		t.Error("another base got the first one's signature")
	}
	if next := kr.Sign(key, 101, base); &next[0] == &first[0] || !ed25519.Verify(key.Public(), base, next) {
		t.Error("a signature outlived its second")
	}
}
