package httpsig_test

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"os"
	"testing"
	"time"

	"github.com/svc-project/svc/internal/httpsig"
)

// vector is RFC 9421's B.2.6 example, kept as JSON so that the extension's
// verifier is tested against the same bytes.
type vector struct {
	PrivatePKCS8 string      `json:"private_pkcs8"`
	PublicSPKI   string      `json:"public_spki"`
	Method       string      `json:"method"`
	TargetURI    string      `json:"target_uri"`
	Headers      [][2]string `json:"headers"`
	Body         string      `json:"body"`
	Components   []string    `json:"components"`
	Created      int64       `json:"created"`
	KeyID        string      `json:"keyid"`
	Label        string      `json:"label"`
	Base         string      `json:"signature_base"`
	Input        string      `json:"signature_input"`
	Signature    string      `json:"signature"`
	Digest256    string      `json:"content_digest_sha256"`
	PublicJWK    struct {
		X string `json:"x"`
	} `json:"public_jwk"`
	private       ed25519.PrivateKey
	public        ed25519.PublicKey
	message       *httpsig.Message
	componentList []httpsig.Component
}

func loadVector(t *testing.T) *vector {
	t.Helper()
	b, err := os.ReadFile("testdata/rfc9421-b26.json")
	if err != nil {
		t.Fatal(err)
	}
	var v vector
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	der, _ := base64.StdEncoding.DecodeString(v.PrivatePKCS8)
	priv, err := x509.ParsePKCS8PrivateKey(der)
	if err != nil {
		t.Fatal(err)
	}
	v.private = priv.(ed25519.PrivateKey)
	der, _ = base64.StdEncoding.DecodeString(v.PublicSPKI)
	pub, err := x509.ParsePKIXPublicKey(der)
	if err != nil {
		t.Fatal(err)
	}
	v.public = pub.(ed25519.PublicKey)
	u, err := url.Parse(v.TargetURI)
	if err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	for _, kv := range v.Headers {
		h.Add(kv[0], kv[1])
	}
	v.message = &httpsig.Message{Method: v.Method, TargetURI: u, Header: h}
	for _, c := range v.Components {
		v.componentList = append(v.componentList, httpsig.Component{Name: c})
	}
	return &v
}

func TestRFC9421VectorB26(t *testing.T) {
	v := loadVector(t)
	if !v.private.Public().(ed25519.PublicKey).Equal(v.public) {
		t.Fatal("the private key of B.1.4 does not give its public key")
	}
	if got := base64.RawURLEncoding.EncodeToString(v.public); got != v.PublicJWK.X {
		t.Errorf("JWK x = %s, want %s", got, v.PublicJWK.X)
	}
	p := &httpsig.Params{Components: v.componentList, Created: time.Unix(v.Created, 0), KeyID: v.KeyID}
	input, sig, err := httpsig.Sign(v.message, v.Label, p, v.private)
	if err != nil {
		t.Fatal(err)
	}
	if input != v.Input {
		t.Errorf("Signature-Input:\n got %s\nwant %s", input, v.Input)
	}
	if sig != v.Signature {
		t.Errorf("Signature:\n got %s\nwant %s", sig, v.Signature)
	}
	params := v.Input[len(v.Label)+1:]
	base, err := httpsig.Base(v.message, v.componentList, params)
	if err != nil {
		t.Fatal(err)
	}
	if string(base) != v.Base {
		t.Errorf("signature base:\n got %q\nwant %q", base, v.Base)
	}

	// The RFC's own fields verify with the public key.
	v.message.Header.Set("Signature-Input", v.Input)
	v.message.Header.Set("Signature", v.Signature)
	keys := func(id string) ed25519.PublicKey {
		if id == v.KeyID {
			return v.public
		}
		return nil
	}
	got, err := httpsig.Verify(v.message, "", keys)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	if got.Label != v.Label || got.Params.KeyID != v.KeyID || got.Params.Created.Unix() != v.Created {
		t.Errorf("Verify = %+v", got)
	}
	// One changed byte of a covered field fails.
	v.message.Header.Set("Content-Length", "19")
	if _, err := httpsig.Verify(v.message, "", keys); !errors.Is(err, httpsig.ErrBadSig) {
		t.Errorf("changed content-length: err = %v, want ErrBadSig", err)
	}
}

func TestDigest(t *testing.T) {
	v := loadVector(t)
	if got := httpsig.Digest([]byte(v.Body)); got != v.Digest256 {
		t.Errorf("Digest = %s, want %s", got, v.Digest256)
	}
	for _, d := range []string{v.Digest256, v.message.Header.Get("Content-Digest"), v.Digest256 + ", sha-512=:" + v.message.Header.Get("Content-Digest")[9:]} {
		if err := httpsig.CheckDigest([]string{d}, []byte(v.Body)); err != nil {
			t.Errorf("CheckDigest(%s): %v", d, err)
		}
	}
	bad := map[string][]string{
		"changed body": {v.Digest256},
		"none":         nil,
		"unknown alg":  {"md5=:AAAA:"},
		"not a dict":   {"sha-256"},
	}
	for name, values := range bad {
		body := []byte(v.Body)
		if name == "changed body" {
			body[3]++
		}
		if err := httpsig.CheckDigest(values, body); err == nil {
			t.Errorf("%s: CheckDigest succeeded", name)
		}
	}
}

// TestResponse signs an answer the way svc does: its status and fields
// with the request's method, target URI and query.
func TestResponse(t *testing.T) {
	pub, priv, err := ed25519.GenerateKey(nil)
	if err != nil {
		t.Fatal(err)
	}
	keys := func(string) ed25519.PublicKey { return pub }
	u, _ := url.Parse("https://proof.example/api/svc/product-proof?brand_id=br_1&product_id=p1")
	body := []byte(`{"views":12}`)
	newMessage := func() *httpsig.Message {
		return &httpsig.Message{Status: 200, Header: http.Header{"Content-Type": {"application/json"}, "Content-Digest": {httpsig.Digest(body)}},
			Request: &httpsig.Message{Method: "GET", TargetURI: u}}
	}
	m := newMessage()
	p := &httpsig.Params{Components: []httpsig.Component{{Name: "@status"}, {Name: "content-digest"}, {Name: "content-type"},
		{Name: "@method", Req: true}, {Name: "@target-uri", Req: true}, {Name: "@query", Req: true}},
		Created: time.Unix(1764000000, 0), KeyID: "k1", Alg: httpsig.Alg}
	input, sig, err := httpsig.Sign(m, "svc", p, priv)
	if err != nil {
		t.Fatal(err)
	}
	want := `svc=("@status" "content-digest" "content-type" "@method";req "@target-uri";req "@query";req);created=1764000000;keyid="k1";alg="ed25519"`
	if input != want {
		t.Errorf("Signature-Input = %s, want %s", input, want)
	}
	sign := func(m *httpsig.Message) *httpsig.Message {
		m.Header.Set("Signature-Input", input)
		m.Header.Set("Signature", sig)
		return m
	}
	if v, err := httpsig.Verify(sign(newMessage()), "svc", keys); err != nil || !v.Covers(httpsig.Component{Name: "@query", Req: true}) {
		t.Fatalf("Verify = %+v, %v", v, err)
	}
	for name, change := range map[string]func(*httpsig.Message){
		"status":    func(m *httpsig.Message) { m.Status = 201 },
		"digest":    func(m *httpsig.Message) { m.Header.Set("Content-Digest", httpsig.Digest([]byte(`{"views":13}`))) },
		"type":      func(m *httpsig.Message) { m.Header.Set("Content-Type", "text/plain") },
		"method":    func(m *httpsig.Message) { m.Request.Method = "POST" },
		"host":      func(m *httpsig.Message) { m.Request.TargetURI = mustParse("https://evil.example" + u.RequestURI()) },
		"query":     func(m *httpsig.Message) { m.Request.TargetURI = mustParse(u.String() + "&x=1") },
		"no digest": func(m *httpsig.Message) { m.Header.Del("Content-Digest") },
	} {
		m := sign(newMessage())
		change(m)
		if _, err := httpsig.Verify(m, "svc", keys); err == nil {
			t.Errorf("changed %s: verified", name)
		}
	}
	m = sign(newMessage())
	if _, err := httpsig.Verify(m, "svc", func(string) ed25519.PublicKey { return nil }); !errors.Is(err, httpsig.ErrUnknownKey) {
		t.Errorf("unknown key: err = %v", err)
	}
	m.Header.Del("Signature")
	if _, err := httpsig.Verify(m, "svc", keys); !errors.Is(err, httpsig.ErrNoSignature) {
		t.Errorf("no signature: err = %v", err)
	}
}

func mustParse(s string) *url.URL {
	u, err := url.Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

// TestSerializationRoundTrips: what Sign writes by hand is what the
// structured-field parser reads, escapes included.
func TestSerializationRoundTrips(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(nil)
	u, _ := url.Parse("https://a.example/x?y=1")
	m := &httpsig.Message{Method: "GET", TargetURI: u, Header: http.Header{"X-A": {" one ", "two"}}}
	for _, id := range []string{"plain", `with "quotes" and \ backslash`, "k-_.~=+/09AZaz"} {
		p := &httpsig.Params{Components: []httpsig.Component{{Name: "x-a"}, {Name: "@target-uri"}}, Created: time.Unix(1, 0), KeyID: id, Alg: httpsig.Alg}
		in, sig, err := httpsig.Sign(m, "sig1", p, priv)
		if err != nil {
			t.Fatal(err)
		}
		m.Header.Set("Signature-Input", in)
		m.Header.Set("Signature", sig)
		v, err := httpsig.Verify(m, "sig1", func(got string) ed25519.PublicKey {
			if got != id {
				t.Errorf("keyid %q read as %q (%s)", id, got, in)
			}
			return pub
		})
		if err != nil || v.Params.KeyID != id {
			t.Errorf("keyid %q: %v", id, err)
		}
		m.Header.Del("Signature-Input")
		m.Header.Del("Signature")
	}
}

func TestDigestAllocatesOnce(t *testing.T) {
	body := []byte(`{"views":1}`)
	if got := httpsig.Digest(body); got != "sha-256=:"+base64.StdEncoding.EncodeToString(sha256Sum(body))+":" {
		t.Fatalf("Digest = %s", got)
	}
	if n := testing.AllocsPerRun(100, func() { _ = httpsig.Digest(body) }); n > 1 {
		t.Errorf("Digest allocates %v times, want 1", n)
	}
}

func sha256Sum(b []byte) []byte {
	s := sha256.Sum256(b)
	return s[:]
}
