package httpapi

import (
	"net/http"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/collect"
	"github.com/svc-project/svc/internal/wire"
)

// collectCancel cancels an order or refunds some of its units. Only a
// brand's server may: without a key it is a 401 whatever the Origin, as a
// shopper's browser has no business taking purchases out of the counts.
// The checks run in the order of the collect endpoints (docs/decisions.md,
// Order of checks), with the missing key at step 2, and the rest in
// internal/collect.
func (s *Server) collectCancel(w http.ResponseWriter, r *http.Request) error {
	a, err := s.cancel(w, r)
	return s.count("cancel", "", a, err) // keyed only: refusals stay in the metrics
}

func (s *Server) cancel(w http.ResponseWriter, r *http.Request) (ack, error) {
	var in wire.Cancel
	body, decodeErrors, err := decodeJSON(w, r, &in) // 1. size and syntax
	if err != nil {
		return ack{}, err
	}
	ev := in.Event()
	key, _, err := s.authenticate(r) // 2. the key, which is required
	switch {
	case err != nil:
		return ack{}, err
	case key == nil:
		return ack{}, svc.Errorf(svc.EUNAUTHORIZED, "cancelling an order needs the brand's API key in the X-svc-Api-Key header")
	}
	// 3 to 5, and the store: the pipeline's.
	c := collect.Cancellation{Cancel: ev, DecodeErrors: decodeErrors, KeyField: "Idempotency-Key"}
	if h := r.Header.Get("Idempotency-Key"); h != "" {
		c.IdempotencyKey, c.Hash = &h, func() [32]byte { return bodyHash(body) }
	}
	if err := s.pipeline.Cancel(r.Context(), collect.Source{Kind: collect.Server, Key: key}, &c); err != nil {
		return ack{}, err
	}
	a := ack{Status: ev.Result.Status, EventID: ev.Result.EventID, Replay: ev.Result.Replay}
	return a, writeAck(w, a)
}
