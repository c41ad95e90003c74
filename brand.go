package svc

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"
	"net"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxHoldout is the largest share of sessions, in percent, a brand may
// hold out of the widget (Brand.Holdout): beyond half, the widget would be
// the exception.
const MaxHoldout = 50

// Brand is a merchant whose products svc counts.
type Brand struct {
	ID   string
	Name string
	// Domains are the host names the brand's pages live on. An anonymous
	// browser request is accepted only from one of them or a subdomain.
	Domains []string
	// RequireKey refuses every request without a valid key of the brand.
	RequireKey bool
	// ClosedCatalog accepts anonymous events only for products that exist.
	ClosedCatalog bool
	// MinViewers and MinPurchases are the honesty thresholds: counts below
	// them are not shown to shoppers (docs/decisions.md, Honesty).
	MinViewers   int
	MinPurchases int
	// Holdout is the percent of sessions, 0 to MaxHoldout, that never see
	// the widget, so that its lift can be measured (internal/holdout).
	Holdout int
	// WidgetVariant is the widget's parts the brand chose (WidgetVariants,
	// separated by spaces); "" leaves the script's default.
	WidgetVariant string
	// WidgetPosition is the corner of the badge and toasts, one of
	// WidgetPositions; "" is "start".
	WidgetPosition string
	// Languages are the widget's languages (WidgetLanguages, separated by
	// commas, first the fallback); "" is all of them.
	Languages string
	// Widget are the rest of the widget's settings: its font, the carts
	// line's threshold.
	Widget WidgetSettings
	// Recent are the privacy rules of the brand's recent purchases feed.
	Recent    RecentSettings
	CreatedAt time.Time
}

// Default honesty thresholds of a brand.
const (
	DefaultMinViewers   = 3
	DefaultMinPurchases = 1
)

// AllowsOrigin reports whether a browser request with the Origin header
// origin may act for the brand without a key. The port does not matter.
// Only a web page is the brand's site: an origin of another scheme
// (chrome-extension://, ftp://) or one that is not a bare scheme://host[:port]
// never is.
func (b *Brand) AllowsOrigin(origin string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") ||
		u.User != nil || u.Path != "" || u.RawQuery != "" || u.ForceQuery || u.Fragment != "" {
		return false
	}
	host := strings.TrimSuffix(strings.ToLower(u.Hostname()), ".")
	for _, d := range b.Domains {
		if host == d || strings.HasSuffix(host, "."+d) {
			return true
		}
	}
	return false
}

// Validate checks a brand an operator gives before it is stored, and puts
// its name and domains in the form stored: the name trimmed, each domain as
// NormalizeDomain returns it. It returns an EINVALID error naming every bad
// field: a name is required, each domain must be a host name, and the
// thresholds must be at least 1 (Stored fills in only thresholds never set).
func (b *Brand) Validate() error {
	var fields []FieldError
	b.Name = strings.TrimSpace(b.Name)
	if b.Name == "" {
		fields = append(fields, FieldError{Field: "name", Message: "is required"})
	}
	for i, d := range b.Domains {
		n, ok := NormalizeDomain(d)
		if !ok {
			fields = append(fields, FieldError{Field: fmt.Sprintf("domains[%d]", i), Message: fmt.Sprintf("%q is not a host name such as shop.example", d)})
			continue
		}
		b.Domains[i] = n
	}
	if b.MinViewers < 1 {
		fields = append(fields, FieldError{Field: "min_viewers", Message: "must be at least 1"})
	}
	if b.MinPurchases < 1 {
		fields = append(fields, FieldError{Field: "min_purchases", Message: "must be at least 1"})
	}
	if !ValidWidgetVariant(b.WidgetVariant) {
		fields = append(fields, FieldError{Field: "widget_variant", Message: "must be parts among " + strings.Join(WidgetVariants, ", ") + ", separated by spaces"})
	}
	if !ValidWidgetPosition(b.WidgetPosition) {
		fields = append(fields, FieldError{Field: "widget_position", Message: "must be " + strings.Join(WidgetPositions, " or ")})
	}
	if !ValidWidgetLanguages(b.Languages) {
		fields = append(fields, FieldError{Field: "languages", Message: "must be languages among " + strings.Join(WidgetLanguages, ", ") + ", each once, separated by commas"})
	}
	if b.Holdout < 0 || b.Holdout > MaxHoldout {
		fields = append(fields, FieldError{Field: "holdout", Message: fmt.Sprintf("must be a whole percent from 0 to %d", MaxHoldout)})
	}
	fields = append(fields, b.Recent.validate()...)
	b.Widget.Accent = strings.ToLower(strings.TrimSpace(b.Widget.Accent)) // as a colour input writes it
	fields = append(fields, b.Widget.validate()...)
	if len(fields) > 0 {
		return Invalid(fields)
	}
	return nil
}

// NormalizeDomain checks a host name given for a brand and returns it in the
// form AllowsOrigin compares: lower case, no trailing dot, no scheme or port.
func NormalizeDomain(s string) (string, bool) {
	d := strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), ".")
	if d == "" || len(d) > 253 || strings.ContainsAny(d, "/:@?# ") {
		return "", false
	}
	if net.ParseIP(d) != nil {
		return d, true
	}
	for _, label := range strings.Split(d, ".") {
		if label == "" || len(label) > 63 || strings.HasPrefix(label, "-") || strings.HasSuffix(label, "-") {
			return "", false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
				return "", false
			}
		}
	}
	return d, true
}

// APIKey is a brand's secret. Only its SHA-256 hash is stored: the secret
// has 256 random bits, so a fast hash is as safe as a slow one here and
// keeps the lookup on every request cheap.
type APIKey struct {
	Hash    [32]byte
	Prefix  string // the first characters of the secret, to name it in lists and revocations
	BrandID string
	// Label says what the key is for ("shop server", "Shopify import"),
	// as its owner wrote it when creating it (SetLabel); "" for none.
	Label     string
	CreatedAt time.Time
	RevokedAt *time.Time
	// LastUsedAt is when a request last came with the key, to within
	// KeyUseFlush (its store is written at most that often); zero: never.
	LastUsedAt time.Time
}

// MaxKeyLabel bounds a key's label, in characters.
const MaxKeyLabel = 100

// KeyUseFlush is how often a server writes its keys' last use to the
// store: a key's "last used" is at most this much behind, and a request
// costs no write.
const KeyUseFlush = time.Minute

// SetLabel checks a key's label and keeps it trimmed: at most MaxKeyLabel
// characters of one line. Returns EINVALID naming the field "label".
func (k *APIKey) SetLabel(label string) error {
	label = strings.TrimSpace(label)
	switch {
	case !utf8.ValidString(label):
		return Invalid([]FieldError{{Field: "label", Message: "must be valid UTF-8"}})
	case utf8.RuneCountInString(label) > MaxKeyLabel:
		return Invalid([]FieldError{{Field: "label", Message: fmt.Sprintf("must be at most %d characters", MaxKeyLabel)}})
	case hasControl(label):
		return Invalid([]FieldError{{Field: "label", Message: controlMessage}})
	}
	k.Label = label
	return nil
}

// KeyUse is a key's latest use a server saw, for BrandStore.TouchAPIKeys.
type KeyUse struct {
	Hash [32]byte
	At   time.Time
}

const (
	brandIDPrefix = "br_"
	apiKeyPrefix  = "sk_"
	// KeyPrefixLen is how many characters of a secret are kept in the clear.
	KeyPrefixLen = len(apiKeyPrefix) + 8
)

// NewBrandID returns a fresh random brand identifier such as "br_4fT0q9ZxL2mA".
func NewBrandID() string { return brandIDPrefix + randomBase62(12) }

// NewAPIKey returns a new secret for the brand and the key record to store.
func NewAPIKey(brandID string, now time.Time) (secret string, key *APIKey) {
	secret = apiKeyPrefix + randomBase62(43) // 43 base62 characters carry 256 bits
	return secret, &APIKey{
		Hash:      HashAPIKey(secret),
		Prefix:    secret[:KeyPrefixLen],
		BrandID:   brandID,
		CreatedAt: now.UTC(),
	}
}

// HashAPIKey returns the hash under which a secret is stored and looked up.
func HashAPIKey(secret string) [32]byte { return sha256.Sum256([]byte(secret)) }

const base62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"

// randomBase62 draws n characters uniformly from crypto/rand, rejecting the
// bytes that would bias the modulo.
func randomBase62(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, n+n/2)
	for len(out) < n {
		_, _ = rand.Read(buf) // never fails (crypto/rand documents it)
		for _, b := range buf {
			if b < 248 && len(out) < n { // 248 = 4*62
				out = append(out, base62[b%62])
			}
		}
	}
	return string(out)
}

// CheckRevocation refuses a revocation by a prefix shorter than
// KeyPrefixLen, which could name keys the operator did not mean.
func CheckRevocation(brandID, secretOrPrefix string) error {
	if len(secretOrPrefix) < KeyPrefixLen {
		return Errorf(ENOTFOUND, "no active key of brand %q matches %q: give the whole key or its %d-character prefix", brandID, secretOrPrefix, KeyPrefixLen)
	}
	return nil
}

// KeyToRevoke picks, among a brand's active keys whose hash or prefix
// matched secretOrPrefix, the one to revoke: the key whose secret it is, or
// the only one with the prefix. ENOTFOUND without a match, ECONFLICT when a
// prefix names several keys.
func KeyToRevoke(matches []*APIKey, brandID, secretOrPrefix string) (*APIKey, error) {
	hash := HashAPIKey(secretOrPrefix)
	for _, k := range matches {
		if k.Hash == hash {
			return k, nil
		}
	}
	switch {
	case len(matches) == 0:
		return nil, Errorf(ENOTFOUND, "no active key of brand %q matches %q", brandID, secretOrPrefix)
	case len(matches) > 1:
		return nil, Errorf(ECONFLICT, "%d keys of brand %q start with %q: give more of the key", len(matches), brandID, secretOrPrefix)
	}
	return matches[0], nil
}

// Stored returns the brand as a store keeps it: domains an empty list
// rather than none, and unset thresholds at their defaults.
func (b *Brand) Stored() Brand {
	out := *b
	if out.Domains == nil {
		out.Domains = []string{}
	}
	if out.MinViewers <= 0 {
		out.MinViewers = DefaultMinViewers
	}
	if out.MinPurchases <= 0 {
		out.MinPurchases = DefaultMinPurchases
	}
	out.Recent = out.Recent.Stored()
	out.Widget = out.Widget.Stored()
	return out
}
