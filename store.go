package svc

import (
	"context"
	"time"
)

// BrandStore keeps brands and their API keys. Every change bumps a version
// that servers poll, so that admin commands run beside a server take effect
// within a second.
type BrandStore interface {
	// CreateBrand stores a new brand and, if key is not nil, its first key,
	// in one transaction. Returns ECONFLICT if the brand's id is taken.
	CreateBrand(ctx context.Context, b *Brand, key *APIKey) error
	// Brand returns one brand. Returns ENOTFOUND if there is none with the id.
	Brand(ctx context.Context, id string) (*Brand, error)
	// Brands returns every brand, oldest first.
	Brands(ctx context.Context) ([]*Brand, error)
	// UpdateBrand replaces the name, domains, flags and thresholds of the
	// brand with b.ID (its creation time stays). Returns ENOTFOUND if there
	// is none.
	UpdateBrand(ctx context.Context, b *Brand) error
	// CreateAPIKey stores a key. Returns ENOTFOUND if its brand does not exist.
	CreateAPIKey(ctx context.Context, k *APIKey) error
	// RevokeAPIKey revokes the brand's key whose secret or whole prefix (as
	// APIKey.Prefix) is given. Returns ENOTFOUND if no active key of the brand
	// matches, and ECONFLICT if a prefix matches more than one.
	RevokeAPIKey(ctx context.Context, brandID, secretOrPrefix string, at time.Time) (*APIKey, error)
	// APIKeys returns every key, revoked ones included.
	APIKeys(ctx context.Context) ([]*APIKey, error)
	// TouchAPIKeys records when keys were last used: each key's LastUsedAt
	// becomes the later of the stored one and the use's. Unknown hashes are
	// ignored. It does not change ConfigVersion: servers flush uses every
	// KeyUseFlush, and a use is not a change of configuration.
	TouchAPIKeys(ctx context.Context, uses []KeyUse) error
	// ConfigVersion returns a number that changes whenever a brand or key does.
	ConfigVersion(ctx context.Context) (int64, error)
	// The brands' webhook secrets (webhook.go).
	WebhookSecretStore
}

// ProductRef identifies a product inside a store: a compact number the
// window engine keys its counts by.
type ProductRef int64

// Product is a product as the store knows it: registered by the first event
// that names it, with the latest attributes seen.
type Product struct {
	Ref       ProductRef
	BrandID   string
	ProductID string
	SKU       *string
	Title     *string
	URL       *string
	GTIN      *string // GTIN-14 (GTIN14)
	MPN       *string
	Maker     *string // the maker's name, an event's product brand
	// Verified are the attributes a keyed event set (provenance.go): the
	// others are provisional, from anonymous events, and shown to no
	// shopper and no other brand.
	Verified Attrs
	// Names are the names registered for the product (names.go), as
	// Products and a ChangeFeed's Changes give them; nil elsewhere.
	Names []string
}

// Write is one event to append, with what the store answers about it.
type Write struct {
	View     *ViewEvent     // exactly one of View, Purchase and Cart is set
	Purchase *PurchaseEvent //
	Cart     *CartEvent     //
	// IdempotencyKey, if set, makes a repeat of the key for the brand, the
	// same endpoint and the same kind of sender (keyed or not) within
	// IdempotencyTTL answer the first result again; with another BodyHash
	// the repeat is refused with ECONFLICT.
	IdempotencyKey string
	BodyHash       [32]byte
	// MayRegister lets the event create the products it names and update
	// their attributes. False for anonymous events to a brand with a closed
	// catalog: they count for known products and change nothing about them.
	MayRegister bool

	Result WriteResult // set by Append
}

// Write statuses.
const (
	StatusAccepted  = "accepted"  // stored and counted
	StatusDuplicate = "duplicate" // an order already stored: counted once, before
)

// WriteResult is the outcome of one Write.
type WriteResult struct {
	// Err is ENOTFOUND when a product is unknown and may not be registered,
	// ECONFLICT when an idempotency key is reused with another body, or
	// EINTERNAL when the write failed on its own; nothing of the write was
	// stored, and the rest of the batch was.
	Err     error
	Status  string
	EventID string // of this event, or of the first one for a duplicate or replay
	Replay  bool   // the idempotency key was seen: Status and EventID are the first answer's
	// Lines are the products of the event and their units (1 for a view), set
	// when Status is accepted and not a replay: what the window engine adds.
	Lines []Line
	// Names are the names the write registered for its products, and
	// NameConflicts the ones it gave that belong to other products
	// (names.go).
	Names         []Name
	NameConflicts []NameConflict
}

// Line is one product of an accepted event.
type Line struct {
	Product   ProductRef
	ProductID string
	Units     int64
}

// EventStore keeps events durably and hands them back to rebuild counts.
type EventStore interface {
	// Append writes a batch of events in one transaction that is durable
	// when Append returns nil; each Write's Result says what became of it.
	// A non-nil error means nothing of the batch was stored.
	Append(ctx context.Context, batch []*Write) error
	// EnsureProduct registers a product if it does not exist and returns it.
	// Returns ENOTFOUND if the brand does not exist.
	EnsureProduct(ctx context.Context, p *Product) (*Product, error)
	// Products calls fn for every product.
	Products(ctx context.Context, fn func(*Product) error) error
	// Views calls fn for every view at or after since, oldest first.
	Views(ctx context.Context, since time.Time, fn func(ViewRecord) error) error
	// PurchaseLines calls fn for each product of every order at or after
	// since, oldest first.
	PurchaseLines(ctx context.Context, since time.Time, fn func(PurchaseRecord) error) error
	// Carts calls fn for every add-to-cart at or after since, oldest first.
	Carts(ctx context.Context, since time.Time, fn func(CartRecord) error) error
	// RecentPurchases calls fn for each product of every order at or
	// after since, oldest first, with where the order goes.
	RecentPurchases(ctx context.Context, since time.Time, fn func(RecentPurchase) error) error
	// DeleteExpired deletes at most limit events older than before and
	// idempotency keys older than IdempotencyTTL before now; it returns how
	// many rows it deleted, so that a caller deletes in small batches.
	DeleteExpired(ctx context.Context, before, now time.Time, limit int) (int64, error)
	// ExportEvents calls fn for every stored event of the brand: views, then
	// orders, then add-to-carts, each oldest first, with Meta filled in. A view's product
	// carries the product's latest sku, title and url. Returns ENOTFOUND if
	// the brand does not exist.
	ExportEvents(ctx context.Context, brandID string, fn func(ExportedEvent) error) error
	// ForgetSession deletes every view, order and add-to-cart of the brand that carries
	// the session id, bumps the erasure version in the same transaction
	// when it deleted anything, and returns how many events it deleted.
	ForgetSession(ctx context.Context, brandID, sessionID string) (int64, error)
	// CancelOrder takes a cancellation's units out of the stored orders
	// of its brand with its order id, by the rules of svc.CancelOrder, in
	// one transaction that is durable when it returns nil; c.Result says
	// what became of it.
	CancelOrder(ctx context.Context, c *CancelEvent) error
	// ErasureVersion returns a number that changes whenever events are
	// erased, or when an expiry removes a table's newest rows and a store
	// that numbers its rows may reuse their positions; servers poll it and
	// recount.
	ErasureVersion(ctx context.Context) (int64, error)
	// Ping checks that the store answers.
	Ping(ctx context.Context) error
	// CheckWrite commits a transaction that writes and changes nothing
	// that is read, to tell whether the store can write again after
	// commits failed (a full disk, a read-only database).
	CheckWrite(ctx context.Context) error
}

// ViewRecord is a stored view, as the window engine needs it.
type ViewRecord struct {
	Product   ProductRef
	Time      time.Time
	SessionID string
}

// CountedView is a stored view as a replay counts it (ViewCounter).
type CountedView struct {
	Product   ProductRef
	UnixMilli int64  // its time, in milliseconds since 1970
	Session   uint64 // its session under the counting engine's hash, 0 for none
}

// ViewCounter is implemented by an EventReader that hands its views over
// as a replay counts them: a start replays tens of millions, and their
// session ids as strings, each hashed once read, were most of the garbage
// of a replay and a good part of its time.
type ViewCounter interface {
	// CountedViews calls fn with every view at or after since, in the
	// order of Views, a batch at a time; fn must not keep the slice. A
	// view's Session is hash of its session id's bytes, which hash must
	// not keep (0 for none, and hash returns 0 for no bytes); hash is
	// called once for each distinct session of a stored block.
	CountedViews(ctx context.Context, since time.Time, hash func(session []byte) uint64, fn func([]CountedView) error) error
}

// PurchaseRecord is one product of a stored order.
type PurchaseRecord struct {
	Product ProductRef
	Time    time.Time
	Units   int64
	// Currency is the order's, "" when not given. UnitPrice is the
	// quantity-weighted mean unit price of the product's lines, nil unless
	// every such line has one.
	Currency  string
	UnitPrice *float64
}

// ExportedEvent is one stored event: exactly one of View, Purchase and
// Cart is set.
type ExportedEvent struct {
	View     *ViewEvent
	Purchase *PurchaseEvent
	Cart     *CartEvent
}

// Store is everything svc keeps.
type Store interface {
	BrandStore
	EventStore
	SigningKeyStore
	DashboardStore
	SettingStore
	NameStore
	Close() error
}

// EventReader is what a server reads to rebuild its counts.
type EventReader interface {
	Products(ctx context.Context, fn func(*Product) error) error
	Views(ctx context.Context, since time.Time, fn func(ViewRecord) error) error
	PurchaseLines(ctx context.Context, since time.Time, fn func(PurchaseRecord) error) error
	Carts(ctx context.Context, since time.Time, fn func(CartRecord) error) error
	RecentPurchases(ctx context.Context, since time.Time, fn func(RecentPurchase) error) error
}

// EventLog is implemented by a store whose events are numbered in the order
// they commit, so that a server can save its counts with the position they
// reflect and, at start, read only what committed after it. The embedded
// store has one. A shared store need not: its nodes rebuild from the store
// (see ChangeFeed).
type EventLog interface {
	// LogPosition returns the position of the newest committed view and
	// order. Read while no append commits, it is exactly what has
	// committed; a store that is also a ChangeFeed, once followed, returns
	// the position of the feed's last read, which is what the follower's
	// counts hold.
	LogPosition(ctx context.Context) (LogPosition, error)
	// Continues reports whether every event committed since p was read has
	// a larger position than p. It is false when the newest rows p names
	// are gone (expired or erased), after which a store may reuse their
	// positions; the caller then reads everything again.
	Continues(ctx context.Context, p LogPosition) (bool, error)
	// ViewsAfter calls fn for every view with a position after the given
	// one and a time at or after since, in position order.
	ViewsAfter(ctx context.Context, after int64, since time.Time, fn func(pos int64, r ViewRecord) error) error
	// PurchaseLinesAfter calls fn for each product of every order with a
	// position after the given one and a time at or after since, in
	// position order.
	PurchaseLinesAfter(ctx context.Context, after int64, since time.Time, fn func(pos int64, r PurchaseRecord) error) error
	// CancelsAfter calls fn for what every cancellation with a position
	// after the given one took out of an order at or after since, in
	// position order. Cancellation positions are never reused.
	CancelsAfter(ctx context.Context, after int64, since time.Time, fn func(pos int64, r CancelRecord) error) error
	// RecentPurchasesAfter calls fn for each product of every order with
	// a position after the given one and a time at or after since, in
	// position order, as RecentPurchases reads them.
	RecentPurchasesAfter(ctx context.Context, after int64, since time.Time, fn func(pos int64, r RecentPurchase) error) error
}

// LogPosition is a point of an EventLog: the positions of the newest view
// and order, 0 when there is none, and their event ids, which tell the rows
// apart from any that might later take the same positions.
type LogPosition struct {
	Views, Orders         int64
	ViewEvent, OrderEvent string
	// Cancels is the position of the newest cancellation record, 0 when
	// there is none. An order's lines are read as they stand, its
	// cancellations taken out: what a count of an order after Orders
	// already lacks.
	Cancels int64
}

// ChangeFeed is implemented by a store that several servers share. Each
// server counts the events it commits itself; the feed hands it what the
// others committed, so that every server's counts follow the store.
type ChangeFeed interface {
	// ReadSnapshot calls fn with reads that all see the store as of one
	// moment, and returns a cursor for that moment.
	ReadSnapshot(ctx context.Context, fn func(EventReader) error) (FeedCursor, error)
	// Changes returns what committed after the cursor: products registered
	// or changed, and events appended through other Store values. Each
	// event comes once: what committed after one cursor comes with the
	// next cursor's changes, or with a later call's.
	Changes(ctx context.Context, after FeedCursor) (*Changes, error)
}

// FeedCursor marks a moment of a ChangeFeed.
type FeedCursor string

// Changes are what a ChangeFeed hands a server.
type Changes struct {
	Cursor   FeedCursor // to pass to the next call
	Products []*Product
	// Writes are accepted events as Append answered them: View, Purchase
	// or Cart with Meta and Result (Status, EventID, Lines) set. A view's product
	// carries the product's latest sku, title and url.
	Writes []*Write
	// Cancels are what other Store values' cancellations took out of
	// orders. The orders among Writes come as they were ordered, so that
	// every order and every cancellation counts once, whichever node
	// counted which first.
	Cancels []CancelRecord
}
