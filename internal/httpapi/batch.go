package httpapi

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/collect"
	"github.com/svc-project/svc/internal/wire"
)

// Limits of the batch endpoint (docs/spec.md, Batch).
const (
	MaxBatchBytes  = 4 << 20
	MaxBatchEvents = 500
	// MaxBatchLines bounds the work of one request: the order lines of a
	// batch's events in all (a view or a cart is none). 500 orders of 500
	// lines each would be 250,000 lines, seconds of the one writer.
	MaxBatchLines = 5000
)

// batchKind is one type of event a batch may carry: the single endpoint's
// body type, and a type that reads the same members plus the batch's own,
// type and idempotency_key, so that a valid event takes the decoder's fast
// path and every bad field is named as the single endpoint names it.
type batchKind struct {
	name   string // the metrics' kind
	event  reflect.Type
	batch  reflect.Type
	fields []int // of event, each with a member name, in order
	write  func(ev any) *svc.Write
	// clean decodes an event with nothing wrong in it straight into its
	// type, or reports that decode must read it.
	clean func(raw []byte) (ev any, idempotencyKey *string, ok bool)
}

// cleanEvent is an event of a batch with the batch's members beside it,
// for the decoder's fast path: every member known and well typed.
type cleanEvent[E any] struct {
	BatchType           string  `json:"type"`
	BatchIdempotencyKey *string `json:"idempotency_key"`
	Event               E       `json:",inline"`
}

func decodeClean[E any](raw []byte) (any, *string, bool) {
	var c cleanEvent[E]
	if jsonv2.Unmarshal(raw, &c, jsonv2.RejectUnknownMembers(true)) != nil {
		return nil, nil, false
	}
	return &c.Event, c.BatchIdempotencyKey, true
}

var batchKinds = map[string]*batchKind{
	"product-view": newBatchKind[wire.View]("view", func(ev any) *svc.Write {
		return &svc.Write{View: ev.(*wire.View).Event()}
	}),
	"product-purchase": newBatchKind[wire.Purchase]("purchase", func(ev any) *svc.Write {
		return &svc.Write{Purchase: ev.(*wire.Purchase).Event()}
	}),
	"product-cart": newBatchKind[wire.Cart]("cart", func(ev any) *svc.Write {
		return &svc.Write{Cart: ev.(*wire.Cart).Event()}
	}),
}

// batchTypes lists the types a batch event may have, for messages.
const batchTypes = "product-view, product-purchase or product-cart"

func newBatchKind[E any](name string, write func(any) *svc.Write) *batchKind {
	k := &batchKind{name: name, event: reflect.TypeFor[E](), write: write, clean: decodeClean[E]}
	fields := []reflect.StructField{
		{Name: "BatchType", Type: reflect.TypeFor[string](), Tag: `json:"type"`},
		{Name: "BatchIdempotencyKey", Type: reflect.TypeFor[*string](), Tag: `json:"idempotency_key"`},
	}
	for i := range k.event.NumField() {
		if f := k.event.Field(i); jsonName(f) != "" {
			k.fields = append(k.fields, i)
			fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag})
		}
	}
	k.batch = reflect.StructOf(fields)
	return k
}

// decode reads one event of the kind; the batch's own members come back
// apart.
func (k *batchKind) decode(raw []byte) (ev any, idempotencyKey *string, fields []svc.FieldError, err error) {
	b := reflect.New(k.batch)
	fields, err = unmarshal(raw, b.Interface())
	if err != nil {
		return nil, nil, nil, err
	}
	e := reflect.New(k.event)
	for j, i := range k.fields {
		e.Elem().Field(i).Set(b.Elem().Field(2 + j))
	}
	return e.Interface(), b.Elem().Field(1).Interface().(*string), fields, nil
}

// batchResult is the answer about one event of a batch.
type batchResult struct {
	Status   string       `json:"status"` // accepted, duplicate, invalid, conflict or failed
	EventID  string       `json:"event_id,omitempty"`
	Replayed bool         `json:"replayed,omitempty"` // the first answer of its idempotency_key
	Errors   []FieldError `json:"errors,omitempty"`   // of an invalid event
	Detail   string       `json:"detail,omitempty"`   // of a conflict or a failure
}

// collectBatch records up to MaxBatchEvents events (MaxBatchLines order
// lines) of a brand's server in one request, committed in slices
// (docs/decisions.md, Batch collect). Each
// event is decoded, validated and stored as its single endpoint would,
// and answered in its place in results; a bad one fails alone. Keyed
// only, and the key is checked before the body is read: a body of 4 MiB
// from a sender without a key is not worth reading.
func (s *Server) collectBatch(w http.ResponseWriter, r *http.Request) error {
	key, _, err := s.authenticate(r)
	switch {
	case err != nil:
		return err
	case key == nil:
		return svc.Errorf(svc.EUNAUTHORIZED, "a batch needs the brand's API key in the X-svc-Api-Key header")
	}
	if v := r.Header.Get("Idempotency-Key"); v != "" {
		return svc.Invalid([]svc.FieldError{{Field: "Idempotency-Key", Message: "is not read on a batch: give each event its idempotency_key"}})
	}
	body, err := readAll(http.MaxBytesReader(w, r.Body, MaxBatchBytes), r.ContentLength, MaxBatchBytes)
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return svc.Errorf(svc.ETOOLARGE, "the body is larger than %d MiB", MaxBatchBytes>>20)
	case err != nil:
		return svc.Errorf(svc.EINVALID, "the body could not be read")
	}
	raws, err := batchEvents(body)
	if err != nil {
		return err
	}
	brand, err := s.auth.Authorize(key.BrandID, key, "")
	if err != nil {
		return err
	}
	results := make([]batchResult, len(raws))
	kinds := make([]*batchKind, len(raws))
	evs := make([]collect.Event, 0, len(raws))
	at := make([]int, 0, len(raws)) // the index of each decoded event
	for i, raw := range raws {
		k, ev, bad := readEvent(raw)
		kinds[i] = k
		if bad != nil {
			results[i] = invalidResult(i, bad)
			continue
		}
		evs, at = append(evs, ev), append(at, i)
	}
	// Each event through the checks as its single endpoint's would go,
	// for the brand of the key, and the valid ones to the core.
	err = s.pipeline.CollectBatch(collect.Source{Kind: collect.Server, Key: key, Brand: brand}, evs, MaxBatchLines)
	var over *collect.TooManyLines
	switch {
	case errors.As(err, &over):
		return svc.Invalid([]svc.FieldError{{Field: "events", Message: fmt.Sprintf("have %d order lines in all: a batch may have at most %d; send the rest in another batch", over.Lines, MaxBatchLines)}})
	case err != nil: // nothing stored
		return err
	}
	for j := range evs {
		i, ev, res := at[j], &evs[j], &evs[j].Write.Result
		if ev.Err != nil {
			var e *svc.Error
			if !errors.As(ev.Err, &e) {
				results[i] = invalidResult(i, []svc.FieldError{{Message: "could not be read"}})
			} else {
				results[i] = invalidResult(i, e.Fields)
			}
			continue
		}
		switch code := svc.ErrorCode(res.Err); {
		case res.Err == nil:
			results[i] = batchResult{Status: res.Status, EventID: res.EventID, Replayed: res.Replay}
		case code == svc.ECONFLICT || code == svc.ENOTFOUND:
			var e *svc.Error
			errors.As(res.Err, &e)
			results[i] = batchResult{Status: "conflict", Detail: e.Message}
		case code == svc.EUNAVAILABLE: // a later slice than the first (tracker.CollectBatch)
			results[i] = batchResult{Status: "failed", Detail: "not stored: the store could not write; retry the event later with the same idempotency_key"}
		default:
			s.log.Error("batch event failed", "err", res.Err)
			results[i] = batchResult{Status: "failed", Detail: "internal error; retry the event later with the same idempotency_key"}
		}
	}
	for i, res := range results {
		kind := "batch"
		if kinds[i] != nil {
			kind = kinds[i].name
		}
		switch {
		case res.Status == "invalid":
			s.opts.Metrics.Event(kind, "rejected_"+svc.EINVALID)
		case res.Replayed:
			s.opts.Metrics.Event(kind, "replay")
		default:
			s.opts.Metrics.Event(kind, res.Status)
		}
	}
	out, err := json.Marshal(struct {
		Results []batchResult `json:"results"`
	}{results})
	if err != nil {
		return svc.Internal(err)
	}
	writeJSON(w, http.StatusOK, append(out, '\n'))
	return nil
}

// readAll is io.ReadAll into a buffer of the body's declared length (at
// most limit), read in one piece rather than grown from 512 bytes: a
// batch is tens of kilobytes.
func readAll(r io.Reader, declared, limit int64) ([]byte, error) {
	if declared <= 0 || declared > limit {
		return io.ReadAll(r)
	}
	b := bytes.NewBuffer(make([]byte, 0, declared+bytes.MinRead))
	_, err := b.ReadFrom(r)
	return b.Bytes(), err
}

// dotted joins a field to the event's index: "events[2]" + ".brand_id";
// an error about the whole event has no field.
func dotted(field string) string {
	if field == "" {
		return ""
	}
	return "." + field
}

// batchEvents reads the body's events, each as it was sent. The body is
// read exactly as written, as a single event's is (docs/decisions.md,
// Events); a body that is not one, or more than MaxBatchEvents events, is
// refused whole, and nothing is stored.
func batchEvents(body []byte) ([]jsontext.Value, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, svc.Errorf(svc.EINVALID, "the body is empty: send a JSON object")
	}
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	envelope := reflect.TypeFor[struct {
		Events []any `json:"events"`
	}]()
	if dec.PeekKind() != '{' {
		if err := dec.SkipValue(); err != nil {
			return nil, syntaxError(err, envelope)
		}
		return nil, svc.Errorf(svc.EINVALID, "the body must be a JSON object")
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, syntaxError(err, envelope)
	}
	var events []jsontext.Value
	seen := false
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, syntaxError(err, envelope)
		}
		switch name := tok.String(); {
		case name == "events" && dec.PeekKind() == '[':
			seen = true
			if _, err := dec.ReadToken(); err != nil {
				return nil, syntaxError(err, envelope)
			}
			for dec.PeekKind() != ']' {
				v, err := dec.ReadValue()
				if err != nil {
					return nil, syntaxError(err, envelope)
				}
				if len(events) == MaxBatchEvents {
					return nil, svc.Invalid([]svc.FieldError{{Field: "events", Message: fmt.Sprintf("must have 1 to %d events: send the rest in another batch", MaxBatchEvents)}})
				}
				// The value as it is in the body, which outlives the
				// decoder's buffer: no copy of each event.
				end := int(dec.InputOffset())
				events = append(events, jsontext.Value(body[end-len(v):end:end]))
			}
			if _, err := dec.ReadToken(); err != nil {
				return nil, syntaxError(err, envelope)
			}
		case name == "events":
			return nil, svc.Invalid([]svc.FieldError{{Field: "events", Message: "must be an array"}})
		case strings.EqualFold(name, "events"):
			return nil, svc.Invalid([]svc.FieldError{{Field: "events", Message: fmt.Sprintf("is sent as %q: names are case-sensitive", name)}})
		default:
			if err := dec.SkipValue(); err != nil {
				return nil, syntaxError(err, envelope)
			}
		}
	}
	if _, err := dec.ReadToken(); err != nil {
		return nil, syntaxError(err, envelope)
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, svc.Errorf(svc.EINVALID, "the body is not valid JSON: there is more after the value")
	}
	if !seen || len(events) == 0 {
		return nil, svc.Invalid([]svc.FieldError{{Field: "events", Message: fmt.Sprintf("is required: 1 to %d events", MaxBatchEvents)}})
	}
	return events, nil
}

// invalidResult is the answer about the event at index i with bad fields,
// each named inside the event.
func invalidResult(i int, fields []svc.FieldError) batchResult {
	for j := range fields {
		fields[j].Field = fmt.Sprintf("events[%d]", i) + dotted(fields[j].Field)
	}
	return batchResult{Status: "invalid", Errors: fieldErrors(fields)}
}

// readEvent decodes one event of a batch for the pipeline, or returns
// why it cannot be read.
func readEvent(raw jsontext.Value) (*batchKind, collect.Event, []svc.FieldError) {
	k, ev, idempotencyKey, decodeErrors, bad := readBatchEvent(raw)
	if bad != nil {
		return k, collect.Event{}, bad
	}
	e := collect.Event{Write: k.write(ev), DecodeErrors: decodeErrors, IdempotencyKey: idempotencyKey, KeyField: "idempotency_key"}
	if idempotencyKey != nil {
		e.Hash = func() [32]byte { return batchEventHash(raw) }
	}
	return k, e, nil
}

// readBatchEvent decodes one event of a batch by its type. bad is set
// when the event cannot be read at all; decodeErrors are its fields of a
// wrong JSON type.
func readBatchEvent(raw jsontext.Value) (k *batchKind, ev any, idempotencyKey *string, decodeErrors, bad []svc.FieldError) {
	if raw.Kind() != '{' {
		return nil, nil, nil, nil, []svc.FieldError{{Message: "must be an object"}}
	}
	// An event that starts with its type, as senders write them, is read
	// once; any doubt about it (a bad field, a type named twice) reads it
	// again as below, for the same answer.
	if k = batchKinds[leadingType(raw)]; k != nil {
		if ev, idempotencyKey, ok := k.clean(raw); ok {
			return k, ev, idempotencyKey, nil, nil
		}
	}
	var head struct {
		Type *string `json:"type"`
	}
	if err := jsonv2.Unmarshal(raw, &head); err != nil {
		return nil, nil, nil, nil, []svc.FieldError{{Field: "type", Message: "must be " + batchTypes}}
	}
	if head.Type == nil {
		return nil, nil, nil, nil, []svc.FieldError{{Field: "type", Message: "is required: " + batchTypes}}
	}
	if k = batchKinds[*head.Type]; k == nil {
		return nil, nil, nil, nil, []svc.FieldError{{Field: "type", Message: "must be " + batchTypes}}
	}
	ev, idempotencyKey, decodeErrors, err := k.decode(raw)
	if err != nil {
		var e *svc.Error
		if errors.As(err, &e) && len(e.Fields) > 0 {
			return k, nil, nil, nil, e.Fields
		}
		return k, nil, nil, nil, []svc.FieldError{{Message: strings.TrimPrefix(err.Error(), "svc invalid: ")}}
	}
	return k, ev, idempotencyKey, decodeErrors, nil
}

// leadingType is the value of an event's first member when that member
// is "type" and its value a string without escapes, else "".
func leadingType(raw []byte) string {
	i := skipSpace(raw, 1) // after the '{'
	if !bytes.HasPrefix(raw[i:], []byte(`"type"`)) {
		return ""
	}
	i = skipSpace(raw, i+len(`"type"`))
	if i >= len(raw) || raw[i] != ':' {
		return ""
	}
	i = skipSpace(raw, i+1)
	if i >= len(raw) || raw[i] != '"' {
		return ""
	}
	i++
	end := bytes.IndexAny(raw[i:], `"\\`)
	if end < 0 || raw[i+end] != '"' {
		return ""
	}
	return string(raw[i : i+end])
}

// skipSpace returns the index of the first byte of b from i that is not
// JSON whitespace.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// batchEventHash is the hash an event's idempotency key keeps: of the
// event as its single endpoint would get it, without the batch's members,
// in canonical form (bodyHash), so that a key works across the batch and
// the single endpoints alike.
func batchEventHash(raw jsontext.Value) [32]byte {
	var members map[string]jsontext.Value
	if err := jsonv2.Unmarshal(raw, &members); err != nil {
		return sha256.Sum256(raw)
	}
	delete(members, "type")
	delete(members, "idempotency_key")
	b, err := jsonv2.Marshal(members)
	if err != nil {
		return sha256.Sum256(raw)
	}
	return bodyHash(b)
}

// bodyHash is the SHA-256 of a body in the canonical form of RFC 8785:
// two bodies that are the same JSON value, whatever their member order or
// spacing, are the same body for an Idempotency-Key.
func bodyHash(body []byte) [32]byte {
	v := jsontext.Value(bytes.Clone(body))
	if err := v.Canonicalize(); err != nil {
		return sha256.Sum256(body)
	}
	return sha256.Sum256(v)
}
