// Package httpsig signs and verifies HTTP messages as RFC 9421 (HTTP
// Message Signatures) says, with Ed25519, and computes RFC 9530
// Content-Digest. It builds the signature base itself: no maintained Go
// module for RFC 9421 is served by the module proxy, and the part svc needs
// is small. Structured fields are read and written with httpsfv.
package httpsig

import (
	"crypto/ed25519"
	"crypto/sha256"
	"crypto/sha512"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dunglas/httpsfv"
)

// Alg is the only algorithm this package signs and verifies with.
const Alg = "ed25519"

// Component is one covered component: a header field (lower case) or a
// derived component ("@method"); Req takes it from the request a response
// answers (RFC 9421, section 2.4).
type Component struct {
	Name string
	Req  bool
}

// String is the component identifier as the signature base writes it:
// "@method";req. It is written by hand: httpsfv's Marshal cost most of the
// allocations of a signature, and the serialization of a string with one
// boolean parameter is fixed (RFC 8941, 4.1.6 and 4.1.1.2).
func (c Component) String() string { return string(c.append(nil)) }

func (c Component) append(b []byte) []byte {
	b = appendQuoted(b, c.Name)
	if c.Req {
		b = append(b, ";req"...)
	}
	return b
}

// appendQuoted appends s serialized as a structured-field string:
// printable ASCII, with \ and " escaped. Other bytes, which no field name
// or keyid holds, are dropped rather than break the field.
func appendQuoted(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c >= 0x20 && c <= 0x7e:
			b = append(b, c)
		}
	}
	return append(b, '"')
}

// Message is what a signature covers: a request or a response and, for a
// response, the request it answers.
type Message struct {
	Method    string   // of a request
	TargetURI *url.URL // of a request: absolute, as the client sent it
	Status    int      // of a response; 0 for a request
	Header    http.Header
	Request   *Message // the request a response answers, for ;req components
}

// Params are the signature parameters svc reads and writes.
type Params struct {
	Components []Component
	Created    time.Time // whole seconds
	KeyID      string
	Alg        string // "" leaves it out
}

// Base is the signature base of m for the parameters given as their
// serialized inner list (RFC 9421, section 2.5).
func Base(m *Message, components []Component, params string) ([]byte, error) {
	b, err := appendBase(nil, m, components, nil)
	if err != nil {
		return nil, err
	}
	return append(b, params...), nil
}

// appendBase appends the lines of the base before the signature
// parameters' value, "@signature-params": included. fields are the
// components' field names in canonical form, or nil.
func appendBase(b []byte, m *Message, components []Component, fields []string) ([]byte, error) {
	for i, c := range components {
		for _, prev := range components[:i] {
			if prev == c {
				return nil, fmt.Errorf("component %s is covered twice", c)
			}
		}
		b = c.append(b)
		b = append(b, ": "...)
		field := ""
		if fields != nil {
			field = fields[i]
		}
		var err error
		if b, err = appendValue(b, m, c, field); err != nil {
			return nil, err
		}
		b = append(b, '\n')
	}
	return append(b, `"@signature-params": `...), nil
}

// appendValue appends a component's value in m (RFC 9421, sections 2.1
// and 2.2). field is the component's field name in canonical form, or ""
// to work it out.
func appendValue(b []byte, m *Message, c Component, field string) ([]byte, error) {
	if c.Req {
		if m.Request == nil {
			return nil, fmt.Errorf("component %s: the message is not a response", c)
		}
		m = m.Request
	}
	if !strings.HasPrefix(c.Name, "@") {
		if field == "" {
			field = http.CanonicalHeaderKey(c.Name)
		}
		vs, ok := m.Header[field]
		if !ok {
			return nil, fmt.Errorf("component %s: the message has no %s field", c, c.Name)
		}
		for i, v := range vs {
			if i > 0 {
				b = append(b, ", "...)
			}
			b = append(b, strings.TrimSpace(v)...)
		}
		return b, nil
	}
	if c.Name == "@status" {
		if m.Status == 0 {
			return nil, fmt.Errorf("component %s: the message is not a response", c)
		}
		return strconv.AppendInt(b, int64(m.Status), 10), nil
	}
	if m.TargetURI == nil || m.Method == "" {
		return nil, fmt.Errorf("component %s: the message is not a request", c)
	}
	u := m.TargetURI
	switch c.Name {
	case "@method":
		return append(b, m.Method...), nil
	case "@target-uri":
		return append(b, u.String()...), nil
	case "@authority":
		return append(b, strings.ToLower(u.Host)...), nil
	case "@scheme":
		return append(b, strings.ToLower(u.Scheme)...), nil
	case "@request-target":
		return append(b, u.RequestURI()...), nil
	case "@path":
		if p := u.EscapedPath(); p != "" {
			return append(b, p...), nil
		}
		return append(b, '/'), nil
	case "@query":
		b = append(b, '?')
		return append(b, u.RawQuery...), nil
	}
	return nil, fmt.Errorf("component %s is not supported", c)
}

// Sign signs m with key under label (a structured-field key: lower case)
// and returns the values of the Signature-Input and Signature fields.
func Sign(m *Message, label string, p *Params, key ed25519.PrivateKey) (input, signature string, err error) {
	return SignFunc(m, label, p, func(base []byte) []byte { return ed25519.Sign(key, base) })
}

// SignFunc is Sign with the Ed25519 signature of the base made by sign,
// with the key p.KeyID names.
func SignFunc(m *Message, label string, p *Params, sign func(base []byte) []byte) (input, signature string, err error) {
	var created int64
	if !p.Created.IsZero() {
		created = p.Created.Unix()
	}
	return NewSigner(label, p.Components, p.KeyID, p.Alg).sign(nil, m, created, !p.Created.IsZero(), sign)
}

// A Signer signs messages under one label, covering the same components
// with one key: the parts of the signature parameters that do not change
// between messages are serialized once. It is safe for concurrent use.
type Signer struct {
	label  string
	head   []byte // the inner list of components
	tail   []byte // ;keyid and ;alg
	comps  []Component
	fields []string  // of comps, in canonical form ("" for derived ones)
	bufs   sync.Pool // *[]byte, a base and the fields' values
}

// NewSigner returns a Signer; alg "" leaves the parameter out.
func NewSigner(label string, components []Component, keyID, alg string) *Signer {
	s := &Signer{label: label, comps: slices.Clone(components), fields: make([]string, len(components))}
	for i, c := range components {
		if !strings.HasPrefix(c.Name, "@") {
			s.fields[i] = http.CanonicalHeaderKey(c.Name)
		}
	}
	s.head = append(s.head, '(')
	for i, c := range components {
		if i > 0 {
			s.head = append(s.head, ' ')
		}
		s.head = c.append(s.head)
	}
	s.head = append(s.head, ')')
	if keyID != "" {
		s.tail = append(s.tail, ";keyid="...)
		s.tail = appendQuoted(s.tail, keyID)
	}
	if alg != "" {
		s.tail = append(s.tail, ";alg="...)
		s.tail = appendQuoted(s.tail, alg)
	}
	return s
}

// Sign signs m at created (Unix seconds) and returns the values of the
// Signature-Input and Signature fields. sign makes the Ed25519 signature
// of the base; the base is valid only during the call.
func (s *Signer) Sign(m *Message, created int64, sign func(base []byte) []byte) (input, signature string, err error) {
	bp, _ := s.bufs.Get().(*[]byte)
	if bp == nil {
		bp = new([]byte)
	}
	defer s.bufs.Put(bp)
	return s.sign(bp, m, created, true, sign)
}

func (s *Signer) sign(bp *[]byte, m *Message, created int64, withCreated bool, sign func(base []byte) []byte) (input, signature string, err error) {
	var b []byte
	if bp != nil {
		b = (*bp)[:0]
	}
	b, err = appendBase(b, m, s.comps, s.fields)
	if err != nil {
		return "", "", err
	}
	start := len(b)
	b = append(b, s.head...)
	if withCreated {
		b = append(b, ";created="...)
		b = strconv.AppendInt(b, created, 10)
	}
	b = append(b, s.tail...)
	params := len(b) - start
	sig := sign(b)
	// Both values in one string: label=params, then label=:signature:.
	b = append(b, s.label...)
	b = append(b, '=')
	b = append(b, b[start:start+params]...)
	mid := len(b)
	b = append(b, s.label...)
	b = append(b, "=:"...)
	b = base64.StdEncoding.AppendEncode(b, sig)
	b = append(b, ':')
	out := string(b[start+params:])
	if bp != nil {
		*bp = b
	}
	return out[:mid-start-params], out[mid-start-params:], nil
}

// Errors of Verify, so that a caller can say why an answer fails.
var (
	ErrNoSignature = errors.New("no signature")
	ErrUnknownKey  = errors.New("the key is not published")
	ErrBadSig      = errors.New("the signature does not match the message")
)

// Verified is a signature that checked out.
type Verified struct {
	Label  string
	Params Params
}

// Covers reports whether the signature covers c.
func (v *Verified) Covers(c Component) bool {
	for _, have := range v.Params.Components {
		if have == c {
			return true
		}
	}
	return false
}

// Verify checks the signature of m labelled label ("" for the only one),
// with the key that keyFor returns for its keyid (nil: ErrUnknownKey). It
// checks the cryptography only: which components must be covered, and how
// old a signature may be, are the caller's rules.
func Verify(m *Message, label string, keyFor func(keyID string) ed25519.PublicKey) (*Verified, error) {
	inputs, err := dictionary(m.Header, "Signature-Input")
	if err != nil {
		return nil, err
	}
	sigs, err := dictionary(m.Header, "Signature")
	if err != nil {
		return nil, err
	}
	if label == "" {
		names := inputs.Names()
		if len(names) != 1 {
			return nil, fmt.Errorf("%w: Signature-Input has %d signatures; name one", ErrNoSignature, len(names))
		}
		label = names[0]
	}
	member, ok := inputs.Get(label)
	il, isList := member.(httpsfv.InnerList)
	if !ok || !isList {
		return nil, fmt.Errorf("%w: Signature-Input has no inner list %q", ErrNoSignature, label)
	}
	member, ok = sigs.Get(label)
	sigItem, isItem := member.(httpsfv.Item)
	sig, isBytes := sigItem.Value.([]byte)
	if !ok || !isItem || !isBytes {
		return nil, fmt.Errorf("%w: Signature has no byte sequence %q", ErrNoSignature, label)
	}
	p, err := parseParams(il)
	if err != nil {
		return nil, err
	}
	if p.Alg != "" && p.Alg != Alg {
		return nil, fmt.Errorf("alg %q is not %s", p.Alg, Alg)
	}
	key := keyFor(p.KeyID)
	if key == nil {
		return nil, fmt.Errorf("%w: keyid %q", ErrUnknownKey, p.KeyID)
	}
	params, err := httpsfv.Marshal(httpsfv.List{il})
	if err != nil {
		return nil, err
	}
	base, err := Base(m, p.Components, params)
	if err != nil {
		return nil, err
	}
	if !ed25519.Verify(key, base, sig) {
		return nil, ErrBadSig
	}
	return &Verified{Label: label, Params: *p}, nil
}

func dictionary(h http.Header, name string) (*httpsfv.Dictionary, error) {
	vs := h.Values(name)
	if len(vs) == 0 {
		return nil, fmt.Errorf("%w: no %s field", ErrNoSignature, name)
	}
	d, err := httpsfv.UnmarshalDictionary(vs)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return d, nil
}

func parseParams(il httpsfv.InnerList) (*Params, error) {
	var p Params
	for _, it := range il.Items {
		name, ok := it.Value.(string)
		if !ok {
			return nil, fmt.Errorf("a covered component is not a string")
		}
		c := Component{Name: name}
		for _, k := range it.Params.Names() {
			v, _ := it.Params.Get(k)
			if k != "req" || v != true {
				return nil, fmt.Errorf("component %q: parameter %q is not supported", name, k)
			}
			c.Req = true
		}
		p.Components = append(p.Components, c)
	}
	if v, ok := il.Params.Get("created"); ok {
		n, isInt := v.(int64)
		if !isInt {
			return nil, errors.New("created is not an integer")
		}
		p.Created = time.Unix(n, 0).UTC()
	}
	for k, dst := range map[string]*string{"keyid": &p.KeyID, "alg": &p.Alg} {
		if v, ok := il.Params.Get(k); ok {
			s, isString := v.(string)
			if !isString {
				return nil, fmt.Errorf("%s is not a string", k)
			}
			*dst = s
		}
	}
	return &p, nil
}

// Digest is the Content-Digest field value of body: its SHA-256 (RFC 9530).
// It is written by hand, as httpsfv would serialize a dictionary of one
// byte sequence: every answer signed carries one.
func Digest(body []byte) string {
	sum := sha256.Sum256(body)
	var buf [64]byte // "sha-256=:" and 44 characters of base64 and ":", on the stack
	b := append(buf[:0], "sha-256=:"...)
	b = base64.StdEncoding.AppendEncode(b, sum[:])
	return string(append(b, ':'))
}

// ErrDigest is returned by CheckDigest when the body is not the one the
// field describes.
var ErrDigest = errors.New("the Content-Digest does not match the body")

// CheckDigest checks body against a Content-Digest field's values. It
// needs a sha-256 or sha-512 member, and every one of those must match.
func CheckDigest(values []string, body []byte) error {
	if len(values) == 0 {
		return fmt.Errorf("%w: no Content-Digest field", ErrDigest)
	}
	d, err := httpsfv.UnmarshalDictionary(values)
	if err != nil {
		return fmt.Errorf("the Content-Digest field: %w", err)
	}
	checked := 0
	for _, alg := range d.Names() {
		var sum []byte
		switch alg {
		case "sha-256":
			s := sha256.Sum256(body)
			sum = s[:]
		case "sha-512":
			s := sha512.Sum512(body)
			sum = s[:]
		default:
			continue
		}
		m, _ := d.Get(alg)
		it, isItem := m.(httpsfv.Item)
		want, isBytes := it.Value.([]byte)
		if !isItem || !isBytes || subtle.ConstantTimeCompare(want, sum) != 1 {
			return fmt.Errorf("%w (%s)", ErrDigest, alg)
		}
		checked++
	}
	if checked == 0 {
		return fmt.Errorf("%w: no sha-256 or sha-512 member", ErrDigest)
	}
	return nil
}
