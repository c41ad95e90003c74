package svc

import (
	"strings"
	"time"
)

// FormatDuration writes a duration as people write it: 24h, 5m, 1h30m,
// rather than time.Duration's 24h0m0s.
func FormatDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
