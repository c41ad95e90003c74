package svc_test

import (
	"testing"
	"time"

	"github.com/svc-project/svc"
)

func TestStamp(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	ts := func(d time.Duration) *string { s := now.Add(d).Format(time.RFC3339Nano); return &s }
	tests := []struct {
		name      string
		given     *string
		keyed     bool
		wantTime  time.Time
		wantGiven bool // the given time is kept beside the receive time
		wantErr   bool
	}{
		{"no timestamp", nil, false, now, false, false},
		{"anonymous, 4 min ago", ts(-4 * time.Minute), false, now.Add(-4 * time.Minute), false, false},
		{"anonymous, 6 min ago", ts(-6 * time.Minute), false, now, true, false},
		{"anonymous, 6 min ahead", ts(6 * time.Minute), false, now, true, false},
		{"keyed, 2 days ago", ts(-48 * time.Hour), true, now.Add(-48 * time.Hour), false, false},
		{"keyed, 5 min ahead", ts(5 * time.Minute), true, now.Add(5 * time.Minute), false, false},
		{"keyed, 5 min 1 s ahead", ts(5*time.Minute + time.Second), true, time.Time{}, false, true},
		{"keyed, older than retention", ts(-36 * 24 * time.Hour), true, time.Time{}, false, true},
		{"offset converted to UTC", func() *string { s := "2026-11-21T10:59:00+01:00"; return &s }(), true, now.Add(-time.Minute), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m svc.EventMeta
			errs := svc.Stamp(&m, tt.given, tt.keyed, now, svc.DefaultRetention)
			if (len(errs) > 0) != tt.wantErr {
				t.Fatalf("errors %v", errs)
			}
			if tt.wantErr {
				if errs[0].Field != "context.timestamp" {
					t.Fatalf("field %q", errs[0].Field)
				}
				return
			}
			if !m.Time.Equal(tt.wantTime) || m.Time.Location() != time.UTC || (m.GivenTime != nil) != tt.wantGiven || !m.ReceivedAt.Equal(now) || m.Keyed != tt.keyed {
				t.Fatalf("meta %+v", m)
			}
		})
	}
}

func TestMergeFieldErrors(t *testing.T) {
	typeErrs := []svc.FieldError{{Field: "order.items", Message: "must be an array"}, {Field: "brand_id", Message: "must be a string"}}
	valueErrs := []svc.FieldError{{Field: "brand_id", Message: "is required"}, {Field: "order.items", Message: "is required"},
		{Field: "order.items[0].quantity", Message: "is required"}, {Field: "order.order_id", Message: "is required"}, {Field: "brand_idx", Message: "x"}}
	got := svc.MergeFieldErrors(typeErrs, valueErrs)
	want := []string{"order.items", "brand_id", "order.order_id", "brand_idx"}
	if len(got) != len(want) {
		t.Fatalf("got %v", got)
	}
	for i := range want {
		if got[i].Field != want[i] {
			t.Fatalf("got %v, want fields %v", got, want)
		}
	}
}
