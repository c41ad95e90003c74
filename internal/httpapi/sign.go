package httpapi

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"github.com/svc-project/svc/internal/httpsig"
	"github.com/svc-project/svc/internal/signing"
)

// signed signs h's 2xx answers with the current key: Content-Digest of the
// body, then Signature-Input and Signature (docs/verification.md). Errors
// are not signed: they carry no count. Without keys, h answers unsigned.
func (s *Server) signed(h http.Handler) http.Handler {
	if s.opts.Keys == nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// A request that says its body's digest gets an answer bound to that
		// body: what was read is kept, to check the digest against.
		var read *teeBody
		if r.Body != nil && r.Header.Get("Content-Digest") != "" {
			read = &teeBody{ReadCloser: r.Body}
			r.Body = read
		}
		rec := recorders.Get().(*recorder)
		defer putRecorder(rec)
		rec.header = w.Header()
		h.ServeHTTP(rec, r)
		if rec.status == 0 {
			rec.status = http.StatusOK
		}
		if rec.status/100 == 2 {
			bound := read != nil && httpsig.CheckDigest(r.Header.Values("Content-Digest"), read.buf.Bytes()) == nil
			if err := s.sign(w.Header(), rec.status, rec.body.Bytes(), r, bound); err != nil {
				// Never an unsigned 2xx: the adapter answers 500 and logs why.
				for _, k := range []string{"Content-Digest", "Signature-Input", "Signature", "Cache-Control"} {
					w.Header().Del(k)
				}
				s.handle(func(http.ResponseWriter, *http.Request) error { return err }).ServeHTTP(w, r)
				return
			}
		}
		w.WriteHeader(rec.status)
		_, _ = w.Write(rec.body.Bytes())
	})
}

// signedOnRequest signs h's 2xx answers when the request carries
// Accept-Signature (RFC 9421, section 5), and answers unsigned otherwise:
// one Ed25519 signature costs about as much as the rest of a proof, and the
// widget, which makes nearly every proof read, never checks it. Whatever
// the field names, svc signs with its own label and components
// (signing.AcceptSignature), which section 5.2 leaves to the signer. Both
// kinds of answer say Vary: Accept-Signature, so that no cache serves one
// for the other.
func (s *Server) signedOnRequest(h http.Handler) http.Handler {
	sh := s.signed(h)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Added to, not set: the CORS layer has said Vary: Origin.
		w.Header().Add("Vary", "Accept-Signature")
		if _, ok := r.Header["Accept-Signature"]; ok {
			sh.ServeHTTP(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// sign adds Content-Digest and the signature to an answer. bound covers
// the request's Content-Digest too, which sign's caller checked against
// the body the handler read: a POST's answer then cannot be passed off as
// the answer to another body sent to the same URL.
func (s *Server) sign(h http.Header, status int, body []byte, r *http.Request, bound bool) error {
	key := s.opts.Keys.Current()
	signer := s.signerFor(key.ID, bound)
	// The three fields' values share one slice: one allocation, not three.
	vals := make([]string, 3)
	vals[0] = httpsig.Digest(body)
	h["Content-Digest"] = vals[0:1:1]
	m := &httpsig.Message{Status: status, Header: h,
		Request: &httpsig.Message{Method: r.Method, TargetURI: s.targetURI(r), Header: r.Header}}
	created := s.tracker.Now().Unix()
	input, sig, err := signer.Sign(m, created, func(base []byte) []byte { return s.opts.Keys.Sign(key, created, base) })
	if err != nil {
		return err
	}
	vals[1], vals[2] = input, sig
	h["Signature-Input"] = vals[1:2:2]
	h["Signature"] = vals[2:3:3]
	return nil
}

// signers are the httpsig.Signers of one key: the signature parameters
// but created are the same for every answer it signs.
type signers struct {
	keyID        string
	plain, bound *httpsig.Signer
}

// signerFor is the Signer of key keyID, covering the request's
// Content-Digest when bound.
func (s *Server) signerFor(keyID string, bound bool) *httpsig.Signer {
	ss := s.signers.Load()
	if ss == nil || ss.keyID != keyID {
		c := signing.Components
		ss = &signers{keyID: keyID,
			plain: httpsig.NewSigner(signing.Label, c, keyID, httpsig.Alg),
			bound: httpsig.NewSigner(signing.Label, append(c[:len(c):len(c)], signing.RequestDigest), keyID, httpsig.Alg)}
		s.signers.Store(ss)
	}
	if bound {
		return ss.bound
	}
	return ss.plain
}

// targetURI is the URL the client asked for: under --public-url when it is
// set (behind a proxy the request's own scheme and host are the proxy's
// upstream), else the request's scheme and Host.
func (s *Server) targetURI(r *http.Request) *url.URL {
	base := s.opts.PublicURL
	if base == "" {
		scheme := "http"
		if r.TLS != nil {
			scheme = "https"
		}
		if r.URL.Opaque == "" && r.URL.Scheme == "" && r.URL.Host == "" && r.URL.User == nil && !strings.Contains(r.URL.RawQuery, "#") {
			// What parsing scheme://Host + the request URI gives, without
			// parsing again what the server parsed.
			return &url.URL{Scheme: scheme, Host: r.Host, Path: r.URL.Path, RawPath: r.URL.RawPath,
				RawQuery: r.URL.RawQuery, ForceQuery: r.URL.ForceQuery}
		}
		base = scheme + "://" + r.Host
	}
	u, err := url.Parse(strings.TrimSuffix(base, "/") + r.URL.RequestURI())
	if err != nil {
		return &url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawPath: r.URL.RawPath, RawQuery: r.URL.RawQuery}
	}
	return u
}

// recorder holds an answer until it is signed. Its header is the real
// writer's, so what the handler sets is sent.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// teeBody keeps what the handler reads of a request's body.
type teeBody struct {
	io.ReadCloser
	buf bytes.Buffer
}

var recorders = sync.Pool{New: func() any { return new(recorder) }}

// putRecorder returns rec to the pool once its body is written. A body
// far larger than a proof's (an enrichment of many results) is let go.
func putRecorder(rec *recorder) {
	if rec.body.Cap() > 64<<10 {
		return
	}
	rec.header, rec.status = nil, 0
	rec.body.Reset()
	recorders.Put(rec)
}

func (t *teeBody) Read(p []byte) (int, error) {
	n, err := t.ReadCloser.Read(p)
	t.buf.Write(p[:n])
	return n, err
}

// keysJWKS publishes the public keys that verify answers.
func (s *Server) keysJWKS(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "public, max-age=60")
	writeJSON(w, http.StatusOK, s.opts.Keys.JWKSet())
	return nil
}
