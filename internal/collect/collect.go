// Package collect is the one path of an event into the counts: the checks
// of docs/decisions.md (Order of checks) in their order, for every entry
// point, the single collect endpoints, the batch, the shop platforms'
// webhooks and svc import; and cancellations, from the order-cancel
// endpoint and the webhooks, through the same checks (Pipeline.Cancel).
// An entry point decodes its input, proves its sender (the Source), and
// reports what became of each event in its own format; nothing else about
// an event is decided there.
package collect

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
	"github.com/svc-project/svc/internal/wire"
)

// Kind is the kind of sender an event comes from, which decides how far
// it is trusted.
type Kind int

const (
	// Browser is a sender without a key: a shopper's browser, or anyone.
	// It counts at the receive time, acts for a brand only from the
	// brand's origins, and never registers a closed catalog's products.
	Browser Kind = iota
	// Server is a brand's server, proved by the brand's API key.
	Server
	// Platform is a shop platform's webhook, proved by the brand's secret
	// for the platform: trusted as a key is, its brand settled by the
	// signature.
	Platform
	// History is svc import's past orders, the operator's: each keeps its
	// time, which it must have, and its kind of sender as recorded.
	History
)

// Source is who sent an event, as its entry point proved it.
type Source struct {
	Kind Kind
	// Key is a Server's valid key.
	Key *svc.APIKey
	// Origin is the Origin header a Browser sent, "" for none.
	Origin string
	// Bot is a Browser whose User-Agent is a known bot's: its events are
	// answered as accepted and never stored.
	Bot bool
	// Brand is the brand when the entry point settled it before the events
	// (a batch's key, a webhook's signature, the import's --brand): every
	// event must then name it. Nil for a Browser or Server: each event's
	// brand is authorized as it comes.
	Brand *svc.Brand
	// Sender is what the Budget knows the sender by (httpapi: the
	// request), handed back to it as it is.
	Sender any
}

func (s Source) keyed() bool { return s.Kind != Browser }

// history reports whether the source's events may be from the past:
// one older than the retention is skipped, not refused.
func (s Source) history() bool { return s.Kind == Platform || s.Kind == History }

// Event is one event on its way in, as its entry point decoded it.
type Event struct {
	Write *svc.Write // the event; its Result says what the store made of it
	// DecodeErrors are the fields of a wrong JSON type that decoding found,
	// reported with the event's own bad fields.
	DecodeErrors []svc.FieldError
	// IdempotencyKey is the key the sender gave, nil for none. KeyField
	// names it in a refusal ("Idempotency-Key", "idempotency_key"); with
	// no KeyField a key that is not valid is dropped unreported: the entry
	// point made it, the sender did not write it (a webhook's delivery id).
	IdempotencyKey *string
	KeyField       string
	// Hash is what the idempotency key keeps of the event (the SHA-256 of
	// its canonical JSON); called only for a valid key.
	Hash func() [32]byte

	// Set by the pipeline.

	// Ignored says why an accepted event was not stored: IgnoredBot or
	// IgnoredOld; "" for one that went on.
	Ignored string
	// RetryAfter is how long the sender should wait when the Budget
	// refused it (ERATELIMIT).
	RetryAfter time.Duration
	// Err is a batch event's refusal (CollectBatch).
	Err error
}

// Why an accepted event is not stored.
const (
	IgnoredBot = "bot" // a Browser on the bot list
	IgnoredOld = "old" // a Platform's or History's event older than the retention
)

// Core is what checked events go to: internal/tracker's Tracker.
type Core interface {
	// Collect stores and counts one checked event; see tracker.Collect
	// for the errors.
	Collect(w *svc.Write) error
	// CollectBatch stores and counts checked events in their order; see
	// tracker.CollectBatch.
	CollectBatch(ws []*svc.Write) error
	// Cancel takes a checked cancellation's purchases out of the store
	// and the counts; see tracker.Cancel.
	Cancel(ctx context.Context, c *svc.CancelEvent) error
}

// Budget is what anonymous events may create (docs/decisions.md, Abuse),
// kept by the entry point, which knows its senders.
type Budget interface {
	// OrderFields reports the lines and units of an anonymous order over
	// the budget, as bad fields.
	OrderFields(e *svc.PurchaseEvent) []svc.FieldError
	// TakeNewProducts charges sender for the products w would register
	// that are not known yet. Over the budget it charges nothing and
	// returns ERATELIMIT and how long to wait.
	TakeNewProducts(sender any, w *svc.Write, now time.Time) (retryAfter time.Duration, err error)
}

// Pipeline runs the checks. Its zero value is not usable: Now is needed,
// and Authorize for Browser and Server sources.
type Pipeline struct {
	Now       func() time.Time
	Retention time.Duration // how long events are kept: a keyed one older is refused
	// Authorize finds an event's brand for its key and origin
	// (auth.Cache.Authorize): EUNAUTHORIZED or ENOTFOUND.
	Authorize func(brandID string, key *svc.APIKey, origin string) (*svc.Brand, error)
	Budget    Budget // nil: no limit
	Core      Core   // nil for Check alone (svc import writes the store itself)
}

// Collect checks one event (Check) and hands it to the core; ev.Write's
// Result says what became of it, unless ev.Ignored says why it was not
// stored. It returns the refusal of a check or the core's error.
func (p *Pipeline) Collect(src Source, ev *Event) error {
	if err := p.Check(src, ev); err != nil || ev.Ignored != "" {
		return err
	}
	return p.Core.Collect(ev.Write)
}

// TooManyLines refuses a batch whose valid events have more order lines
// in all than the entry point takes.
type TooManyLines struct{ Lines, Max int }

func (e *TooManyLines) Error() string {
	return fmt.Sprintf("%d order lines, more than %d", e.Lines, e.Max)
}

// CollectBatch checks each event of a batch (Check), a refusal in its
// Err, and hands the others to the core in their order, each with its
// Result. It returns *TooManyLines when the valid events have more than
// maxLines order lines, or the core's error: nothing is stored then.
func (p *Pipeline) CollectBatch(src Source, evs []Event, maxLines int) error {
	writes := make([]*svc.Write, 0, len(evs))
	lines := 0
	for i := range evs {
		ev := &evs[i]
		if ev.Err = p.Check(src, ev); ev.Err != nil || ev.Ignored != "" {
			continue
		}
		writes = append(writes, ev.Write)
		if pu := ev.Write.Purchase; pu != nil {
			lines += len(pu.Order.Items)
		}
	}
	if lines > maxLines {
		return &TooManyLines{lines, maxLines}
	}
	return p.Core.CollectBatch(writes)
}

// Check runs an event through the checks that come before the store, in
// the order of docs/decisions.md (Order of checks), and leaves ev.Write
// ready for it. The entry point has read the body (step 1) and proved the
// key (step 2).
//
//  3. every bad field, in one refusal (EINVALID): the event's own, its
//     idempotency key, the time it counts at (stamped here), an anonymous
//     order's budget, a brand other than the Source's;
//     before them, an order from history older than the retention is
//     skipped (IgnoredOld), whatever else it holds;
//  4. the brand: the key's brand, require_key and the origin (Authorize);
//     a bot is answered here and never stored (IgnoredBot);
//  5. what the event may say and do: svc.Admit, whether it registers
//     products, its holdout arm, the new-product budget of an anonymous
//     one (ERATELIMIT), and its idempotency key;
//
// then the store (Collect, CollectBatch) decides replays, duplicates and
// closed catalogs.
func (p *Pipeline) Check(src Source, ev *Event) error {
	w := ev.Write
	brandID, meta := w.Event()
	ts := timestamp(w)
	now := p.Now()
	if src.history() && p.older(ts, now) {
		ev.Ignored = IgnoredOld
		return nil
	}

	// 3. Every bad field.
	fields := wire.Merge(ev.DecodeErrors, validate(w))
	fields = append(fields, checkKey(&ev.IdempotencyKey, ev.KeyField)...)
	if src.Kind == History {
		if len(fields) == 0 {
			if err := p.stampHistory(meta, ts, now); err != nil {
				return err
			}
		}
	} else {
		fields = append(fields, wire.Names(svc.Stamp(meta, ts, src.keyed(), now, p.Retention))...)
	}
	if pu := w.Purchase; pu != nil && !src.keyed() && p.Budget != nil {
		fields = append(fields, p.Budget.OrderFields(pu)...)
	}
	fields = append(fields, src.brandField(brandID, fields)...)
	if len(fields) > 0 {
		return svc.Invalid(fields)
	}

	// 4. The brand.
	brand := src.Brand
	if brand == nil && !src.history() {
		b, err := p.Authorize(brandID, src.Key, src.Origin)
		if err != nil {
			return err
		}
		brand = b
	}
	if src.Kind == Browser && src.Bot {
		ev.Ignored = IgnoredBot
		return nil
	}

	// 5. What it may say and do.
	if brand != nil { // a Platform's brand may have gone since its signature was checked
		svc.Admit(w, brand)
		assignArm(w, brand.Holdout)
	}
	w.MayRegister = src.keyed() || !brand.ClosedCatalog
	if !src.keyed() && w.MayRegister && p.Budget != nil {
		wait, err := p.Budget.TakeNewProducts(src.Sender, w, now)
		if err != nil {
			ev.RetryAfter = wait
			return err
		}
	}
	if k := ev.IdempotencyKey; k != nil {
		w.IdempotencyKey, w.BodyHash = *k, ev.Hash()
	}
	return nil
}

// checkKey is step 3 for an idempotency key: one that is not valid is a
// bad field named field, or, with no field (the entry point made the key,
// the sender did not write it), dropped unreported.
func checkKey(k **string, field string) []svc.FieldError {
	if *k == nil || **k != "" && ValidIdempotencyKey(**k) {
		return nil
	}
	if field == "" {
		*k = nil
		return nil
	}
	return []svc.FieldError{{Field: field, Message: "must be 1 to 255 printable ASCII characters"}}
}

// brandField is step 3 for a source whose brand is settled: an event of
// another brand is a bad brand_id, unless brand_id is bad already.
func (s Source) brandField(brandID string, fields []svc.FieldError) []svc.FieldError {
	if s.Brand == nil || brandID == s.Brand.ID || names(fields, "brand_id") {
		return nil
	}
	return []svc.FieldError{{Field: "brand_id", Message: "must be the brand of the API key"}}
}

// older reports whether a given time is older than the retention: an
// event that would be deleted at once.
func (p *Pipeline) older(ts *string, now time.Time) bool {
	if ts == nil {
		return false
	}
	t, err := time.Parse(time.RFC3339Nano, *ts)
	return err == nil && t.Before(now.Add(-p.Retention))
}

// stampHistory stamps a past order with its own time, which it must have
// (without one it would count as placed now), and gives it its id, as
// the core gives one to a live event.
func (p *Pipeline) stampHistory(meta *svc.EventMeta, ts *string, now time.Time) error {
	if ts == nil {
		return svc.Errorf(svc.EINVALID, "the order has no time: it would count as placed now")
	}
	t, _ := time.Parse(time.RFC3339Nano, *ts) // Validate checked it
	if t.After(now.Add(svc.ClockSkew)) {
		return svc.Errorf(svc.EINVALID, "the order's time is in the future")
	}
	id, err := uuid.NewV7()
	if err != nil {
		return err
	}
	*meta = svc.EventMeta{EventID: id.String(), Time: t.UTC(), ReceivedAt: now.UTC(), Keyed: meta.Keyed}
	return nil
}

// ValidIdempotencyKey reports whether k is 1 to 255 printable ASCII
// characters, as an idempotency key must be.
func ValidIdempotencyKey(k string) bool {
	if k == "" || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// validate is the event's own rules.
func validate(w *svc.Write) []svc.FieldError {
	switch {
	case w.View != nil:
		return w.View.Validate()
	case w.Cart != nil:
		return w.Cart.Validate()
	}
	return w.Purchase.Validate()
}

// timestamp is the time the sender gave the event, nil for none.
func timestamp(w *svc.Write) *string {
	switch {
	case w.View != nil:
		return w.View.Context.Timestamp
	case w.Cart != nil:
		return w.Cart.Context.Timestamp
	}
	return w.Purchase.Context.Timestamp
}

func names(fields []svc.FieldError, field string) bool {
	for _, f := range fields {
		if f.Field == field {
			return true
		}
	}
	return false
}

// assignArm records in a view or an add-to-cart the holdout arm of its
// session under the brand's holdout, as it is when the event arrives: a
// later change of the holdout does not move past events between arms. An
// order takes its session's arm in the rollups.
func assignArm(w *svc.Write, percent int) {
	switch {
	case w.View != nil && w.View.Context.SessionID != nil:
		w.View.Meta.Arm = holdout.ArmOf(*w.View.Context.SessionID, percent)
	case w.Cart != nil && w.Cart.Context.SessionID != nil:
		w.Cart.Meta.Arm = holdout.ArmOf(*w.Cart.Context.SessionID, percent)
	}
}
