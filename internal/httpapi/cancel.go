package httpapi

import (
	"net/http"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/collect"
)

// collectCancel cancels an order or refunds some of its units. Only a
// brand's server may: without a key it is a 401 whatever the Origin, as a
// shopper's browser has no business taking purchases out of the counts.
// The checks run in the order of the collect endpoints (docs/decisions.md,
// Order of checks), with the missing key at step 2.
func (s *Server) collectCancel(w http.ResponseWriter, r *http.Request) error {
	a, err := s.cancel(w, r)
	return s.count("cancel", "", a, err) // keyed only: refusals stay in the metrics
}

func (s *Server) cancel(w http.ResponseWriter, r *http.Request) (ack, error) {
	var ev svc.CancelEvent
	body, decodeErrors, err := decodeJSON(w, r, &ev) // 1. size and syntax
	if err != nil {
		return ack{}, err
	}
	key, _, err := s.authenticate(r) // 2. the key, which is required
	switch {
	case err != nil:
		return ack{}, err
	case key == nil:
		return ack{}, svc.Errorf(svc.EUNAUTHORIZED, "cancelling an order needs the brand's API key in the X-svc-Api-Key header")
	}
	idempotencyKey := r.Header.Get("Idempotency-Key")
	fields := svc.MergeFieldErrors(decodeErrors, ev.Validate()) // 3. every bad field
	if idempotencyKey != "" && !collect.ValidIdempotencyKey(idempotencyKey) {
		fields = append(fields, svc.FieldError{Field: "Idempotency-Key", Message: "must be 1 to 255 printable ASCII characters"})
	}
	if len(fields) > 0 {
		return ack{}, svc.Invalid(fields)
	}
	if _, err := s.auth.Authorize(ev.BrandID, key, ""); err != nil { // 4. the brand
		return ack{}, err
	}
	if idempotencyKey != "" {
		ev.IdempotencyKey, ev.BodyHash = idempotencyKey, bodyHash(body)
	}
	ev.Meta.ReceivedAt = s.tracker.Now().UTC()
	if err := s.tracker.Cancel(r.Context(), &ev); err != nil { // 5. the store
		return ack{}, err
	}
	a := ack{Status: ev.Result.Status, EventID: ev.Result.EventID, Replay: ev.Result.Replay}
	return a, writeAck(w, a)
}
