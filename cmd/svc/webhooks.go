package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"time"

	"golang.org/x/term"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/shops"
)

// The webhook secrets of brands set, and the webhook URLs brands add and
// set print (docs/integrations.md). A secret is never printed back.

// secretFlags are the --shopify-secret and --woocommerce-secret flags.
type secretFlags map[string]*string // by platform

func addSecretFlags(fs *flag.FlagSet) secretFlags {
	out := secretFlags{}
	for _, p := range svc.Platforms {
		out[p] = fs.String(p+"-secret", "", "the secret "+platformName[p]+" signs the brand's webhooks with; - reads it from standard input, '' removes it")
	}
	return out
}

var platformName = map[string]string{svc.PlatformShopify: "Shopify", svc.PlatformWooCommerce: "WooCommerce"}

// given reports whether any secret flag was set.
func (sf secretFlags) given(set map[string]bool) bool {
	for p := range sf {
		if set[p+"-secret"] {
			return true
		}
	}
	return false
}

// store stores the secrets whose flags were set. "-" reads a secret from
// stdin, so that it stays out of the shell's history and ps: from a
// terminal after a prompt, unechoed; from a pipe, one line each.
func (sf secretFlags) store(ctx context.Context, store svc.WebhookSecretStore, stdin io.Reader, prompt io.Writer, brandID string, set map[string]bool) error {
	in := newSecretReader(stdin, prompt)
	for _, p := range svc.Platforms {
		if !set[p+"-secret"] {
			continue
		}
		secret := *sf[p]
		if secret == "-" {
			var err error
			if secret, err = in.read(platformName[p] + " webhook secret of " + brandID); err != nil {
				return usageError{fmt.Sprintf("--%s-secret -: %v", p, err)}
			}
		}
		if err := svc.ValidateWebhookSecret(p, secret); err != nil {
			return usageError{fmt.Sprintf("--%s-secret must be printable ASCII characters without spaces, at most %d", p, svc.MaxWebhookSecretLen)}
		}
		if err := store.SetWebhookSecret(ctx, brandID, p, secret, time.Now()); err != nil {
			return err
		}
	}
	return nil
}

// secretReader reads secrets given as "-" from standard input.
type secretReader struct {
	tty    int           // the terminal's descriptor; -1 when stdin is not one
	prompt io.Writer     // where a terminal's prompt goes
	lines  *bufio.Reader // a pipe's lines, one reader for all of them
}

func newSecretReader(stdin io.Reader, prompt io.Writer) *secretReader {
	r := &secretReader{tty: -1, prompt: prompt, lines: bufio.NewReader(stdin)}
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		r.tty = int(f.Fd())
	}
	return r
}

// read reads one secret: on a terminal it prompts for what and turns the
// echo off, so that the secret does not appear on screen.
func (r *secretReader) read(what string) (string, error) {
	if r.tty < 0 {
		line, err := r.lines.ReadString('\n')
		if err != nil && line == "" {
			return "", errors.New("no secret on standard input")
		}
		return strings.TrimRight(line, "\r\n"), nil
	}
	fmt.Fprintf(r.prompt, "%s (not shown as you type): ", what)
	b, err := term.ReadPassword(r.tty)
	fmt.Fprintln(r.prompt) // the Enter that was not echoed
	if err != nil {
		return "", fmt.Errorf("read from the terminal: %w", err)
	}
	return string(b), nil
}

// webhookInfo is a platform's webhook URL for a brand, and whether its
// secret is set (never the secret).
type webhookInfo struct {
	URL       string `json:"url"`
	SecretSet bool   `json:"secret_set"`
}

// webhooksOf returns the brand's webhook URLs under the public address base.
func webhooksOf(ctx context.Context, store svc.WebhookSecretStore, base, brandID string) (map[string]webhookInfo, error) {
	all, err := store.WebhookSecrets(ctx)
	if err != nil {
		return nil, err
	}
	out := map[string]webhookInfo{}
	for _, p := range svc.Platforms {
		out[p] = webhookInfo{URL: strings.TrimSuffix(base, "/") + shops.WebhookPath(p, brandID)}
	}
	for _, w := range all {
		if w.BrandID == brandID {
			i := out[w.Platform]
			i.SecretSet = true
			out[w.Platform] = i
		}
	}
	return out, nil
}

// webhookText is the webhooks part of brands add and set.
func webhookText(env environment, brandID string, hooks map[string]webhookInfo) string {
	var b strings.Builder
	b.WriteString("Webhook URLs to paste into the shop's admin (docs/integrations.md):\n")
	for _, p := range svc.Platforms {
		h := hooks[p]
		state := "secret set"
		if !h.SecretSet {
			state = "no secret yet: " + env.cmd("brands set --brand %s --%s-secret -", brandID, p)
		}
		fmt.Fprintf(&b, "  %-12s %s   (%s)\n", platformName[p]+":", h.URL, state)
	}
	return b.String()
}

// defaultPublicURL is where serve listens when nothing else is known.
const defaultPublicURL = "http://127.0.0.1:8080"

// publicURLFlag is --public-url of the admin commands that print
// addresses; "" when not given, for publicURLOf to fill in.
func publicURLFlag(fs *flag.FlagSet, env environment, what string) *string {
	return fs.String("public-url", env.env("SVC_PUBLIC_URL", ""), "the service's public address, for "+what+
		" (env SVC_PUBLIC_URL; default: the address serve recorded in the store, else "+defaultPublicURL+")")
}

// publicURLOf is the address an admin command prints URLs on: the one it
// was given, else the one serve recorded in the store, so that a command
// run on another machine than the nodes prints where they are reached.
func publicURLOf(ctx context.Context, store svc.Store, given string) (string, error) {
	if given != "" {
		return given, nil
	}
	u, err := store.Setting(ctx, svc.SettingPublicURL)
	switch {
	case svc.ErrorCode(err) == svc.ENOTFOUND:
		return defaultPublicURL, nil
	case err != nil:
		return "", err
	}
	return u, nil
}

// recordedURL is the public URL serve records in the store: the one it
// was given or, on the embedded store (one server per folder), the address
// it listens on, loopback for every interface. On a shared store, nodes
// given none record nothing: their own addresses are not the service's.
func recordedURL(given string, addr net.Addr, embedded bool) string {
	if given != "" || !embedded {
		return given
	}
	host, port, err := net.SplitHostPort(addr.String())
	if err != nil {
		return ""
	}
	if ip := net.ParseIP(host); ip == nil || ip.IsUnspecified() {
		host = "127.0.0.1"
	}
	return "http://" + net.JoinHostPort(host, port)
}
