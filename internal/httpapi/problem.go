package httpapi

import (
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"

	"github.com/svc-project/svc"
)

// statusOf maps each error code to its HTTP status, in this one place.
var statusOf = map[string]int{
	svc.EINVALID:      http.StatusBadRequest,
	svc.EUNAUTHORIZED: http.StatusUnauthorized,
	svc.ENOTFOUND:     http.StatusNotFound,
	svc.EMETHOD:       http.StatusMethodNotAllowed,
	svc.ECONFLICT:     http.StatusConflict,
	svc.ETOOLARGE:     http.StatusRequestEntityTooLarge,
	svc.ERATELIMIT:    http.StatusTooManyRequests,
	svc.EUNAVAILABLE:  http.StatusServiceUnavailable,
	svc.EINTERNAL:     http.StatusInternalServerError,
}

// ProblemTypeBase is where the problem types are described (docs/errors.md).
const ProblemTypeBase = "https://github.com/svc-project/svc/blob/main/docs/errors.md#"

// Problem is an RFC 9457 problem details body.
type Problem struct {
	Type   string       `json:"type"`
	Title  string       `json:"title"`
	Status int          `json:"status"`
	Detail string       `json:"detail,omitempty"`
	Errors []FieldError `json:"errors,omitempty"`
}

// FieldError is how a problem names one bad field: the domain's
// svc.FieldError, whose Field the layers below have named as the API does.
type FieldError struct {
	Field   string `json:"field"`
	Message string `json:"message"`
}

// fieldErrors is errs as a problem writes them.
func fieldErrors(errs []svc.FieldError) []FieldError {
	if len(errs) == 0 {
		return nil
	}
	out := make([]FieldError, len(errs))
	for i, e := range errs {
		out[i] = FieldError(e)
	}
	return out
}

// handlerFunc is a handler that returns its error instead of writing it.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// handle adapts a handlerFunc: an error becomes a problem+json response with
// the status of its code, and only server faults are logged, with their
// cause, which the client never sees.
func (s *Server) handle(fn handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		err := fn(w, r)
		if err == nil {
			return
		}
		code := svc.ErrorCode(err)
		status := statusOf[code]
		p := Problem{Type: ProblemTypeBase + code, Title: http.StatusText(status), Status: status}
		if e, ok := err.(*svc.Error); ok && code != svc.EINTERNAL {
			p.Detail, p.Errors = e.Message, fieldErrors(e.Fields)
		} else {
			p.Detail = "internal error; retry later"
		}
		if code == svc.EINTERNAL || errors.Unwrap(err) != nil {
			s.log.LogAttrs(r.Context(), slog.LevelError, "request failed",
				slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.Int("status", status), slog.Any("err", err))
		}
		if status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
			// Unavailable is passing: a store that cannot write, a node
			// that shuts down. A client retries, with the same key.
			w.Header().Set("Retry-After", retryUnavailable)
		}
		writeProblem(w, p)
	})
}

// retryUnavailable is the Retry-After of a 503, in seconds.
const retryUnavailable = "5"

func writeProblem(w http.ResponseWriter, p Problem) {
	w.Header().Set("Content-Type", "application/problem+json")
	w.WriteHeader(p.Status)
	_ = json.NewEncoder(w).Encode(p)
}

func writeJSON(w http.ResponseWriter, status int, body []byte) {
	w.Header()["Content-Type"] = hJSON
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
