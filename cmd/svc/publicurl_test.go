package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/postgres/pgtest"
	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
	"github.com/svc-project/svc/internal/testwait"
)

// serve records its --public-url in the store, so that admin commands run
// anywhere on the store print the script, snippet, webhook and dashboard
// URLs where the service is reached, not on 127.0.0.1:8080.
func TestAdminCommandsPrintTheRecordedPublicURL(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"sqlite", "postgres"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			flags := []string{"--data", sqlitetest.Dir(t)}
			if kind == "postgres" {
				flags = []string{"--store", pgtest.URL(t)}
			} else {
				stopServer(startServer(t, flags...)) // makes the folder
			}
			const public = "https://proof.example"
			s := startPublic(t, public, flags...)
			b := addBrand(t, "", flags...)
			if b.ScriptURL != public+"/svc.js" || !strings.Contains(b.Snippet, public+"/svc.js") {
				t.Errorf("brands add prints %q and %q, want them on %s", b.ScriptURL, b.Snippet, public)
			}
			add := runCmd(t, append([]string{"brands", "add", "--name", "Acme", "--domain", "acme.example"}, flags...)...)
			set := runCmd(t, append([]string{"brands", "set", "--brand", b.BrandID, "--name", "Renamed"}, flags...)...)
			link := runCmd(t, append([]string{"dashboard", "link", "--brand", b.BrandID}, flags...)...)
			for name, out := range map[string]string{"brands add": add, "brands set": set, "dashboard link": link} {
				if strings.Contains(out, "127.0.0.1") || !strings.Contains(out, public+"/") {
					t.Errorf("%s prints addresses not on %s:\n%s", name, public, out)
				}
			}
			for _, want := range []string{public + "/api/connect/shopify/", public + "/api/connect/woocommerce/"} {
				if !strings.Contains(add, want) || !strings.Contains(set, want) {
					t.Errorf("the webhook URLs are not on %s:\n%s\n%s", public, add, set)
				}
			}
			if !strings.Contains(link, public+"/dashboard/signin?token=") {
				t.Errorf("dashboard link: %s", link)
			}
			// The command's own flag still wins.
			if out := runCmd(t, append([]string{"dashboard", "link", "--brand", b.BrandID, "--public-url", "https://other.example"}, flags...)...); !strings.Contains(out, "https://other.example/dashboard/signin") {
				t.Errorf("--public-url given to dashboard link: %s", out)
			}
			stopServer(s)
			if kind == "postgres" {
				// A node given no --public-url does not replace the service's
				// address with its own.
				startServer(t, flags...)
				if out := runCmd(t, append([]string{"dashboard", "link", "--operator"}, flags...)...); !strings.Contains(out, public+"/dashboard/signin") {
					t.Errorf("after a node without --public-url: %s", out)
				}
				return
			}
			// On the embedded store, a server given none records where it
			// listens.
			own := startServer(t, flags...)
			if out := runCmd(t, append([]string{"dashboard", "link", "--operator"}, flags...)...); !strings.Contains(out, own.url+"/dashboard/signin") {
				t.Errorf("dashboard link beside a server on %s: %s", own.url, out)
			}
		})
	}
}

// Before any serve ran on the store, admin commands print the default.
func TestAdminCommandsPublicURLDefault(t *testing.T) {
	t.Parallel()
	flags := []string{"--store", pgtest.URL(t)}
	b := addBrand(t, "", flags...)
	if b.ScriptURL != defaultPublicURL+"/svc.js" {
		t.Errorf("script_url %q before serve recorded an address", b.ScriptURL)
	}
}

// startPublic runs svc serve in-process with --public-url, which its first
// line prints instead of where it listens; the address is recorded by then.
func startPublic(t *testing.T, public string, flags ...string) *server {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	pr, pw := io.Pipe()
	s := &server{stdout: bufio.NewReader(pr), stop: cancel, done: make(chan error, 1)}
	go func() {
		err := run(ctx, append([]string{"serve", "--addr", "127.0.0.1:0", "--public-url", public}, flags...), noEnv, pw, io.Discard)
		pw.Close()
		s.done <- err
	}()
	go func() { _, _ = io.Copy(io.Discard, s.stdout) }()
	t.Cleanup(func() { s.stop(); err := <-s.done; s.done <- err })
	testwait.Eventually(t, func() error {
		var out bytes.Buffer
		err := run(context.Background(), append([]string{"dashboard", "link", "--operator"}, flags...), noEnv, &out, io.Discard)
		if err == nil && !strings.Contains(out.String(), public) {
			err = fmt.Errorf("dashboard link prints %q", out.String())
		}
		return err
	})
	return s
}

// stopServer stops a server started here and waits until it has ended;
// its cleanup then finds it ended.
func stopServer(s *server) {
	s.stop()
	err := <-s.done
	s.done <- err
}
