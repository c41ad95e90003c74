package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"testing"
)

// The hand-written bodies must be what encoding/json writes.
func TestAppendStringMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	for _, s := range []string{"", "br_1", "p 4711", `a"b`, `a\b`, "<b>&", "tab\there", "\x00\x1f\x7f", "€uro", "\xff", "line\u2028sep"} {
		want, _ := json.Marshal(s)
		if got := appendString(nil, s); string(got) != string(want) {
			t.Errorf("%q: %s, encoding/json writes %s", s, got, want)
		}
	}
}

func TestWriteAckMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	type ackBody struct {
		Status  string `json:"status"`
		EventID string `json:"event_id,omitempty"`
		Counted *bool  `json:"counted,omitempty"`
		Reason  string `json:"reason,omitempty"`
	}
	for _, a := range []ack{
		{Status: "accepted", EventID: "0193b2a4-7c1e-7d2a-9f3b-4e5d6c7b8a90"},
		{Status: "duplicate", EventID: `odd"id`},
		{Status: "accepted", Ignored: "bot"},
	} {
		body := ackBody{Status: a.Status, EventID: a.EventID, Reason: a.Ignored}
		if a.Ignored != "" {
			body.Counted = new(bool)
		}
		want, _ := json.Marshal(body)
		want = append(want, '\n') // as json.Encoder ends it, and every other answer
		rec := httptest.NewRecorder()
		if err := writeAck(rec, a); err != nil {
			t.Fatal(err)
		}
		if got := rec.Body.String(); got != string(want) {
			t.Errorf("%+v: %s, encoding/json writes %s", a, got, want)
		}
	}
}
