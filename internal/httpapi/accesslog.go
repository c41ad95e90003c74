package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/svc-project/svc/internal/metrics"
)

// accessLog logs one line per request at debug level. It logs the method,
// the path without its query, the status, the size and the time taken:
// never headers or query strings, since API keys travel in a header and a
// careless client may put one in a URL.
func accessLog(log *slog.Logger, h http.Handler) http.Handler {
	if !log.Enabled(context.Background(), slog.LevelDebug) {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := metrics.NewStatusWriter(w)
		h.ServeHTTP(&sw, r)
		log.LogAttrs(r.Context(), slog.LevelDebug, "request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path),
			slog.Int("status", sw.Status), slog.Int64("bytes", sw.Bytes),
			slog.Duration("took", time.Since(start)), slog.String("remote", r.RemoteAddr))
	})
}
