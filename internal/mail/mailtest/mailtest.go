// Package mailtest runs a real SMTP server on port 0 for tests
// (github.com/emersion/go-smtp): it speaks STARTTLS or TLS with a
// certificate made for the test, takes AUTH PLAIN, and keeps what it
// receives, parsed.
package mailtest

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"errors"
	"io"
	"math/big"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net"
	netmail "net/mail"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// The server's account.
const (
	User     = "svc"
	Password = "mail-pass"
)

// Message is a received email.
type Message struct {
	From   string
	To     []string
	Header netmail.Header
	Text   string // the text/plain part, decoded
	HTML   string // the text/html part, decoded
	Raw    []byte
}

// Server is a running SMTP server.
type Server struct {
	t       testing.TB
	srv     *smtp.Server
	addr    string
	scheme  string
	RootCAs *x509.CertPool // trusts the server's certificate

	mu       sync.Mutex
	messages []*Message
	arrived  chan struct{} // closed and replaced at each message
}

// Start runs a server until the test ends: implicit TLS if tlsFromStart
// (smtps://), else STARTTLS (smtp://). Either refuses AUTH before TLS.
func Start(t testing.TB, tlsFromStart bool) *Server {
	t.Helper()
	cert, pool := certificate(t)
	s := &Server{t: t, RootCAs: pool, arrived: make(chan struct{}), scheme: "smtp"}
	s.srv = smtp.NewServer(smtp.BackendFunc(func(*smtp.Conn) (smtp.Session, error) { return &session{s: s}, nil }))
	s.srv.Domain = "localhost"
	s.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	s.srv.ReadTimeout, s.srv.WriteTimeout = 10*time.Second, 10*time.Second
	var ln net.Listener
	var err error
	if tlsFromStart {
		s.scheme = "smtps"
		ln, err = tls.Listen("tcp", "127.0.0.1:0", s.srv.TLSConfig)
	} else {
		ln, err = net.Listen("tcp", "127.0.0.1:0")
	}
	if err != nil {
		t.Fatal(err)
	}
	s.addr = ln.Addr().String()
	go func() { _ = s.srv.Serve(ln) }()
	t.Cleanup(func() { _ = s.srv.Close() })
	return s
}

// URL is the server's address as --smtp-url takes it, with its account.
func (s *Server) URL() string {
	return (&url.URL{Scheme: s.scheme, User: url.UserPassword(User, Password), Host: s.addr}).String()
}

// Messages returns what arrived so far.
func (s *Server) Messages() []*Message {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]*Message(nil), s.messages...)
}

// Wait returns the first message to the address that arrives, waiting up
// to 10 s; index counts earlier ones to skip.
func (s *Server) Wait(to string, index int) *Message {
	s.t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		s.mu.Lock()
		n := 0
		for _, m := range s.messages {
			for _, r := range m.To {
				if strings.EqualFold(r, to) {
					if n == index {
						s.mu.Unlock()
						return m
					}
					n++
				}
			}
		}
		ch := s.arrived
		s.mu.Unlock()
		select {
		case <-ch:
		case <-deadline:
			s.t.Fatalf("no mail #%d to %s within 10 s", index+1, to)
			return nil
		}
	}
}

type session struct {
	s      *Server
	authed bool
	from   string
	to     []string
}

func (x *session) AuthMechanisms() []string { return []string{sasl.Plain} }

func (x *session) Auth(string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(_, user, pass string) error {
		if user != User || pass != Password {
			return errors.New("bad user or password")
		}
		x.authed = true
		return nil
	}), nil
}

func (x *session) Mail(from string, _ *smtp.MailOptions) error {
	if !x.authed {
		return smtp.ErrAuthRequired
	}
	x.from = from
	return nil
}

func (x *session) Rcpt(to string, _ *smtp.RcptOptions) error { x.to = append(x.to, to); return nil }

func (x *session) Data(r io.Reader) error {
	raw, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	m, err := parse(raw)
	if err != nil {
		return err
	}
	m.From, m.To = x.from, x.to
	x.s.mu.Lock()
	x.s.messages = append(x.s.messages, m)
	close(x.s.arrived)
	x.s.arrived = make(chan struct{})
	x.s.mu.Unlock()
	return nil
}

func (x *session) Reset()        { x.from, x.to = "", nil }
func (x *session) Logout() error { return nil }

// parse reads a message's text and HTML parts.
func parse(raw []byte) (*Message, error) {
	msg, err := netmail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	m := &Message{Header: msg.Header, Raw: raw}
	return m, walk(m, msg.Header.Get("Content-Type"), msg.Header.Get("Content-Transfer-Encoding"), msg.Body)
}

func walk(m *Message, contentType, encoding string, body io.Reader) error {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		return err
	}
	if strings.HasPrefix(mt, "multipart/") {
		mr := multipart.NewReader(body, params["boundary"])
		for {
			p, err := mr.NextRawPart()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			if err := walk(m, p.Header.Get("Content-Type"), p.Header.Get("Content-Transfer-Encoding"), p); err != nil {
				return err
			}
		}
	}
	if strings.EqualFold(encoding, "quoted-printable") {
		body = quotedprintable.NewReader(body)
	}
	b, err := io.ReadAll(body)
	if err != nil {
		return err
	}
	switch mt {
	case "text/plain":
		m.Text = string(b)
	case "text/html":
		m.HTML = string(b)
	}
	return nil
}

// certificate makes a self-signed certificate for 127.0.0.1.
func certificate(t testing.TB) (tls.Certificate, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "mailtest"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IsCA: true, BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, pool
}
