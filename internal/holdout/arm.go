package holdout

import "hash/fnv"

// The arms of a brand's holdout experiment (docs/dashboard.md, Lift). A
// session in ArmHeldOut never sees the widget, so the two arms compare
// shoppers with and without it. A brand holds out at most svc.MaxHoldout
// percent of its sessions.
const (
	ArmShown   = "shown"
	ArmHeldOut = "held_out"
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

// ArmOf returns the arm of a session under a holdout of percent:
// ArmHeldOut when its bucket is below percent, else ArmShown. A view
// without a session id belongs to no arm: "". A view or an add-to-cart
// takes its arm as it arrives (internal/collect): a later change of the
// holdout does not move past events between arms.
func ArmOf(sessionID string, percent int) string {
	switch {
	case sessionID == "":
		return ""
	case SessionBucket(sessionID) < percent:
		return ArmHeldOut
	}
	return ArmShown
}
