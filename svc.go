// Package svc holds the domain of the social-proof service: brands, API keys,
// events, product proof, the errors every layer speaks, and the interfaces of
// the stores. Implementations live in internal/ subpackages; cmd/svc wires them.
package svc

import "time"

// Default windows of the product proof (docs/spec.md, Product proof).
const (
	DefaultViewWindow     = 60 * time.Minute
	DefaultPurchaseWindow = 24 * time.Hour

	// MaxViewWindow and MaxPurchaseWindow bound the windows a caller may ask
	// for (docs/decisions.md, Product proof); the window engine keeps this much history in memory.
	MaxViewWindow     = 7 * 24 * time.Hour
	MaxPurchaseWindow = 30 * 24 * time.Hour

	// DefaultRetention is how long raw events are kept in the store.
	DefaultRetention = 35 * 24 * time.Hour

	// ClockSkew is how far an event's timestamp may lie from the receive time:
	// keyed events may not be further in the future, anonymous events further
	// away either way get the receive time instead.
	ClockSkew = 5 * time.Minute

	// IdempotencyTTL is how long an Idempotency-Key is remembered.
	IdempotencyTTL = 24 * time.Hour
)
