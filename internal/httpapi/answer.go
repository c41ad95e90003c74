package httpapi

import (
	"net/http"
	"time"
)

// AnswerTime is how long the answer of a write may take to send once the
// handler has it, whatever the server's WriteTimeout left: that timeout
// counts from the request's start, and a commit that waited on a large
// batch or a slow store must not lose its answer to it, or the client,
// told nothing, sends the events again (docs/security.md, Denial of service).
const AnswerTime = 5 * time.Second

// answerInTime gives the answer of h, once h starts it, AnswerTime to be
// written.
func answerInTime(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(&answerWriter{ResponseWriter: w}, r)
	})
}

type answerWriter struct {
	http.ResponseWriter
	started bool
}

func (a *answerWriter) start() {
	if !a.started {
		a.started = true
		// ErrNotSupported on a connection without deadlines: nothing to move.
		_ = http.NewResponseController(a.ResponseWriter).SetWriteDeadline(time.Now().Add(AnswerTime))
	}
}

func (a *answerWriter) WriteHeader(code int) { a.start(); a.ResponseWriter.WriteHeader(code) }

func (a *answerWriter) Write(b []byte) (int, error) { a.start(); return a.ResponseWriter.Write(b) }

// Unwrap lets http.ResponseController reach the connection.
func (a *answerWriter) Unwrap() http.ResponseWriter { return a.ResponseWriter }
