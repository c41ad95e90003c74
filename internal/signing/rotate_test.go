package signing_test

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/httpsig"
	"github.com/svc-project/svc/internal/postgres"
	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/signing"
	"github.com/svc-project/svc/internal/sqlite"
)

// signedAnswer is an answer signed by key at created, as a server signs.
func signedAnswer(t *testing.T, key *svc.SigningKey, created time.Time) *signing.Answer {
	t.Helper()
	u, _ := url.Parse("https://svc.example/api/svc/product-proof?brand_id=b&product_id=p")
	body := []byte(`{"views":1}`)
	h := http.Header{"Content-Type": {"application/json"}, "Content-Digest": {httpsig.Digest(body)}}
	m := &httpsig.Message{Status: 200, Header: h, Request: &httpsig.Message{Method: "GET", TargetURI: u, Header: http.Header{}}}
	input, sig, err := httpsig.Sign(m, signing.Label, &httpsig.Params{Components: signing.Components, Created: created, KeyID: key.ID, Alg: httpsig.Alg}, key.Private)
	if err != nil {
		t.Fatal(err)
	}
	h.Set("Signature-Input", input)
	h.Set("Signature", sig)
	return &signing.Answer{Method: "GET", TargetURI: u, RequestHeader: http.Header{}, Status: 200, Header: h, Body: body}
}

// published parses a keyring's key set as a verifier reads it.
func published(t *testing.T, k *signing.Keyring) map[string]signing.PublishedKey {
	t.Helper()
	keys, err := signing.ParseKeys(k.JWKSet())
	if err != nil {
		t.Fatal(err)
	}
	return keys
}

// An emergency rotation: rotate --grace 1h, then rotate --grace 0. Every
// older key leaves the key set of both nodes of one store within a second,
// and a signature made after its key was replaced never verifies, even
// while the key is still published.
func TestEmergencyRotation(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, store := range []string{"sqlite", "postgres"} {
		t.Run(store, func(t *testing.T) {
			t.Parallel()
			var nodes [2]svc.SigningKeyStore
			dir, url := t.TempDir(), ""
			if store == "postgres" {
				url = pgtest.URL(t)
			}
			for i := range nodes {
				if store == "sqlite" {
					s, err := sqlite.Open(ctx, dir)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { s.Close() })
					nodes[i] = s
				} else {
					s, err := postgres.Open(ctx, url)
					if err != nil {
						t.Fatal(err)
					}
					t.Cleanup(func() { s.Close() })
					nodes[i] = s
				}
			}
			var rings [2]*signing.Keyring
			for i, s := range nodes {
				k, err := signing.Open(ctx, s, 0, nil, slog.New(slog.DiscardHandler))
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(k.Close)
				rings[i] = k
			}
			first := rings[0].Current()

			// rotate --grace 1h, as svc keys signing rotate does.
			rotate := func(grace time.Duration) *svc.SigningKey {
				now := time.Now()
				k, err := svc.NewSigningKey(now)
				if err != nil {
					t.Fatal(err)
				}
				if err := nodes[0].RotateSigningKey(ctx, k, now.Add(grace).UTC().Truncate(time.Second)); err != nil {
					t.Fatal(err)
				}
				return k
			}
			second := rotate(time.Hour)
			var keys map[string]signing.PublishedKey
			waitFor(t, 2*time.Second, func() error {
				keys = published(t, rings[1])
				if len(keys) != 2 || keys[first.ID].Replaced == nil {
					return fmt.Errorf("node 2 publishes %v", keys)
				}
				return nil
			})
			replaced := *keys[first.ID].Replaced
			if replaced.Before(second.CreatedAt) || replaced.After(second.CreatedAt.Add(svc.KeySwitch)) {
				t.Errorf("the first key replaced at %s, the second made at %s", replaced, second.CreatedAt)
			}
			if _, err := signing.VerifyKeys(signedAnswer(t, first, first.CreatedAt), keys); err != nil {
				t.Errorf("an answer signed before the rotation: %v", err)
			}
			late := signedAnswer(t, first, replaced.Add(2*time.Second))
			if _, err := signing.VerifyKeys(late, keys); err == nil {
				t.Error("an answer signed by the first key after it was replaced verified")
			}

			third := rotate(0)
			start := time.Now()
			for i, k := range rings {
				waitFor(t, time.Second, func() error {
					keys := published(t, k)
					if _, ok := keys[third.ID]; len(keys) != 1 || !ok {
						return fmt.Errorf("node %d publishes %d keys, want the new one alone", i+1, len(keys))
					}
					if k.Current().ID != third.ID {
						return fmt.Errorf("node %d signs with %s", i+1, k.Current().ID)
					}
					return nil
				})
			}
			t.Logf("%s: both nodes dropped the older keys %s after rotate --grace 0", store, time.Since(start))
			if keys, err := nodes[1].SigningKeys(ctx, time.Now()); err != nil || len(keys) != 1 {
				t.Errorf("the store's keys after rotate --grace 0: %d, %v", len(keys), err)
			}
		})
	}
}

// waitFor checks until check passes, failing the test after within.
func waitFor(t *testing.T, within time.Duration, check func() error) {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("after %s: %v", within, err)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
