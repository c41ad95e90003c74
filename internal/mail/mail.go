// Package mail sends the dashboard's email: sign-in links and the weekly
// digest. It speaks SMTP through github.com/wneessen/go-mail, configured by
// one URL the way operators already write it; without one, a sign-in
// email is written to the log with its link, so that a server without
// mail still lets its people in.
package mail

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	netmail "net/mail"
	"net/url"
	"strconv"
	"time"

	gomail "github.com/wneessen/go-mail"
)

// Message is one email: a plain text body and, if HTML is set, an HTML
// alternative.
type Message struct {
	To      string
	Subject string
	Text    string
	HTML    string
	// Unsubscribe, if set, is the one-click unsubscribe address (RFC 8058):
	// it goes into List-Unsubscribe with List-Unsubscribe-Post.
	Unsubscribe string
	// Link is what the log shows of the message when there is no SMTP
	// server: the sign-in link. A message without one is not logged.
	Link string
}

// Config is where mail goes.
type Config struct {
	// URL is the SMTP server: smtp://[user:pass@]host[:port] speaks
	// STARTTLS, which is required (port 587 by default);
	// smtps://[user:pass@]host[:port] is TLS from the start (port 465).
	// smtp://host:25?tls=none sends in the clear, to a relay on the same
	// machine, and takes no password. "" sends nothing: messages with a
	// link are logged instead.
	URL string
	// From is the sender's address, such as "svc <svc@shop.example>".
	From string
	// RootCAs, if set, are the only authorities trusted for the server's
	// certificate (tests); nil is the system's.
	RootCAs *x509.CertPool
	Log     *slog.Logger
}

// Mailer sends messages.
type Mailer struct {
	cfg    Config
	from   *netmail.Address
	client *gomail.Client // nil without SMTP
}

// New checks the configuration and returns a mailer. It does not connect:
// a server that is down at start does not stop svc.
func New(cfg Config) (*Mailer, error) {
	if cfg.Log == nil {
		cfg.Log = slog.New(slog.DiscardHandler)
	}
	m := &Mailer{cfg: cfg}
	if cfg.URL == "" {
		return m, nil
	}
	if cfg.From == "" {
		return nil, errors.New("--mail-from is required with an SMTP URL")
	}
	from, err := netmail.ParseAddress(cfg.From)
	if err != nil {
		return nil, fmt.Errorf("mail from %q: want an address such as svc@shop.example or \"Shop <svc@shop.example>\"", cfg.From)
	}
	m.from = from
	opts, host, err := clientOptions(cfg)
	if err != nil {
		return nil, err
	}
	if m.client, err = gomail.NewClient(host, opts...); err != nil {
		return nil, fmt.Errorf("smtp url: %w", err)
	}
	return m, nil
}

// clientOptions reads the SMTP URL. Its errors never quote the URL: it
// may hold a password.
func clientOptions(cfg Config) ([]gomail.Option, string, error) {
	u, err := url.Parse(cfg.URL)
	if err != nil || u.Hostname() == "" || (u.Scheme != "smtp" && u.Scheme != "smtps") {
		return nil, "", errors.New("smtp url: want smtp://[user:pass@]host[:port] (STARTTLS) or smtps://[user:pass@]host[:port] (TLS)")
	}
	tlsConf := &tls.Config{ServerName: u.Hostname(), RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12}
	opts := []gomail.Option{gomail.WithTimeout(20 * time.Second), gomail.WithTLSConfig(tlsConf)}
	port := 587
	clear := false
	switch q := u.Query().Get("tls"); {
	case u.Scheme == "smtps":
		port = 465
		opts = append(opts, gomail.WithSSL())
	case q == "none":
		clear = true
		opts = append(opts, gomail.WithTLSPolicy(gomail.NoTLS))
	case q == "":
		opts = append(opts, gomail.WithTLSPolicy(gomail.TLSMandatory))
	default:
		return nil, "", errors.New("smtp url: tls may only be none")
	}
	if p := u.Port(); p != "" {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return nil, "", errors.New("smtp url: bad port")
		}
		port = n
	}
	opts = append(opts, gomail.WithPort(port))
	if u.User != nil {
		if clear {
			return nil, "", errors.New("smtp url: a password is never sent without TLS (drop tls=none)")
		}
		pass, _ := u.User.Password()
		opts = append(opts, gomail.WithSMTPAuth(gomail.SMTPAuthAutoDiscover),
			gomail.WithUsername(u.User.Username()), gomail.WithPassword(pass))
	}
	return opts, u.Hostname(), nil
}

// Enabled reports whether messages are sent rather than logged.
func (m *Mailer) Enabled() bool { return m.client != nil }

// Send sends a message; without SMTP, it logs a message with a link at
// info level and drops any other.
func (m *Mailer) Send(ctx context.Context, msg Message) error {
	if m.client == nil {
		if msg.Link != "" {
			m.cfg.Log.Info("mail: no SMTP server (--smtp-url): the sign-in email is logged instead", "to", msg.To, "subject", msg.Subject, "link", msg.Link)
		}
		return nil
	}
	g := gomail.NewMsg()
	g.FromMailAddress(m.from)
	if err := g.To(msg.To); err != nil {
		return fmt.Errorf("mail to: %w", err)
	}
	g.Subject(msg.Subject)
	g.SetDate()
	g.SetMessageID()
	g.SetGenHeader(gomail.Header("Auto-Submitted"), "auto-generated") // RFC 3834: no vacation replies
	if msg.Unsubscribe != "" {
		g.SetGenHeaderPreformatted(gomail.HeaderListUnsubscribe, "<"+msg.Unsubscribe+">")
		g.SetGenHeader(gomail.HeaderListUnsubscribePost, "List-Unsubscribe=One-Click")
	}
	g.SetBodyString(gomail.TypeTextPlain, msg.Text)
	if msg.HTML != "" {
		g.AddAlternativeString(gomail.TypeTextHTML, msg.HTML)
	}
	if err := m.client.DialAndSendWithContext(ctx, g); err != nil {
		return fmt.Errorf("mail to %s: %w", msg.To, err)
	}
	return nil
}
