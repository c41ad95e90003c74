package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/httpsig"
	"github.com/svc-project/svc/internal/signing"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

// svc verify refuses an answer signed by a published key after the key
// was replaced, and takes one signed before.
func TestVerifyRefusesASignatureAfterItsKeyWasReplaced(t *testing.T) {
	t.Parallel()
	dir := sqlitetest.Dir(t)
	key, err := svc.NewSigningKey(time.Now().Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	replaced := time.Now().Add(-time.Minute).UTC().Truncate(time.Second)
	jwk := signing.NewJWK(key.ID, key.Public(), new(replaced.Add(time.Hour)))
	jwk.Replaced = &replaced
	set, err := json.Marshal(signing.JWKSet{Keys: []signing.JWK{jwk}})
	if err != nil {
		t.Fatal(err)
	}
	keys := filepath.Join(dir, "keys.json")
	if err := os.WriteFile(keys, set, 0o600); err != nil {
		t.Fatal(err)
	}
	const target = "https://proof.example/api/svc/product-proof?brand_id=b&product_id=p"
	answer := func(created time.Time) string {
		u, _ := url.Parse(target)
		body := []byte(`{"views":1}` + "\n")
		h := http.Header{"Content-Type": {"application/json"}, "Content-Digest": {httpsig.Digest(body)}}
		m := &httpsig.Message{Status: 200, Header: h, Request: &httpsig.Message{Method: "GET", TargetURI: u, Header: http.Header{}}}
		input, sig, err := httpsig.Sign(m, signing.Label, &httpsig.Params{Components: signing.Components, Created: created, KeyID: key.ID, Alg: httpsig.Alg}, key.Private)
		if err != nil {
			t.Fatal(err)
		}
		h.Set("Signature-Input", input)
		h.Set("Signature", sig)
		var b bytes.Buffer
		b.WriteString("HTTP/1.1 200 OK\r\n")
		_ = h.Write(&b)
		b.WriteString("\r\n")
		b.Write(body)
		path := filepath.Join(dir, fmt.Sprint("answer-", created.Unix(), ".http"))
		if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
			t.Fatal(err)
		}
		return path
	}
	if out, err := runVerify("--url", target, "--answer", answer(replaced.Add(-time.Second)), "--keys", keys); err != nil {
		t.Errorf("signed before its key was replaced: %v\n%s", err, out)
	}
	out, err := runVerify("--url", target, "--answer", answer(replaced.Add(time.Second)), "--keys", keys)
	if err == nil || !strings.Contains(err.Error(), "after its key") {
		t.Errorf("signed after its key was replaced: %v\n%s", err, out)
	}
}
