package httpapi_test

import (
	"context"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/httpapi"
	"github.com/svc-project/svc/internal/httpsig"
	"github.com/svc-project/svc/internal/signing"
	"github.com/svc-project/svc/internal/testwait"
)

// published fetches the fixture's JWK Set and checks it as a client would.
func (f *fixture) published() map[string]ed25519.PublicKey {
	f.t.Helper()
	r := f.do("GET", "/.well-known/svc-keys.json", nil)
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
		f.t.Fatalf("JWK Set: %d %s", r.status, r.body)
	}
	keys, err := signing.ParseJWKSet(r.body)
	if err != nil {
		f.t.Fatalf("JWK Set %s: %v", r.body, err)
	}
	return keys
}

func lookup(keys map[string]ed25519.PublicKey) func(string) ed25519.PublicKey {
	return func(id string) ed25519.PublicKey { return keys[id] }
}

// answer is r as the client of method and path on base received it.
func answer(t *testing.T, r response, method, base, path string) *signing.Answer {
	t.Helper()
	u, err := url.Parse(base + path)
	if err != nil {
		t.Fatal(err)
	}
	return &signing.Answer{Method: method, TargetURI: u, Status: r.status, Header: r.header.Clone(), Body: append([]byte(nil), r.body...)}
}

func TestSignedAnswersVerify(t *testing.T) {
	t.Parallel()
	f := enrichFixture(t)
	keys := f.published()
	if len(keys) != 1 {
		t.Fatalf("published keys: %v", keys)
	}
	proofPath := "/api/svc/product-proof?brand_id=br_alpha&product_id=wh5&window_views=30"
	search := map[string]any{"query": "headphones", "results": []any{map[string]any{"url": "https://www.alpha.example/p/wh1000xm5-black"}}}
	product := map[string]any{"context": map[string]any{"url": "https://www.alpha.example/p/wh1000xm5-black"}}
	for _, c := range []struct {
		method, path string
		body         any
	}{
		{"GET", proofPath, nil},
		{"POST", searchPath, search},
		{"POST", productPath, product},
		{"POST", productPath + "?x=1", product}, // a query is covered on a POST too
	} {
		r := f.do(c.method, c.path, c.body, "Accept-Signature", signing.AcceptSignature)
		if r.status != 200 {
			t.Fatalf("%s %s: %d %s", c.method, c.path, r.status, r.body)
		}
		a := answer(t, r, c.method, f.srv.URL, c.path)
		v, err := signing.Verify(a, lookup(keys))
		if err != nil {
			t.Fatalf("%s %s: %v\nSignature-Input: %s", c.method, c.path, err, r.header.Get("Signature-Input"))
		}
		if !v.Params.Created.Equal(t0) || v.Params.Alg != "ed25519" || keys[v.Params.KeyID] == nil {
			t.Errorf("%s %s: params %+v", c.method, c.path, v.Params)
		}

		// Any change to what was signed fails, and says why.
		changes := map[string]struct {
			change func(*signing.Answer)
			want   error
		}{
			"a byte of the body": {func(a *signing.Answer) { a.Body[len(a.Body)/2]++ }, httpsig.ErrDigest},
			"the status":         {func(a *signing.Answer) { a.Status = 203 }, httpsig.ErrBadSig},
			"the URL":            {func(a *signing.Answer) { a.TargetURI.Host = "evil.example" }, httpsig.ErrBadSig},
			"the query":          {func(a *signing.Answer) { a.TargetURI.RawQuery += "&y=2" }, httpsig.ErrBadSig},
			"the method":         {func(a *signing.Answer) { a.Method = "PUT" }, httpsig.ErrBadSig},
			"the type":           {func(a *signing.Answer) { a.Header.Set("Content-Type", "text/html") }, httpsig.ErrBadSig},
			"the digest with the body": {func(a *signing.Answer) {
				a.Body = []byte(`{"views":1000}`)
				a.Header.Set("Content-Digest", httpsig.Digest(a.Body))
			}, httpsig.ErrBadSig},
			"no signature": {func(a *signing.Answer) { a.Header.Del("Signature") }, httpsig.ErrNoSignature},
		}
		for name, ch := range changes {
			a := answer(t, r, c.method, f.srv.URL, c.path)
			ch.change(a)
			if _, err := signing.Verify(a, lookup(keys)); !errors.Is(err, ch.want) {
				t.Errorf("%s %s with %s changed: err = %v, want %v", c.method, c.path, name, err, ch.want)
			}
		}
	}

	// The recent purchases feed is signed the same way.
	f.bought("br_alpha", "o-feed", time.Minute, "DE", "", "wh5")
	feedPath := recentPath + "?brand_id=br_alpha"
	if r := f.do("GET", feedPath, nil, "Accept-Signature", signing.AcceptSignature); r.status != 200 {
		t.Errorf("recent-activity: %d %s", r.status, r.body)
	} else if _, err := signing.Verify(answer(t, r, "GET", f.srv.URL, feedPath), lookup(keys)); err != nil {
		t.Errorf("recent-activity: %v", err)
	}

	// A web page may read the fields it needs to check an answer.
	r := f.do("GET", proofPath, nil, "Origin", "https://www.alpha.example", "Accept-Signature", signing.AcceptSignature)
	if r.status != 200 {
		t.Fatalf("a proof from the brand's page: %d %s", r.status, r.body)
	}
	if exposed := r.header.Get("Access-Control-Expose-Headers"); !strings.Contains(exposed, "Signature-Input") ||
		!strings.Contains(exposed, "Content-Digest") || !strings.Contains(exposed, "Signature") {
		t.Errorf("Access-Control-Expose-Headers %q", exposed)
	}

	// Errors carry no count and are not signed.
	r = f.do("GET", "/api/svc/product-proof?brand_id=br_alpha&product_id=nope", nil, "Accept-Signature", signing.AcceptSignature)
	if r.status != 404 || r.header.Get("Signature") != "" || r.header.Get("Content-Digest") != "" {
		t.Errorf("a 404 is signed: %d %v", r.status, r.header)
	}
	// Other routes are not signed.
	if r := f.do("GET", "/healthz", nil); r.header.Get("Signature") != "" {
		t.Errorf("/healthz is signed")
	}
}

// TestProofSignedOnRequest: the widget's reads are signed only when the
// request asks (Accept-Signature, RFC 9421 section 5), and say that they
// vary with it; the enrichments are signed unasked.
func TestProofSignedOnRequest(t *testing.T) {
	t.Parallel()
	f := enrichFixture(t)
	f.bought("br_alpha", "o-feed", time.Minute, "DE", "", "wh5")
	keys := f.published()
	for _, path := range []string{"/api/svc/product-proof?brand_id=br_alpha&product_id=wh5", recentPath + "?brand_id=br_alpha"} {
		plain := f.do("GET", path, nil, "Origin", "https://www.alpha.example")
		if plain.status != 200 {
			t.Fatalf("%s: %d %s", path, plain.status, plain.body)
		}
		for _, k := range []string{"Signature", "Signature-Input", "Content-Digest"} {
			if v := plain.header.Get(k); v != "" {
				t.Errorf("%s unasked: %s: %s", path, k, v)
			}
		}
		asked := f.do("GET", path, nil, "Origin", "https://www.alpha.example", "Accept-Signature", `sig1=("@status");keyid="any"`)
		if _, err := signing.Verify(answer(t, asked, "GET", f.srv.URL, path), lookup(keys)); err != nil {
			t.Errorf("%s asked with another label and components: %v", path, err)
		}
		if string(asked.body) != string(plain.body) {
			t.Errorf("%s: the signed body differs:\n%s\n%s", path, asked.body, plain.body)
		}
		for _, r := range []response{plain, asked} {
			if vary := strings.Join(r.header.Values("Vary"), ", "); !strings.Contains(vary, "Accept-Signature") || !strings.Contains(vary, "Origin") {
				t.Errorf("%s: Vary %q, want Origin and Accept-Signature", path, vary)
			}
		}
	}
	r := f.do("POST", productPath, map[string]any{"context": map[string]any{"url": "https://www.alpha.example/p/wh1000xm5-black"}})
	if _, err := signing.Verify(answer(t, r, "POST", f.srv.URL, productPath), lookup(keys)); err != nil {
		t.Errorf("product-enrich unasked: %v", err)
	}

	// A page may ask: the preflight allows the field.
	pre := f.do("OPTIONS", "/api/svc/product-proof?brand_id=br_alpha&product_id=wh5", nil, "Origin", "https://www.alpha.example",
		"Access-Control-Request-Method", "GET", "Access-Control-Request-Headers", "accept-signature")
	if allowed := strings.ToLower(pre.header.Get("Access-Control-Allow-Headers")); !strings.Contains(allowed, "accept-signature") {
		t.Errorf("preflight: %d, Access-Control-Allow-Headers %q", pre.status, allowed)
	}
}

func TestSignedUnderPublicURL(t *testing.T) {
	t.Parallel()
	f := newFixture(t, httpapi.Options{PublicURL: "https://proof.example/"})
	f.do("POST", "/api/collect/product-view", view("br_open", "p1", nil), "X-svc-Api-Key", f.keys["br_open"])
	path := "/api/svc/product-proof?brand_id=br_open&product_id=p1"
	r := f.proof("br_open", "p1", "", "Accept-Signature", signing.AcceptSignature)
	if r.status != 200 {
		t.Fatalf("proof: %d %s", r.status, r.body)
	}
	keys := f.published()
	if _, err := signing.Verify(answer(t, r, "GET", "https://proof.example", path), lookup(keys)); err != nil {
		t.Errorf("under the public URL: %v", err)
	}
	if _, err := signing.Verify(answer(t, r, "GET", f.srv.URL, path), lookup(keys)); !errors.Is(err, httpsig.ErrBadSig) {
		t.Errorf("under the listener's own URL: err = %v, want ErrBadSig", err)
	}
}

// TestRotationKeepsOldAnswersVerifiable rotates the key beside a running
// server: within a second it signs with the new key, and answers signed
// before verify against the published set until the old key expires.
func TestRotationKeepsOldAnswersVerifiable(t *testing.T) {
	// Not parallel: it asserts that the new key signs within a second.
	f := newFixture(t)
	f.do("POST", "/api/collect/product-view", view("br_open", "p1", nil), "X-svc-Api-Key", f.keys["br_open"])
	path := "/api/svc/product-proof?brand_id=br_open&product_id=p1"
	before := answer(t, f.proof("br_open", "p1", "", "Accept-Signature", signing.AcceptSignature), "GET", f.srv.URL, path)
	old := f.keyring.Current()

	next, err := svc.NewSigningKey(f.clock.Now())
	if err != nil {
		t.Fatal(err)
	}
	if err := f.store.RotateSigningKey(context.Background(), next, f.clock.Now().Add(svc.DefaultSigningGrace)); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var after *signing.Answer
	testwait.Eventually(t, func() error {
		after = answer(t, f.proof("br_open", "p1", "", "Accept-Signature", signing.AcceptSignature), "GET", f.srv.URL, path)
		v, err := signing.Verify(after, lookup(f.published()))
		if err != nil {
			return err
		}
		if v.Params.KeyID != next.ID {
			return errors.New("still signed by the old key")
		}
		return nil
	})
	if took := time.Since(start); took > time.Second {
		t.Errorf("the new key signed after %v, want within 1 s", took)
	}

	keys := f.published()
	if len(keys) != 2 || keys[old.ID] == nil || keys[next.ID] == nil {
		t.Fatalf("published during the grace: %v", keys)
	}
	if _, err := signing.Verify(before, lookup(keys)); err != nil {
		t.Errorf("an answer of the old key, during the grace: %v", err)
	}

	// After the grace the old key is gone; the new one's answers still verify.
	f.clock.Set(f.clock.Now().Add(svc.DefaultSigningGrace + time.Second))
	testwait.Eventually(t, func() error {
		if keys = f.published(); len(keys) != 1 {
			return errors.New("the old key is still published")
		}
		return nil
	})
	if _, err := signing.Verify(before, lookup(keys)); !errors.Is(err, httpsig.ErrUnknownKey) {
		t.Errorf("an answer of the old key, after the grace: err = %v, want ErrUnknownKey", err)
	}
	if _, err := signing.Verify(after, lookup(keys)); err != nil {
		t.Errorf("an answer of the new key: %v", err)
	}
}

// TestJWKSetValidates checks the published set as RFC 7517 and RFC 8037
// describe it, independently of the parser the clients use.
func TestJWKSetValidates(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	r := f.do("GET", "/.well-known/svc-keys.json", nil, "Origin", "https://anyone.example")
	if r.header.Get("Access-Control-Allow-Origin") == "" {
		t.Errorf("the key set is not readable from other origins")
	}
	set := decode[map[string]any](t, r)
	keys, ok := set["keys"].([]any)
	if !ok || len(keys) != 1 {
		t.Fatalf("JWK Set %s", r.body)
	}
	k := keys[0].(map[string]any)
	for member, want := range map[string]string{"kty": "OKP", "crv": "Ed25519", "use": "sig", "alg": "EdDSA"} {
		if k[member] != want {
			t.Errorf("%s = %v, want %s", member, k[member], want)
		}
	}
	if _, ok := k["d"]; ok {
		t.Error("the set publishes a private key")
	}
	x, _ := k["x"].(string)
	pub := f.keyring.Current().Public()
	if x != base64.RawURLEncoding.EncodeToString(pub) {
		t.Errorf("x = %s, want the current key's %s", x, base64.RawURLEncoding.EncodeToString(pub))
	}
	thumb := sha256.Sum256([]byte(`{"crv":"Ed25519","kty":"OKP","x":"` + x + `"}`))
	if k["kid"] != base64.RawURLEncoding.EncodeToString(thumb[:]) {
		t.Errorf("kid = %v, want the RFC 7638 thumbprint", k["kid"])
	}
	if len(k) != 6 {
		t.Errorf("members %v, want kty crv x kid use alg", k)
	}
}

// TestSignedAnswerBoundToTheRequestBody: a POST that sends its body's
// Content-Digest gets an answer that covers it, so the answer cannot be
// shown as the answer to another body sent to the same URL.
func TestSignedAnswerBoundToTheRequestBody(t *testing.T) {
	t.Parallel()
	f := enrichFixture(t)
	keys := f.published()
	alpha := `{"context":{"url":"https://www.alpha.example/p/wh1000xm5-black"}}`
	beta := `{"context":{"url":"https://beta.example/item/77"}}`
	reqHeader := func(body string) http.Header {
		return http.Header{"Content-Digest": {httpsig.Digest([]byte(body))}}
	}

	r := f.do("POST", productPath, alpha, "Content-Digest", httpsig.Digest([]byte(alpha)))
	if r.status != 200 || !strings.Contains(r.header.Get("Signature-Input"), `"content-digest";req`) {
		t.Fatalf("%d, Signature-Input %q", r.status, r.header.Get("Signature-Input"))
	}
	a := answer(t, r, "POST", f.srv.URL, productPath)
	a.RequestHeader = reqHeader(alpha)
	if _, err := signing.Verify(a, lookup(keys)); err != nil {
		t.Errorf("for its own body: %v", err)
	}
	a = answer(t, r, "POST", f.srv.URL, productPath)
	a.RequestHeader = reqHeader(beta)
	if _, err := signing.Verify(a, lookup(keys)); !errors.Is(err, httpsig.ErrBadSig) {
		t.Errorf("passed off as another body's answer: err = %v, want ErrBadSig", err)
	}

	// Without the field the answer is not bound, and a client that sent
	// one refuses it.
	r = f.do("POST", productPath, alpha)
	a = answer(t, r, "POST", f.srv.URL, productPath)
	if _, err := signing.Verify(a, lookup(keys)); err != nil {
		t.Errorf("an unbound answer: %v", err)
	}
	a.RequestHeader = reqHeader(alpha)
	if _, err := signing.Verify(a, lookup(keys)); err == nil || !strings.Contains(err.Error(), "request's body") {
		t.Errorf("an unbound answer to a client that sent a digest: err = %v", err)
	}

	// A digest that is not the body's is not vouched for.
	r = f.do("POST", productPath, alpha, "Content-Digest", httpsig.Digest([]byte(beta)))
	if r.status != 200 || strings.Contains(r.header.Get("Signature-Input"), `"content-digest";req`) {
		t.Errorf("a wrong request digest: %d, Signature-Input %q", r.status, r.header.Get("Signature-Input"))
	}
}
