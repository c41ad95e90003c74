package main

import (
	"flag"
	"fmt"
	"time"

	"github.com/svc-project/svc"
)

// recentFlags are the privacy rules of a brand's recent purchases feed, as
// brands add and brands set take them.
type recentFlags struct {
	delay, window time.Duration
	max, k        int
}

// recentFlagNames are the flags, and the brand fields they set.
var recentFlagNames = map[string]string{"recent_delay": "--recent-delay", "recent_window": "--recent-window",
	"recent_max": "--recent-max", "recent_k": "--recent-k"}

func addRecentFlags(fs *flag.FlagSet) *recentFlags {
	r := &recentFlags{}
	fs.DurationVar(&r.delay, "recent-delay", svc.DefaultRecentDelay, "how old a purchase must be before the recent purchases feed shows it (whole minutes, 1m to 24h)")
	fs.DurationVar(&r.window, "recent-window", svc.DefaultRecentWindow, "how far back the recent purchases feed looks; nothing older is shown (1h to 168h)")
	fs.IntVar(&r.max, "recent-max", svc.DefaultRecentMaxItems, fmt.Sprintf("most purchases the feed shows at once (1 to %d)", svc.MaxRecentItems))
	fs.IntVar(&r.k, "recent-k", svc.DefaultRecentK, fmt.Sprintf("orders in the window that must share a city (or country) before the feed shows it (%d to %d)", svc.MinRecentK, svc.MaxRecentK))
	return r
}

// apply sets the rules given, all of them when set is nil. A zero means
// "the default" to svc.RecentSettings; given on the command line it is
// refused, as out of range, rather than taken for the default.
func (r *recentFlags) apply(b *svc.Brand, set map[string]bool) {
	if set == nil || set["recent-delay"] {
		b.Recent.Delay = nonZero(r.delay)
	}
	if set == nil || set["recent-window"] {
		b.Recent.Window = nonZero(r.window)
	}
	if set == nil || set["recent-max"] {
		b.Recent.MaxItems = nonZero(r.max)
	}
	if set == nil || set["recent-k"] {
		b.Recent.K = nonZero(r.k)
	}
}

func nonZero[T int | time.Duration](v T) T {
	if v == 0 {
		return -1
	}
	return v
}

func recentGiven(set map[string]bool) bool {
	return set["recent-delay"] || set["recent-window"] || set["recent-max"] || set["recent-k"]
}

// recentInfo is how the admin commands print the rules.
type recentInfo struct {
	DelayMinutes  int `json:"delay_minutes"`
	WindowMinutes int `json:"window_minutes"`
	MaxItems      int `json:"max_items"`
	K             int `json:"k"`
}

func recentInfoOf(b *svc.Brand) recentInfo {
	s := b.Recent.Stored()
	return recentInfo{int(s.Delay / time.Minute), int(s.Window / time.Minute), s.MaxItems, s.K}
}

func (r recentInfo) String() string {
	return fmt.Sprintf("recent feed: delay %dm, window %dm, max %d, k %d", r.DelayMinutes, r.WindowMinutes, r.MaxItems, r.K)
}
