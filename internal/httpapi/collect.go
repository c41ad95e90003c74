package httpapi

import (
	"context"
	"crypto/sha256"
	"net/http"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/tracker"
)

// APIKeyHeader carries a brand's key (SPEC 5). Header names are
// case-insensitive; Go writes this one X-Svc-Api-Key.
const APIKeyHeader = "X-svc-Api-Key"

func credentials(r *http.Request) tracker.Credentials {
	keys := r.Header.Values(APIKeyHeader)
	c := tracker.Credentials{Origin: r.Header.Get("Origin"), HasKey: len(keys) > 0, UserAgent: r.UserAgent()}
	if c.HasKey {
		c.Key = keys[0]
	}
	return c
}

func collectRequest(r *http.Request, body []byte, decodeErrors []svc.FieldError) tracker.Request {
	req := tracker.Request{
		Credentials:    credentials(r),
		IdempotencyKey: r.Header.Get("Idempotency-Key"),
		DecodeErrors:   decodeErrors,
	}
	if req.IdempotencyKey != "" {
		req.BodyHash = sha256.Sum256(body)
	}
	return req
}

// writeAck writes {"status", "event_id", "counted", "reason"} by hand, as
// appendProof does: json.Marshal of a struct was the largest allocation
// of the handler's own.
func writeAck(w http.ResponseWriter, ack tracker.Ack) error {
	if ack.Replay {
		w.Header().Set("Idempotent-Replayed", "true")
	}
	b := make([]byte, 0, 96)
	b = append(b, `{"status":`...)
	b = appendString(b, ack.Status)
	if ack.EventID != "" {
		b = append(b, `,"event_id":`...)
		b = appendString(b, ack.EventID)
	}
	if ack.Ignored != "" {
		b = append(b, `,"counted":false,"reason":`...)
		b = appendString(b, ack.Ignored)
	}
	b = append(b, "}\n"...) // as every other answer
	writeJSON(w, http.StatusOK, b)
	return nil
}

func (s *Server) collectView(w http.ResponseWriter, r *http.Request) error {
	ack, err := collect(w, r, s.tracker.CollectView)
	return s.count("view", ack, err)
}

func (s *Server) collectPurchase(w http.ResponseWriter, r *http.Request) error {
	ack, err := collect(w, r, s.tracker.CollectPurchase)
	return s.count("purchase", ack, err)
}

// count records the outcome of one collect request in the metrics.
func (s *Server) count(kind string, ack tracker.Ack, err error) error {
	switch {
	case err != nil:
		s.opts.Metrics.Event(kind, "rejected_"+svc.ErrorCode(err))
	case ack.Ignored != "":
		s.opts.Metrics.Event(kind, ack.Ignored)
	case ack.Replay:
		s.opts.Metrics.Event(kind, "replay")
	default:
		s.opts.Metrics.Event(kind, ack.Status)
	}
	return err
}

// collect decodes an event of type E, hands it to the tracker and writes
// the acknowledgement.
func collect[E any](w http.ResponseWriter, r *http.Request, record func(context.Context, *E, tracker.Request) (tracker.Ack, error)) (tracker.Ack, error) {
	var ev E
	body, decodeErrors, err := decodeJSON(w, r, &ev)
	if err != nil {
		return tracker.Ack{}, err
	}
	ack, err := record(r.Context(), &ev, collectRequest(r, body, decodeErrors))
	if err != nil {
		return ack, err
	}
	return ack, writeAck(w, ack)
}
