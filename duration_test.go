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
