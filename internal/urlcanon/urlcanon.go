// Package urlcanon reduces the many addresses of one product page to one
// string, so that a search result's URL finds the product an event named
// (docs/enrichment.md, Matching).
package urlcanon

import (
	"net"
	"net/url"
	"path"
	"sort"
	"strings"
	"unicode"
)

// URL returns the canonical form of an absolute http(s) URL: the host in
// lower case without "www." or "m." and without a default port, the path
// without dot segments or a trailing slash, the query without tracking
// parameters and sorted, and no scheme, user or fragment. Two addresses of
// one page give the same string. ok is false for anything but an absolute
// http(s) URL with a host.
//
// The scheme is dropped because shops serve one page on both; the path keeps
// its case because servers may tell paths apart by it.
func URL(raw string) (canonical string, ok bool) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Opaque != "" {
		return "", false
	}
	host := Host(u.Hostname())
	if host == "" {
		return "", false
	}
	var b strings.Builder
	if strings.Contains(host, ":") { // IPv6
		host = "[" + host + "]"
	}
	b.WriteString(host)
	if port := u.Port(); port != "" && port != "80" && port != "443" {
		b.WriteString(":" + port)
	}
	if p := cleanPath(u.Path); p != "" {
		b.WriteString((&url.URL{Path: p}).EscapedPath())
	}
	if q := cleanQuery(u.RawQuery); q != "" {
		b.WriteByte('?')
		b.WriteString(q)
	}
	return b.String(), true
}

// Host returns a host name as URL keeps it: lower case, no port, no
// trailing dot, and no leading "www." or "m." label. It accepts a bare
// domain ("WWW.Shop.example") as well as a URL's host ("shop.example:443").
// It returns "" for a name that is not a host.
func Host(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if host, _, err := net.SplitHostPort(h); err == nil {
		h = host
	}
	h = strings.Trim(h, "[]")
	h = strings.TrimSuffix(h, ".")
	for _, prefix := range []string{"www.", "m."} {
		if rest, ok := strings.CutPrefix(h, prefix); ok && strings.Contains(rest, ".") {
			h = rest
			break
		}
	}
	if !validHost(h) {
		return ""
	}
	return h
}

// validHost accepts an IP address or dot-separated non-empty labels of
// letters (any script, for international names), digits, '-' and '_'.
func validHost(h string) bool {
	if net.ParseIP(h) != nil {
		return true
	}
	if h == "" || len(h) > 253 {
		return false
	}
	for _, label := range strings.Split(h, ".") {
		if label == "" {
			return false
		}
		for _, r := range label {
			if !(r == '-' || r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
				return false
			}
		}
	}
	return true
}

// cleanPath removes dot segments, repeated slashes and the trailing slash;
// the root is empty.
func cleanPath(p string) string {
	if p == "" || p == "/" {
		return ""
	}
	c := path.Clean("/" + p)
	if c == "/" {
		return ""
	}
	return c
}

// cleanQuery drops tracking parameters and sorts the rest by name, then by
// value, so that parameter order does not matter.
func cleanQuery(raw string) string {
	if raw == "" {
		return ""
	}
	vals, err := url.ParseQuery(raw)
	if err != nil {
		// A malformed pair is dropped by ParseQuery; the rest still counts.
		vals, _ = url.ParseQuery(strings.ReplaceAll(raw, ";", "&"))
	}
	for name := range vals {
		if Tracking(name) {
			delete(vals, name)
			continue
		}
		sort.Strings(vals[name])
	}
	return vals.Encode() // sorted by name
}

// trackingParams are query parameters that only say where a visitor came
// from: ad click ids and campaign tags of the major ad, mail and analytics
// platforms. They never select a product.
var trackingParams = map[string]bool{
	"gclid": true, "gclsrc": true, "dclid": true, "gbraid": true, "wbraid": true, "gad_source": true,
	"srsltid": true, // Google Shopping
	"fbclid":  true, "igshid": true, "msclkid": true, "yclid": true, "ttclid": true, "twclid": true,
	"li_fat_id": true, "epik": true, "scid": true, "sccid": true,
	"mc_cid": true, "mc_eid": true, "_hsenc": true, "_hsmi": true, "mkt_tok": true, "vero_id": true,
	"oly_anon_id": true, "oly_enc_id": true, "rb_clickid": true, "s_kwcid": true, "ef_id": true,
	"_ga": true, "_gl": true, "_ke": true, "_kx": true, "trk": true, "affiliate_id": true, "aff_id": true,
}

// trackingPrefixes are families of campaign parameters: Google Analytics,
// Matomo/Piwik, HubSpot ads and Adobe.
var trackingPrefixes = []string{"utm_", "mtm_", "pk_", "piwik_", "hsa_", "matomo_"}

// Tracking reports whether a query parameter only tracks the visitor.
func Tracking(name string) bool {
	n := strings.ToLower(name)
	if trackingParams[n] {
		return true
	}
	for _, p := range trackingPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}
