package svc

import (
	"hash/fnv"
	"slices"
	"strings"
)

// WidgetVariants are the parts of the widget a brand may choose
// (docs/client-script.md, Variants).
var WidgetVariants = []string{"inline", "now", "toasts", "carts"}

// ValidWidgetVariant reports whether v names only parts of WidgetVariants,
// each once, separated by single spaces; "" is the script's default.
func ValidWidgetVariant(v string) bool {
	seen := map[string]bool{}
	for _, p := range strings.Fields(v) {
		if !slices.Contains(WidgetVariants, p) || seen[p] {
			return false
		}
		seen[p] = true
	}
	return v == strings.Join(strings.Fields(v), " ")
}

// The arms of a brand's holdout experiment (docs/dashboard.md, Lift). A
// session in ArmHeldOut never sees the widget, so the two arms compare
// shoppers with and without it.
const (
	ArmShown   = "shown"
	ArmHeldOut = "held_out"
	// MaxHoldout is the largest share of sessions, in percent, a brand may
	// hold out: beyond half, the widget would be the exception.
	MaxHoldout = 50
)

// SessionBucket is the bucket, 0 to 99, of a session id: FNV-1a 32-bit of
// its UTF-8 bytes, mod 100. The client script computes the same number,
// so the server and the browser agree on a session's arm without asking
// each other.
func SessionBucket(sessionID string) int {
	h := fnv.New32a()
	_, _ = h.Write([]byte(sessionID)) // a hash never fails
	return int(h.Sum32() % 100)
}

// ArmOf returns the arm of a session under a holdout of holdout percent:
// ArmHeldOut when its bucket is below holdout, else ArmShown. A view
// without a session id belongs to no arm: "".
func ArmOf(sessionID string, holdout int) string {
	switch {
	case sessionID == "":
		return ""
	case SessionBucket(sessionID) < holdout:
		return ArmHeldOut
	}
	return ArmShown
}

// AssignArm records in a view or an add-to-cart the arm of its session
// under the brand's holdout, as it is when the event arrives: a later
// change of the holdout does not move past events between arms.
func (w *Write) AssignArm(holdout int) {
	switch {
	case w.View != nil && w.View.Context.SessionID != nil:
		w.View.Meta.Arm = ArmOf(*w.View.Context.SessionID, holdout)
	case w.Cart != nil && w.Cart.Context.SessionID != nil:
		w.Cart.Meta.Arm = ArmOf(*w.Cart.Context.SessionID, holdout)
	}
}
