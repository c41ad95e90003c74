package snapshot

import (
	"testing"

	"github.com/svc-project/svc"
)

// A shard's mark decodes to the position it was written from; a damaged
// one is refused rather than misread.
func TestPositionRoundTrip(t *testing.T) {
	for _, p := range []svc.LogPosition{
		{},
		{Views: 1, ViewEvent: "0193b2a4-7c1e-7d2a-9f3b-4e5d6c7b8a90"},
		{Views: 1 << 40, ViewEvent: "v", Orders: 7, OrderEvent: "o"},
		{Views: 3, ViewEvent: "v", Orders: 7, OrderEvent: "o", Cancels: 1 << 33},
	} {
		b := appendPosition(nil, p)
		got, err := decodePosition(b)
		if err != nil || got != p {
			t.Errorf("%+v: decoded %+v, %v", p, got, err)
		}
		if _, err := decodePosition(append(b, 0)); err == nil {
			t.Errorf("%+v with a byte more: no error", p)
		}
		if len(b) > 1 {
			if _, err := decodePosition(b[:len(b)-1]); err == nil {
				t.Errorf("%+v cut short: no error", p)
			}
		}
	}
}
