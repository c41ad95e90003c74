package svc

import (
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// MaxCityLen bounds a purchase's context.city.
const MaxCityLen = 100

// city checks a city name: 1 to MaxCityLen characters, no control
// characters, not blank.
func (fe *fieldErrors) city(field string, v *string) {
	switch {
	case v == nil:
	case strings.TrimSpace(*v) == "" || utf8.RuneCountInString(*v) > MaxCityLen:
		fe.add(field, "must be 1 to %d characters, not blank", MaxCityLen)
	case !utf8.ValidString(*v):
		fe.add(field, "must be valid UTF-8")
	case hasControl(*v):
		fe.add(field, controlMessage)
	}
}

// RecentSettings are a brand's privacy rules for its recent purchases
// feed (docs/honesty.md). A zero field means its default.
type RecentSettings struct {
	// Delay is how old a purchase must be before it may be shown.
	Delay time.Duration
	// Window is how far back the feed looks: nothing older is ever shown.
	Window time.Duration
	// MaxItems is the most items one answer holds.
	MaxItems int
	// K is how many purchases in the window must share a city before it
	// is shown, or a country before it is shown alone.
	K int
}

// Defaults and bounds of the recent purchases feed's settings.
const (
	DefaultRecentDelay    = 5 * time.Minute
	DefaultRecentWindow   = 24 * time.Hour
	DefaultRecentMaxItems = 10
	DefaultRecentK        = 3
	MaxRecentDelay        = 24 * time.Hour
	MaxRecentWindow       = 7 * 24 * time.Hour
	MaxRecentItems        = 50
	MinRecentK            = 2 // one purchase alone would name its buyer's city
	MaxRecentK            = 1000
)

// Stored returns the settings with defaults for those never set.
func (s RecentSettings) Stored() RecentSettings {
	if s.Delay == 0 {
		s.Delay = DefaultRecentDelay
	}
	if s.Window == 0 {
		s.Window = DefaultRecentWindow
	}
	if s.MaxItems == 0 {
		s.MaxItems = DefaultRecentMaxItems
	}
	if s.K == 0 {
		s.K = DefaultRecentK
	}
	return s
}

// validate returns the bad settings, as fields of the brand. Zero fields
// are unset and take their defaults.
func (s RecentSettings) validate() []FieldError {
	var fe fieldErrors
	s = s.Stored()
	if s.Delay < time.Minute || s.Delay > MaxRecentDelay || s.Delay%time.Minute != 0 {
		fe.add("recent_delay", "must be whole minutes from 1m to %s", FormatDuration(MaxRecentDelay))
	}
	if s.Window < time.Hour || s.Window > MaxRecentWindow || s.Window%time.Minute != 0 {
		fe.add("recent_window", "must be whole minutes from 1h to %s (7 days)", FormatDuration(MaxRecentWindow))
	} else if s.Delay >= s.Window {
		fe.add("recent_delay", "must be shorter than the window, %s", FormatDuration(s.Window))
	}
	if s.MaxItems < 1 || s.MaxItems > MaxRecentItems {
		fe.add("recent_max", "must be from 1 to %d", MaxRecentItems)
	}
	if s.K < MinRecentK || s.K > MaxRecentK {
		fe.add("recent_k", "must be from %d to %d", MinRecentK, MaxRecentK)
	}
	return fe
}

// RecentQuery asks for a brand's recent purchases, of one product or all.
type RecentQuery struct {
	BrandID   string
	ProductID string // "" for every product of the brand
}

// RecentItem is one purchase in the feed: never a name, an email, a
// session or an order id, and a time only as whole minutes ago.
type RecentItem struct {
	ProductID  string
	Title      *string
	URL        *string
	Country    string // "" when the place is withheld
	City       string // "" when only the country, or nothing, is shown
	MinutesAgo int
}

// Place returns the item's place as the answer shows it, nil when
// withheld.
func (it *RecentItem) Place() map[string]string {
	switch {
	case it.Country == "":
		return nil
	case it.City == "":
		return map[string]string{"country": it.Country}
	}
	return map[string]string{"country": it.Country, "city": it.City}
}

// String describes the item for logs and tests.
func (it RecentItem) String() string {
	return fmt.Sprintf("%s %s/%s %dmin", it.ProductID, it.Country, it.City, it.MinutesAgo)
}

// RecentPurchase is one product of a stored order, as the recent
// purchases feed needs it.
type RecentPurchase struct {
	BrandID string
	Order   string // the order's event id: what a cancellation names it by
	Product ProductRef
	Time    time.Time
	Units   int64
	Country string // "" when not given
	City    string
	Keyed   bool // the order's provenance: only keyed orders are shown
}
