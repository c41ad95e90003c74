package main

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"net/netip"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/httpapi"
)

func TestServeOptions(t *testing.T) {
	t.Parallel()
	defaults := serveConfig{addr: "127.0.0.1:8080", retention: svc.DefaultRetention, logFormat: "text", logLevel: "info",
		shutdownTimeout: 15 * time.Second, snapshotInterval: 5 * time.Minute, rateLimit: 20, rateBurst: 100,
		budget:             httpapi.Budget{NewProductsPerAddress: 120, NewProductsPerBrand: 6000, LinesPerOrder: 50, UnitsPerLine: 100},
		maxConnsPerAddress: 256, idleTimeout: 30 * time.Second, nowWindow: 5 * time.Minute, digestInterval: time.Hour}
	with := func(change func(*serveConfig)) serveConfig { c := defaults; change(&c); return c }
	tests := []struct {
		name    string
		args    []string
		env     map[string]string
		want    serveConfig
		wantErr string // the error must contain it
	}{
		{name: "defaults", want: defaults},
		{name: "flags", args: []string{"--addr", "0.0.0.0:9000", "--public-url", "https://proof.example/", "--demo",
			"--retention", "1000h", "--log-format", "json", "--log-level", "debug", "--shutdown-timeout", "3s", "--snapshot-interval", "90s",
			"--rate-limit", "2.5", "--rate-burst", "7", "--trusted-proxy", "10.0.0.0/8", "--trusted-proxy", "::1",
			"--admin-addr", "127.0.0.1:0", "--anon-new-products-per-address", "1.5", "--anon-new-products-per-brand", "0",
			"--anon-max-lines", "3", "--anon-max-units", "0", "--max-conns-per-address", "0", "--idle-timeout", "5s", "--now-window", "2m",
			"--smtp-url", "smtps://u:p@mail.example", "--mail-from", "svc@shop.example", "--digest-interval", "10m"},
			want: serveConfig{smtpURL: "smtps://u:p@mail.example", mailFrom: "svc@shop.example", digestInterval: 10 * time.Minute, nowWindow: 2 * time.Minute, idleTimeout: 5 * time.Second, budget: httpapi.Budget{NewProductsPerAddress: 1.5, LinesPerOrder: 3}, addr: "0.0.0.0:9000", publicURL: "https://proof.example", demo: true, retention: 1000 * time.Hour,
				logFormat: "json", logLevel: "debug", shutdownTimeout: 3 * time.Second, snapshotInterval: 90 * time.Second, rateLimit: 2.5, rateBurst: 7,
				trustedProxies: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}, adminAddr: "127.0.0.1:0"}},
		{name: "environment", env: map[string]string{"SVC_ADDR": "0.0.0.0:8080", "SVC_PUBLIC_URL": "http://x.example", "SVC_DEMO": "true",
			"SVC_RETENTION": "721h", "SVC_LOG_FORMAT": "json", "SVC_LOG_LEVEL": "warn", "SVC_SHUTDOWN_TIMEOUT": "1m", "SVC_SNAPSHOT_INTERVAL": "0",
			"SVC_RATE_LIMIT": "0", "SVC_RATE_BURST": "1", "SVC_TRUSTED_PROXIES": "10.1.2.3, 192.168.0.0/16,", "SVC_ADMIN_ADDR": ":9090",
			"SVC_ANON_NEW_PRODUCTS_PER_ADDRESS": "0", "SVC_ANON_NEW_PRODUCTS_PER_BRAND": "10", "SVC_ANON_MAX_LINES": "0", "SVC_ANON_MAX_UNITS": "7",
			"SVC_MAX_CONNS_PER_ADDRESS": "9", "SVC_IDLE_TIMEOUT": "2m", "SVC_NOW_WINDOW": "60m",
			"SVC_SMTP_URL": "smtp://mail.example:587", "SVC_MAIL_FROM": "Shop <svc@shop.example>", "SVC_DIGEST_INTERVAL": "2h"},
			want: serveConfig{smtpURL: "smtp://mail.example:587", mailFrom: "Shop <svc@shop.example>", digestInterval: 2 * time.Hour, nowWindow: time.Hour, maxConnsPerAddress: 9, idleTimeout: 2 * time.Minute, budget: httpapi.Budget{NewProductsPerBrand: 10, UnitsPerLine: 7}, addr: "0.0.0.0:8080", publicURL: "http://x.example", demo: true, retention: 721 * time.Hour,
				logFormat: "json", logLevel: "warn", shutdownTimeout: time.Minute, rateLimit: 0, rateBurst: 1,
				trustedProxies: []netip.Prefix{netip.MustParsePrefix("10.1.2.3/32"), netip.MustParsePrefix("192.168.0.0/16")}, adminAddr: ":9090"}},
		{name: "flags win over the environment",
			args: []string{"--rate-limit", "5", "--trusted-proxy", "10.0.0.1", "--demo=false"},
			env:  map[string]string{"SVC_RATE_LIMIT": "50", "SVC_TRUSTED_PROXIES": "10.0.0.2,10.0.0.3", "SVC_DEMO": "1"},
			want: with(func(c *serveConfig) {
				c.rateLimit, c.trustedProxies = 5, []netip.Prefix{netip.MustParsePrefix("10.0.0.1/32")}
			})},
		{name: "a bad environment value is not used when a flag is given",
			args: []string{"--rate-burst", "3"}, env: map[string]string{"SVC_RATE_BURST": "many"},
			want: with(func(c *serveConfig) { c.rateBurst = 3 })},
		{name: "short digest interval", args: []string{"--digest-interval", "1s"}, wantErr: `--digest-interval "1s": must be at least 1m`},
		{name: "bad addr flag", args: []string{"--addr", "8080"}, wantErr: `--addr "8080": want HOST:PORT`},
		{name: "bad addr env", env: map[string]string{"SVC_ADDR": "localhost:http"}, wantErr: `SVC_ADDR="localhost:http" (--addr): want HOST:PORT`},
		{name: "bad public url", args: []string{"--public-url", "proof.example"}, wantErr: `--public-url "proof.example": want an absolute http or https URL`},
		{name: "bad demo env", env: map[string]string{"SVC_DEMO": "yes"}, wantErr: `SVC_DEMO="yes" (--demo): want true or false`},
		{name: "short retention", args: []string{"--retention", "24h"}, wantErr: `--retention "24h": must be at least 720h (30 days, the largest window)`},
		{name: "bad retention env", env: map[string]string{"SVC_RETENTION": "35d"}, wantErr: `SVC_RETENTION="35d" (--retention): want a duration`},
		{name: "bad log format", args: []string{"--log-format", "xml"}, wantErr: `--log-format "xml": want text or json`},
		{name: "bad log level env", env: map[string]string{"SVC_LOG_LEVEL": "trace"}, wantErr: `SVC_LOG_LEVEL="trace" (--log-level): want debug or info or warn or error`},
		{name: "negative snapshot interval", args: []string{"--snapshot-interval", "-1m"}, wantErr: `--snapshot-interval "-1m": must be at least 0`},
		{name: "short shutdown timeout", args: []string{"--shutdown-timeout", "10ms"}, wantErr: `--shutdown-timeout "10ms": must be at least 1s`},
		{name: "negative rate limit", args: []string{"--rate-limit", "-1"}, wantErr: `--rate-limit "-1": want a number from 0`},
		{name: "infinite rate limit env", env: map[string]string{"SVC_RATE_LIMIT": "Inf"}, wantErr: `SVC_RATE_LIMIT="Inf" (--rate-limit): want a number from 0`},
		{name: "now window under a minute", args: []string{"--now-window", "30s"}, wantErr: `--now-window "30s": want whole minutes from 1m to 1h`},
		{name: "now window over an hour env", env: map[string]string{"SVC_NOW_WINDOW": "61m"}, wantErr: `SVC_NOW_WINDOW="61m" (--now-window): want whole minutes`},
		{name: "now window not whole minutes", args: []string{"--now-window", "90s"}, wantErr: `--now-window "90s": want whole minutes`},
		{name: "zero burst", args: []string{"--rate-burst", "0"}, wantErr: `--rate-burst "0": want a whole number from 1`},
		{name: "bad proxy env", env: map[string]string{"SVC_TRUSTED_PROXIES": "10.0.0.0/8,proxy.local"}, wantErr: `SVC_TRUSTED_PROXIES="proxy.local" (--trusted-proxy): want an IP address or a CIDR`},
		{name: "negative product budget", args: []string{"--anon-new-products-per-address", "-1"}, wantErr: `--anon-new-products-per-address "-1": want a number from 0`},
		{name: "bad brand budget env", env: map[string]string{"SVC_ANON_NEW_PRODUCTS_PER_BRAND": "lots"}, wantErr: `SVC_ANON_NEW_PRODUCTS_PER_BRAND="lots" (--anon-new-products-per-brand): want a number from 0`},
		{name: "negative max lines", args: []string{"--anon-max-lines", "-2"}, wantErr: `--anon-max-lines "-2": want a whole number from 0`},
		{name: "fractional max units", args: []string{"--anon-max-units", "1.5"}, wantErr: `--anon-max-units "1.5": want a whole number from 0`},
		{name: "negative conns per address", args: []string{"--max-conns-per-address", "-1"}, wantErr: `--max-conns-per-address "-1": want a whole number from 0`},
		{name: "short idle timeout env", env: map[string]string{"SVC_IDLE_TIMEOUT": "10ms"}, wantErr: `SVC_IDLE_TIMEOUT="10ms" (--idle-timeout): must be at least 1s`},
		{name: "bad admin addr", args: []string{"--admin-addr", "9090"}, wantErr: `--admin-addr "9090": want HOST:PORT`},
		{name: "unknown flag", args: []string{"--bogus"}, wantErr: "not defined: --bogus"},
		{name: "stray argument", args: []string{"now"}, wantErr: `unexpected argument "now"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := environment{getenv: func(k string) string { return tt.env[k] }, stdout: io.Discard, stderr: io.Discard}
			c, _, err := parseServe(env, tt.args)
			if tt.wantErr != "" {
				var usage usageError
				if err == nil || !errors.As(err, &usage) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err %v, want a usage error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := *c; !equalConfig(got, tt.want) {
				t.Fatalf("got  %+v\nwant %+v", got, tt.want)
			}
		})
	}
}

func equalConfig(a, b serveConfig) bool {
	a.env, b.env = environment{}, environment{} // the environment given, not an option
	return reflect.DeepEqual(a, b) || len(a.trustedProxies)+len(b.trustedProxies) == 0 && func() bool {
		a.trustedProxies, b.trustedProxies = nil, nil
		return reflect.DeepEqual(a, b)
	}()
}

// TestServeHelpAndReadmeListEveryOption keeps svc serve --help and the
// README's table of options complete.
func TestServeHelpAndReadmeListEveryOption(t *testing.T) {
	t.Parallel()
	var help bytes.Buffer
	err := run(t.Context(), []string{"serve", "--help"}, noEnv, &help, io.Discard)
	if !errors.Is(err, flag.ErrHelp) {
		t.Fatalf("serve --help: %v", err)
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	opts := (&serveConfig{}).options()
	opts = append(opts, option{name: "data", env: "SVC_DATA", def: "./svc-data"}, option{name: "store", env: "SVC_STORE"})
	for _, o := range opts {
		want := "--" + o.name
		if !strings.Contains(help.String(), want) || !strings.Contains(help.String(), o.env) || !strings.Contains(help.String(), o.def) {
			t.Errorf("serve --help lacks %s, %s or its default %q:\n%s", want, o.env, o.def, help.String())
		}
		def := "—"
		if o.def != "" {
			def = "`" + o.def + "`"
		}
		row := "| `" + want + "` | `" + o.env + "` | " + def + " |"
		if !strings.Contains(string(readme), row) {
			t.Errorf("README.md's table of options lacks the row starting %q", row)
		}
	}
}
