package bots

import (
	"encoding/json"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestListInstancesAreBots(t *testing.T) {
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	var list []struct {
		Pattern   string   `json:"pattern"`
		Instances []string `json:"instances"`
	}
	if err := json.Unmarshal(listJSON, &list); err != nil {
		t.Fatal(err)
	}
	n := 0
	for range 2 { // the second time from the verdicts remembered
		for _, e := range list {
			for _, ua := range e.Instances {
				n++
				if !d.IsBot(ua) {
					t.Errorf("%q (pattern %q) is not detected", ua, e.Pattern)
				}
			}
		}
	}
	if len(list) < 1000 || n < 1000 {
		t.Fatalf("the list has %d patterns and %d examples: not the maintained list?", len(list), n)
	}
}

func TestBrowsersAreNotBots(t *testing.T) {
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, ua := range []string{
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36",
		"Mozilla/5.0 (Macintosh; Intel Mac OS X 14_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Safari/605.1.15",
		"Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0",
		"Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0",
		"Mozilla/5.0 (iPad; CPU OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/131.0.6778.73 Mobile/15E148 Safari/604.1",
		"Mozilla/5.0 (Linux; Android 14; SM-S918B) AppleWebKit/537.36 (KHTML, like Gecko) SamsungBrowser/26.0 Chrome/122.0.0.0 Mobile Safari/537.36",
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 OPR/115.0.0.0",
		"Mozilla/5.0 (Windows NT 10.0; WOW64; Trident/7.0; rv:11.0) like Gecko",
		"Mozilla/5.0 (Linux; Android 14; Pixel 8 Build/AP2A; wv) AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/131.0.0.0 Mobile Safari/537.36 Instagram 358.0.0.0",
	} {
		for range 2 { // the second time from the verdicts remembered
			if d.IsBot(ua) {
				t.Errorf("browser %q detected as a bot", ua)
			}
		}
	}
	for _, ua := range []string{"", "curl/8.5.0", "python-requests/2.32.3", "Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)", "HeadlessChrome"} {
		if !d.IsBot(ua) {
			t.Errorf("%q not detected as a bot", ua)
		}
	}
}

// Agents no browser sends are bots, though the list does not name them
// (docs/security.md, What we tested and how): too short, no engine token, or a tool's name.
func TestAgentsNoBrowserSendsAreBots(t *testing.T) {
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	const chrome = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	for _, ua := range []string{
		"Java/17", "PostmanRuntime/7.36", "Mozilla/5.0", "x", "Mozilla/5.0 curl/8.5.0", // the probe's
		"Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0.0.0 Safari/537.36", // no engine
		"Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/131.0.0.0 Safari/537.36",
		chrome + " curl/8.5.0", chrome + " Java/17.0.2", chrome + " PostmanRuntime/7.36.0", chrome + " python-requests/2.32",
		chrome + " Go-http-client/1.1", chrome + " okhttp/4.12.0", chrome + " Wget/1.21",
	} {
		if !d.IsBot(ua) {
			t.Errorf("%q not detected as a bot", ua)
		}
	}
	if d.IsBot(chrome) {
		t.Errorf("%q detected as a bot", chrome)
	}
}

func BenchmarkIsBot(b *testing.B) {
	d, _ := New()
	ua := "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36"
	b.ReportAllocs()
	for b.Loop() {
		d.IsBot(ua)
	}
}

// The automaton must agree with strings.Contains over every literal.
func TestLiteralsAgreeWithContains(t *testing.T) {
	words := []string{"bot", "Googlebot", "crawl", "abcd", "bcx", "cd", "spider", "a+b", "ßot"}
	l := newLiterals(words)
	rng := rand.New(rand.NewPCG(1, 1))
	alphabet := "abcdxotGglecrwbspi+ß-"
	for range 20000 {
		b := make([]byte, rng.IntN(24))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		s := string(b)
		want := slices.ContainsFunc(words, func(w string) bool { return strings.Contains(s, w) })
		if got := l.in(s); got != want {
			t.Fatalf("in(%q) = %v, want %v", s, got, want)
		}
	}
}

// Shop platforms' webhook senders are not shoppers: their agents sent to a
// collect endpoint without a key are not counted (webhooks have endpoints
// of their own, authenticated by signature). Pinned here so that an update
// of the list cannot drop Shopify's.
func TestShopWebhookAgentsAreBots(t *testing.T) {
	d, err := New()
	if err != nil {
		t.Fatal(err)
	}
	for _, ua := range []string{
		"Shopify-Captain-Hook",
		"Mozilla/5.0 (compatible; Shopify-Captain-Hook) AppleWebKit/537.36 (KHTML, like Gecko)",
		"WooCommerce/9.4.2 Hookshot (WordPress/6.7.1)",
	} {
		if !d.IsBot(ua) {
			t.Errorf("%q is not a bot", ua)
		}
	}
}
