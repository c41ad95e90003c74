package signing

import (
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/svc-project/svc/internal/httpsig"
)

// Label names svc's signature in Signature-Input and Signature.
const Label = "svc"

// Components are what a signed answer covers: its status, body and type,
// and the request's method, URL and query, so that an answer can be passed
// off neither as another one nor as the answer to another request (RFC
// 9421, section 2.4).
var Components = []httpsig.Component{
	{Name: "@status"}, {Name: "content-digest"}, {Name: "content-type"},
	{Name: "@method", Req: true}, {Name: "@target-uri", Req: true}, {Name: "@query", Req: true},
}

// AcceptSignature is the Accept-Signature field (RFC 9421, section 5.1)
// that asks svc for its signature: label and components as svc signs
// them. The answers that are signed only on request (docs/verification.md)
// are signed when a request carries the field, whatever it names.
var AcceptSignature = func() string {
	b := []byte(Label + "=(")
	for i, c := range Components {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, c.String()...)
	}
	return string(append(b, ')'))
}()

// RequestDigest is covered too when the request carried a Content-Digest
// of its body that matched it: the answer is then bound to that body.
var RequestDigest = httpsig.Component{Name: "content-digest", Req: true}

// Answer is a signed answer as a client received it, with the request it
// answers.
type Answer struct {
	Method    string   // of the request
	TargetURI *url.URL // of the request, as the client sent it
	// RequestHeader is the request's fields; when it has a Content-Digest,
	// the signature must cover it.
	RequestHeader http.Header
	Status        int
	Header        http.Header
	Body          []byte
}

// Verify checks that the answer carries svc's signature, made by a key
// keyFor knows, over every one of Components, and that its body is the
// one signed. The error says which check failed.
func Verify(a *Answer, keyFor func(keyID string) ed25519.PublicKey) (*httpsig.Verified, error) {
	m := &httpsig.Message{Status: a.Status, Header: a.Header, Request: &httpsig.Message{Method: a.Method, TargetURI: a.TargetURI, Header: a.RequestHeader}}
	v, err := httpsig.Verify(m, Label, keyFor)
	if err != nil {
		return nil, err
	}
	for _, c := range Components {
		if !v.Covers(c) {
			return nil, fmt.Errorf("the signature does not cover %s", c)
		}
	}
	if a.RequestHeader.Get("Content-Digest") != "" && !v.Covers(RequestDigest) {
		return nil, fmt.Errorf("the signature does not cover the request's body (%s)", RequestDigest)
	}
	if v.Params.Alg != httpsig.Alg {
		return nil, fmt.Errorf("the signature's alg is %q, not %q", v.Params.Alg, httpsig.Alg)
	}
	if v.Params.Created.IsZero() {
		return nil, fmt.Errorf("the signature has no created time")
	}
	if err := httpsig.CheckDigest(a.Header.Values("Content-Digest"), a.Body); err != nil {
		return nil, err
	}
	return v, nil
}

// PublishedKey is a key of a key set, with when it stopped signing (nil
// for the current key).
type PublishedKey struct {
	Public   ed25519.PublicKey
	Replaced *time.Time
}

// VerifyKeys is Verify with the keys of a key set: a signature made after
// its key was replaced (created later than the key's replaced) is refused
// too, whoever made it.
func VerifyKeys(a *Answer, keys map[string]PublishedKey) (*httpsig.Verified, error) {
	v, err := Verify(a, func(id string) ed25519.PublicKey { return keys[id].Public })
	if err != nil {
		return nil, err
	}
	if r := keys[v.Params.KeyID].Replaced; r != nil && v.Params.Created.After(*r) {
		return nil, fmt.Errorf("the signature was made at %s, after its key %s was replaced at %s",
			v.Params.Created.Format(time.RFC3339), v.Params.KeyID, r.Format(time.RFC3339))
	}
	return v, nil
}

// ParseJWKSet reads a JWK Set of Ed25519 keys, by keyid. Every key must be
// a valid RFC 8037 public key; a private member is refused.
func ParseJWKSet(b []byte) (map[string]ed25519.PublicKey, error) {
	keys, err := ParseKeys(b)
	if err != nil {
		return nil, err
	}
	pubs := make(map[string]ed25519.PublicKey, len(keys))
	for id, k := range keys {
		pubs[id] = k.Public
	}
	return pubs, nil
}

// ParseKeys is ParseJWKSet with each key's replaced time, which must be
// an RFC 3339 time when it is there.
func ParseKeys(b []byte) (map[string]PublishedKey, error) {
	var set struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.Unmarshal(b, &set); err != nil {
		return nil, fmt.Errorf("the key set is not JSON: %w", err)
	}
	if set.Keys == nil {
		return nil, fmt.Errorf("the key set has no keys member")
	}
	keys := make(map[string]PublishedKey, len(set.Keys))
	for i, raw := range set.Keys {
		if _, ok := raw["d"]; ok {
			return nil, fmt.Errorf("key %d of the set holds a private key", i)
		}
		str := func(k string) string { s, _ := raw[k].(string); return s }
		j := JWK{Kty: str("kty"), Crv: str("crv"), X: str("x"), Kid: str("kid")}
		pub, err := j.PublicKey()
		if err != nil {
			return nil, err
		}
		if j.Kid == "" {
			return nil, fmt.Errorf("key %d of the set has no kid", i)
		}
		k := PublishedKey{Public: pub}
		if r, ok := raw["replaced"]; ok {
			s, _ := r.(string)
			t, err := time.Parse(time.RFC3339, s)
			if err != nil {
				return nil, fmt.Errorf("key %q: replaced is not an RFC 3339 time", j.Kid)
			}
			k.Replaced = &t
		}
		keys[j.Kid] = k
	}
	return keys, nil
}
