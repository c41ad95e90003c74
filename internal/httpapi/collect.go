package httpapi

import (
	"net/http"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/collect"
	"github.com/svc-project/svc/internal/wire"
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

func (s *Server) collectView(w http.ResponseWriter, r *http.Request) error {
	var body wire.View
	a, err := s.collect(w, r, &body, func() *svc.Write { return &svc.Write{View: body.Event()} })
	return s.count("view", body.BrandID, a, err)
}

func (s *Server) collectPurchase(w http.ResponseWriter, r *http.Request) error {
	var body wire.Purchase
	a, err := s.collect(w, r, &body, func() *svc.Write { return &svc.Write{Purchase: body.Event()} })
	return s.count("purchase", body.BrandID, a, err)
}

// collectCart records an add-to-cart: a view's rules, and a quantity.
func (s *Server) collectCart(w http.ResponseWriter, r *http.Request) error {
	var body wire.Cart
	a, err := s.collect(w, r, &body, func() *svc.Write { return &svc.Write{Cart: body.Event()} })
	return s.count("cart", body.BrandID, a, err)
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

// collect decodes an event's body into v, makes it the domain's write
// with write, proves its key, and hands it to the pipeline
// (internal/collect), which runs the checks of docs/decisions.md (Order of
// checks) in their order and gives it to the core; then it writes the
// acknowledgement.
func (s *Server) collect(w http.ResponseWriter, r *http.Request, v any, write func() *svc.Write) (ack, error) {
	body, decodeErrors, err := decodeJSON(w, r, v) // 1. size and syntax
	if err != nil {
		return ack{}, err
	}
	wr := write()
	key, cred, err := s.authenticate(r) // 2. the key
	if err != nil {
		return ack{}, err
	}
	src := collect.Source{Kind: collect.Server, Key: key}
	if key == nil {
		src = collect.Source{Kind: collect.Browser, Origin: cred.Origin, Bot: s.opts.IsBot != nil && s.opts.IsBot(r.UserAgent()), Sender: r}
	}
	ev := collect.Event{Write: wr, DecodeErrors: decodeErrors, KeyField: "Idempotency-Key"}
	if h := r.Header.Get("Idempotency-Key"); h != "" {
		k := h // on the heap only for a request with a key
		ev.IdempotencyKey, ev.Hash = &k, func() [32]byte { return bodyHash(body) }
	}
	switch err := s.pipeline.Collect(src, &ev); { // 3 to 5, and the store
	case err != nil:
		if svc.ErrorCode(err) == svc.ERATELIMIT {
			setRetryAfter(w, ev.RetryAfter)
		}
		return ack{}, err
	case ev.Ignored != "":
		// Answered like any event, so a crawler learns nothing; never stored.
		a := ack{Status: svc.StatusAccepted, Ignored: ev.Ignored}
		return a, writeAck(w, a)
	}
	a := ack{Status: wr.Result.Status, EventID: wr.Result.EventID, Replay: wr.Result.Replay}
	return a, writeAck(w, a)
}
