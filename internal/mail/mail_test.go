package mail_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/mail"
	"github.com/svc-project/svc/internal/mail/mailtest"
)

// A message reaches a real SMTP server, over STARTTLS and over TLS, with
// its text, its HTML and the one-click unsubscribe headers.
func TestSend(t *testing.T) {
	t.Parallel()
	for _, tlsFromStart := range []bool{false, true} {
		srv := mailtest.Start(t, tlsFromStart)
		m, err := mail.New(mail.Config{URL: srv.URL(), From: "svc <svc@shop.example>", RootCAs: srv.RootCAs})
		if err != nil {
			t.Fatal(err)
		}
		err = m.Send(context.Background(), mail.Message{To: "Owner@Shop.example", Subject: "Your week: 3 purchases",
			Text: "Views: 1,234 — up 5%", HTML: "<p>Views: <b>1,234</b></p>", Unsubscribe: "https://svc.example/dashboard/unsubscribe?token=abc"})
		if err != nil {
			t.Fatalf("tls from start %v: %v", tlsFromStart, err)
		}
		got := srv.Wait("owner@shop.example", 0)
		if got.From != "svc@shop.example" || got.Header.Get("Subject") != "Your week: 3 purchases" {
			t.Errorf("from %q, subject %q", got.From, got.Header.Get("Subject"))
		}
		if !strings.Contains(got.Text, "Views: 1,234 — up 5%") || !strings.Contains(got.HTML, "<b>1,234</b>") {
			t.Errorf("text %q, html %q", got.Text, got.HTML)
		}
		if got.Header.Get("List-Unsubscribe") != "<https://svc.example/dashboard/unsubscribe?token=abc>" ||
			got.Header.Get("List-Unsubscribe-Post") != "List-Unsubscribe=One-Click" {
			t.Errorf("unsubscribe headers: %q %q", got.Header.Get("List-Unsubscribe"), got.Header.Get("List-Unsubscribe-Post"))
		}
	}
}

// A server that presents a certificate nobody vouches for gets nothing:
// STARTTLS is required, and checked.
func TestSendRefusesAnUntrustedServer(t *testing.T) {
	t.Parallel()
	srv := mailtest.Start(t, false)
	m, err := mail.New(mail.Config{URL: srv.URL(), From: "svc@shop.example"}) // the system's roots
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Send(context.Background(), mail.Message{To: "a@shop.example", Subject: "x", Text: "x"}); err == nil {
		t.Fatal("sent to a server with an untrusted certificate")
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("%d messages arrived", n)
	}
}

// Without SMTP a sign-in email is logged with its link, at info level.
func TestLogWithoutSMTP(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	m, err := mail.New(mail.Config{Log: slog.New(slog.NewTextHandler(&buf, nil))})
	if err != nil || m.Enabled() {
		t.Fatal(err, m.Enabled())
	}
	if err := m.Send(context.Background(), mail.Message{To: "a@shop.example", Subject: "Sign in", Text: "x", Link: "http://svc/dashboard/signin?token=T"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(buf.String(), "level=INFO") || !strings.Contains(buf.String(), `link="http://svc/dashboard/signin?token=T"`) {
		t.Fatalf("log: %s", buf.String())
	}
}

// Bad URLs are refused without quoting the password.
func TestBadURL(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"http://u:hunter2@host", "smtp://", "smtp://u:hunter2@host?tls=none", "smtp://u:hunter2@host:99999", "smtp://host?tls=maybe"} {
		_, err := mail.New(mail.Config{URL: u, From: "svc@shop.example"})
		if err == nil || strings.Contains(err.Error(), "hunter2") {
			t.Errorf("%s: %v", u, err)
		}
	}
	if _, err := mail.New(mail.Config{URL: "smtp://host"}); err == nil {
		t.Error("no --mail-from accepted")
	}
}
