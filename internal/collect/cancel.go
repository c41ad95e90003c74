package collect

import (
	"context"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/wire"
)

// Cancellation is a cancellation, or a refund of some units, on its way
// in, as its entry point decoded it. Its fields work as an Event's.
type Cancellation struct {
	Cancel *svc.CancelEvent // its Result says what the store made of it
	// DecodeErrors are the fields of a wrong JSON type that decoding found.
	DecodeErrors []svc.FieldError
	// IdempotencyKey is the key the sender gave, nil for none, named
	// KeyField in a refusal, or dropped unreported with no KeyField.
	IdempotencyKey *string
	KeyField       string
	// Hash is what the idempotency key keeps of the cancellation; called
	// only for a valid key.
	Hash func() [32]byte
}

// Cancel runs a cancellation through the checks of every event, in the
// order of docs/decisions.md (Order of checks), and hands it to the core,
// which takes its purchases out of the store and the counts. It returns
// the refusal of a check or the core's error.
//
//  3. every bad field, in one refusal (EINVALID): the cancellation's own,
//     its idempotency key, a brand other than the Source's;
//  4. the brand: a Browser may not take purchases out of the counts
//     (EUNAUTHORIZED); a Server's key must be the brand's (Authorize);
//  5. its idempotency key;
//
// then the store decides replays and what the order still holds.
func (p *Pipeline) Cancel(ctx context.Context, src Source, c *Cancellation) error {
	ce := c.Cancel

	// 3. Every bad field.
	fields := wire.Merge(c.DecodeErrors, ce.Validate())
	fields = append(fields, checkKey(&c.IdempotencyKey, c.KeyField)...)
	fields = append(fields, src.brandField(ce.BrandID, fields)...)
	if len(fields) > 0 {
		return svc.Invalid(fields)
	}

	// 4. The brand.
	switch {
	case src.Kind == Browser:
		return svc.Errorf(svc.EUNAUTHORIZED, "only a brand's server or its shop platform may cancel an order")
	case src.Brand == nil && !src.history():
		if _, err := p.Authorize(ce.BrandID, src.Key, src.Origin); err != nil {
			return err
		}
	}

	// 5. What it may do: its idempotency key.
	if k := c.IdempotencyKey; k != nil {
		ce.IdempotencyKey, ce.BodyHash = *k, c.Hash()
	}
	ce.Meta.ReceivedAt = p.Now().UTC()
	return p.Core.Cancel(ctx, ce)
}
