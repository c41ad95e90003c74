package svc_test

import (
	"testing"
	"time"

	"github.com/svc-project/svc"
)

func TestFormatDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		24 * time.Hour:                  "24h",
		840 * time.Hour:                 "840h",
		5 * time.Minute:                 "5m",
		90 * time.Minute:                "1h30m",
		time.Hour + time.Second:         "1h0m1s",
		1500 * time.Millisecond:         "1.5s",
		15 * time.Second:                "15s",
		0:                               "0s",
		time.Hour + 10*time.Millisecond: "1h0m0.01s",
	} {
		if got := svc.FormatDuration(d); got != want {
			t.Errorf("FormatDuration(%v) = %q, want %q", d, got, want)
		}
	}
}

// The messages about an event's time name durations as people write them.
func TestStampNamesDurationsPlainly(t *testing.T) {
	now := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for given, want := range map[string]string{
		"2026-11-21T11:00:00Z": "must not be more than 5m in the future",
		"2026-10-01T10:00:00Z": "must not be older than the retention of 840h",
	} {
		var meta svc.EventMeta
		fields := svc.Stamp(&meta, &given, true, now, 840*time.Hour)
		if len(fields) != 1 || fields[0].Message != want {
			t.Errorf("Stamp(%s) = %v, want %q", given, fields, want)
		}
	}
}
