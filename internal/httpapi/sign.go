package httpapi

import (
	"bytes"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

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
		rec := &recorder{header: w.Header()}
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

// sign adds Content-Digest and the signature to an answer. bound covers
// the request's Content-Digest too, which sign's caller checked against
// the body the handler read: a POST's answer then cannot be passed off as
// the answer to another body sent to the same URL.
func (s *Server) sign(h http.Header, status int, body []byte, r *http.Request, bound bool) error {
	key := s.opts.Keys.Current()
	h.Set("Content-Digest", httpsig.Digest(body))
	m := &httpsig.Message{Status: status, Header: h,
		Request: &httpsig.Message{Method: r.Method, TargetURI: s.targetURI(r), Header: r.Header}}
	created := s.tracker.Now().Unix()
	components := signing.Components
	if bound {
		components = append(components[:len(components):len(components)], signing.RequestDigest)
	}
	p := &httpsig.Params{Components: components, Created: time.Unix(created, 0), KeyID: key.ID, Alg: httpsig.Alg}
	input, sig, err := httpsig.SignFunc(m, signing.Label, p, func(base []byte) []byte { return s.opts.Keys.Sign(key, created, base) })
	if err != nil {
		return err
	}
	h.Set("Signature-Input", input)
	h.Set("Signature", sig)
	return nil
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
		base = scheme + "://" + r.Host
	}
	u, err := url.Parse(strings.TrimSuffix(base, "/") + r.URL.RequestURI())
	if err != nil {
		return &url.URL{Scheme: "http", Host: r.Host, Path: r.URL.Path, RawQuery: r.URL.RawQuery}
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
