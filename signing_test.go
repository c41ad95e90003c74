package svc_test

import (
	"crypto/ed25519"
	"encoding/base64"
	"testing"

	"github.com/svc-project/svc"
)

// TestKeyThumbprint checks the keyid against RFC 8037's example (A.3).
func TestKeyThumbprint(t *testing.T) {
	x, _ := base64.RawURLEncoding.DecodeString("11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo")
	if got, want := svc.KeyThumbprint(ed25519.PublicKey(x)), "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"; got != want {
		t.Errorf("KeyThumbprint = %s, want %s", got, want)
	}
}
