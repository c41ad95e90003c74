package httpapi

import (
	"net/http"

	"github.com/svc-project/svc"
)

// ack is the answer to an accepted event.
type ack struct {
	Status  string // svc.StatusAccepted or svc.StatusDuplicate
	EventID string
	Replay  bool   // an Idempotency-Key seen before: this is the first answer again
	Ignored string // why the event was accepted but not counted ("bot"); empty when counted
}

// writeAck writes {"status", "event_id", "counted", "reason"} by hand, as
// appendProof does: json.Marshal of a struct was the largest allocation
// of the handler's own.
func writeAck(w http.ResponseWriter, a ack) error {
	if a.Replay {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	b := make([]byte, 0, 96)
	b = append(b, `{"status":`...)
	b = appendString(b, a.Status)
	if a.EventID != "" {
		b = append(b, `,"event_id":`...)
		b = appendString(b, a.EventID)
	}
	if a.Ignored != "" {
		b = append(b, `,"counted":false,"reason":`...)
		b = appendString(b, a.Ignored)
	}
	b = append(b, "}\n"...) // as every other answer
	writeJSON(w, http.StatusOK, b)
	return nil
}

// incoming is a decoded event of either kind, as the checks see it.
type incoming struct {
	write   *svc.Write
	brandID string
	ts      *string // the sender's context.timestamp
	meta    *svc.EventMeta
	event   interface{ Validate() []svc.FieldError } // a pointer: no allocation, as a method value would be
}

func (s *Server) collectView(w http.ResponseWriter, r *http.Request) error {
	var ev svc.ViewEvent
	a, err := s.collect(w, r, &ev, func() incoming {
		return incoming{&svc.Write{View: &ev}, ev.BrandID, ev.Context.Timestamp, &ev.Meta, &ev}
	})
	return s.count("view", ev.BrandID, a, err)
}

func (s *Server) collectPurchase(w http.ResponseWriter, r *http.Request) error {
	var ev svc.PurchaseEvent
	a, err := s.collect(w, r, &ev, func() incoming {
		return incoming{&svc.Write{Purchase: &ev}, ev.BrandID, ev.Context.Timestamp, &ev.Meta, &ev}
	})
	return s.count("purchase", ev.BrandID, a, err)
}

// collectCart records an add-to-cart: a view's rules, and a quantity.
func (s *Server) collectCart(w http.ResponseWriter, r *http.Request) error {
	var ev svc.CartEvent
	a, err := s.collect(w, r, &ev, func() incoming {
		return incoming{&svc.Write{Cart: &ev}, ev.BrandID, ev.Context.Timestamp, &ev.Meta, &ev}
	})
	return s.count("cart", ev.BrandID, a, err)
}

// count records the outcome of one collect request in the metrics, and a
// refusal also under its brand when that brand exists ("" for none), for
// the operator's page: unknown ids are not kept, so the counts stay
// bounded by the brands.
func (s *Server) count(kind, brandID string, a ack, err error) error {
	switch {
	case err != nil:
		s.opts.Metrics.Event(kind, "rejected_"+svc.ErrorCode(err))
		if brandID != "" && s.auth.Brand(brandID) != nil {
			s.opts.Metrics.BrandRefused(brandID, kind, svc.ErrorCode(err))
		}
	case a.Ignored != "":
		s.opts.Metrics.Event(kind, a.Ignored)
	case a.Replay:
		s.opts.Metrics.Event(kind, "replay")
	default:
		s.opts.Metrics.Event(kind, a.Status)
	}
	return err
}

// collect decodes an event into v, runs the checks of docs/decisions.md
// ("Order of checks") in their order, hands the valid event to the core
// and writes the acknowledgement. parts describes v once it is decoded.
func (s *Server) collect(w http.ResponseWriter, r *http.Request, v any, parts func() incoming) (ack, error) {
	body, decodeErrors, err := decodeJSON(w, r, v) // 1. size and syntax
	if err != nil {
		return ack{}, err
	}
	ev := parts()
	key, cred, err := s.authenticate(r) // 2. the key
	if err != nil {
		return ack{}, err
	}
	idempotencyKey := r.Header.Get("Idempotency-Key")
	if err := s.validate(ev, decodeErrors, idempotencyKey, key != nil); err != nil { // 3. every bad field
		return ack{}, err
	}
	brand, err := s.auth.Authorize(ev.brandID, key, cred.Origin) // 4. the brand
	if err != nil {
		return ack{}, err
	}
	if key == nil && s.opts.IsBot != nil && s.opts.IsBot(r.UserAgent()) {
		// Answered like any event, so a crawler learns nothing; never stored.
		a := ack{Status: svc.StatusAccepted, Ignored: "bot"}
		return a, writeAck(w, a)
	}
	wr := ev.write
	svc.Admit(wr, brand) // what its source may say
	wr.MayRegister = key != nil || !brand.ClosedCatalog
	wr.AssignArm(brand.Holdout)
	if key == nil && wr.MayRegister {
		if err := s.budgets.takeNewProducts(w, r, wr, s.tracker.Now()); err != nil {
			return ack{}, err
		}
	}
	if idempotencyKey != "" {
		wr.IdempotencyKey, wr.BodyHash = idempotencyKey, bodyHash(body)
	}
	if err := s.tracker.Collect(wr); err != nil { // 5. the store
		return ack{}, err
	}
	a := ack{Status: wr.Result.Status, EventID: wr.Result.EventID, Replay: wr.Result.Replay}
	return a, writeAck(w, a)
}

// validate reports every bad field in one answer: wrong JSON types, the
// event's own rules, the Idempotency-Key header, and the timestamp rules,
// which depend on whether the event is keyed. It stamps the event with the
// time it counts at.
func (s *Server) validate(ev incoming, decodeErrors []svc.FieldError, idempotencyKey string, keyed bool) error {
	fields := svc.MergeFieldErrors(decodeErrors, ev.event.Validate())
	if idempotencyKey != "" && !validIdempotencyKey(idempotencyKey) {
		fields = append(fields, svc.FieldError{Field: "Idempotency-Key", Message: "must be 1 to 255 printable ASCII characters"})
	}
	fields = append(fields, svc.Stamp(ev.meta, ev.ts, keyed, s.tracker.Now(), s.tracker.Retention())...)
	if p := ev.write.Purchase; p != nil && !keyed {
		fields = append(fields, s.budgets.orderFields(p)...)
	}
	if len(fields) > 0 {
		return svc.Invalid(fields)
	}
	return nil
}

func validIdempotencyKey(k string) bool {
	if len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}
