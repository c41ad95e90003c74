package httpapi

import (
	"errors"
	"io"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"golang.org/x/time/rate"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/rollup"
)

// MaxWidgetReportBytes bounds a widget report's body: its three fields
// take well under it.
const MaxWidgetReportBytes = 1 << 10

// WidgetReportsPerSecond bounds the widget reports this server writes,
// over every client: each is a small write transaction, and a flood of
// them must not take the store's writes from the events.
const WidgetReportsPerSecond = 200

// widgetReport is svc.js's report of the widget (POST
// /api/collect/widget). Anonymous: every field is hostile. It never
// touches the counts a shopper sees; it is counted only for a session
// that sent a view of the brand, is not held out and is under
// rollup.WidgetCap (docs/dashboard.md, The widget's effect).
type widgetReport struct {
	BrandID   *string `json:"brand_id"`
	SessionID *string `json:"session_id"`
	Kind      *string `json:"kind"`
}

func (v *widgetReport) fields() []svc.FieldError {
	var out []svc.FieldError
	id := func(field string, s *string) {
		if s == nil || *s == "" {
			out = append(out, svc.FieldError{Field: field, Message: "is required"})
		} else if n := utf8.RuneCountInString(*s); n > svc.MaxIDLen || strings.ContainsFunc(*s, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
			out = append(out, svc.FieldError{Field: field, Message: "must be 1 to 128 characters without control characters"})
		}
	}
	id("brand_id", v.BrandID)
	id("session_id", v.SessionID)
	if v.Kind == nil || !slices.Contains(rollup.WidgetKinds, *v.Kind) {
		out = append(out, svc.FieldError{Field: "kind", Message: "must be one of " + strings.Join(rollup.WidgetKinds, ", ")})
	}
	return out
}

// collectWidget records an impression of the widget or a click on it or
// a toast. A valid report is answered 204 whether it counted or not, so
// that a sender learns nothing of other sessions.
func (s *Server) collectWidget(w http.ResponseWriter, r *http.Request) error {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxWidgetReportBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return svc.Errorf(svc.ETOOLARGE, "the body is larger than %d bytes", MaxWidgetReportBytes)
	case err != nil:
		return svc.Errorf(svc.EINVALID, "the body could not be read")
	}
	var v widgetReport
	decodeErrors, err := unmarshal(body, &v)
	if err != nil {
		return err
	}
	if fields := svc.MergeFieldErrors(decodeErrors, v.fields()); len(fields) > 0 {
		return svc.Invalid(fields)
	}
	key, cred, err := s.authenticate(r)
	if err != nil {
		return err
	}
	if _, err := s.auth.Authorize(*v.BrandID, key, cred.Origin); err != nil {
		return err
	}
	if s.opts.IsBot != nil && s.opts.IsBot(r.UserAgent()) {
		w.WriteHeader(http.StatusNoContent)
		return nil
	}
	if !s.widgetWrites.Allow() {
		setRetryAfter(w, 0)
		return svc.Errorf(svc.ERATELIMIT, "too many widget reports on this server; retry after the time in Retry-After")
	}
	counted, err := s.tracker.Widgets().RecordWidget(r.Context(), rollup.WidgetReport{
		Brand: *v.BrandID, Session: *v.SessionID, Kind: *v.Kind, At: s.tracker.Now().UnixMilli()})
	if err != nil {
		return err
	}
	outcome := "ignored"
	if counted {
		outcome = svc.StatusAccepted
	}
	s.opts.Metrics.Event("widget", outcome)
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func newWidgetWrites() *rate.Limiter {
	return rate.NewLimiter(WidgetReportsPerSecond, 2*WidgetReportsPerSecond)
}
