// Package metrics holds the Prometheus metrics of svc, on a registry of its
// own so that tests and several servers in one process do not collide.
package metrics

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the collectors every part of svc reports to. A nil *Metrics
// is valid and records nothing.
type Metrics struct {
	Registry      *prometheus.Registry
	Requests      *prometheus.CounterVec   // by route and status code
	Latency       *prometheus.HistogramVec // by route
	Events        *prometheus.CounterVec   // by kind and outcome
	BatchSize     prometheus.Histogram
	CommitLatency prometheus.Histogram
	refused       brandRefusals // per brand, for the operator's page (brands.go)
}

// New registers the metrics, and the Go runtime's and the process's.
func New() *Metrics {
	m := &Metrics{
		Registry: prometheus.NewRegistry(),
		Requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_http_requests_total", Help: "HTTP requests by route and status code.",
		}, []string{"route", "code"}),
		Latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "svc_http_request_duration_seconds", Help: "Time to answer an HTTP request, by route.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
		}, []string{"route"}),
		Events: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "svc_events_total",
			Help: "Events by kind (view, purchase, cart) and outcome: accepted, duplicate, replay, bot (answered, not counted), or rejected_<reason>.",
		}, []string{"kind", "outcome"}),
		BatchSize: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "svc_store_batch_events", Help: "Events written per group commit.",
			Buckets: prometheus.ExponentialBuckets(1, 2, 12),
		}),
		CommitLatency: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "svc_store_commit_duration_seconds", Help: "Time to write and commit one batch, fsync included.",
			Buckets: []float64{.0001, .00025, .0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1},
		}),
	}
	m.Registry.MustRegister(m.Requests, m.Latency, m.Events, m.BatchSize, m.CommitLatency,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Gauge registers a gauge whose value fn reads at each scrape.
func (m *Metrics) Gauge(name, help string, fn func() float64) {
	if m != nil {
		m.Registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, fn))
	}
}

// CounterFunc registers a counter whose value fn reads at each scrape.
func (m *Metrics) CounterFunc(name, help string, fn func() float64) {
	if m != nil {
		m.Registry.MustRegister(prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, fn))
	}
}

// Event counts one event of kind with its outcome.
func (m *Metrics) Event(kind, outcome string) {
	if m != nil {
		m.Events.WithLabelValues(kind, outcome).Inc()
	}
}

// Batch records one group commit.
func (m *Metrics) Batch(events int, seconds float64) {
	if m != nil {
		m.BatchSize.Observe(float64(events))
		m.CommitLatency.Observe(seconds)
	}
}

// Instrument counts and times the requests of one route. It does what
// promhttp's InstrumentHandlerCounter and InstrumentHandlerDuration do
// together, without their label map per request and second wrapper: on
// the collect and proof paths they were a tenth of the allocations.
func (m *Metrics) Instrument(route string, h http.Handler) http.Handler {
	if m == nil {
		return h
	}
	latency := m.Latency.WithLabelValues(route)
	requests := m.Requests.MustCurryWith(prometheus.Labels{"route": route})
	var byCode [600]atomic.Pointer[prometheus.Counter] // filled as codes are seen
	counter := func(code int) prometheus.Counter {
		if code < 0 || code >= len(byCode) {
			return requests.WithLabelValues(strconv.Itoa(code))
		}
		if c := byCode[code].Load(); c != nil {
			return *c
		}
		c := requests.WithLabelValues(strconv.Itoa(code))
		byCode[code].Store(&c)
		return c
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		sw := NewStatusWriter(w)
		h.ServeHTTP(&sw, r)
		latency.Observe(time.Since(start).Seconds())
		counter(sw.Status).Inc()
	})
}

// StatusWriter remembers the status and size of an answer, for the
// metrics here and the access log.
type StatusWriter struct {
	http.ResponseWriter
	Status      int
	Bytes       int64
	wroteHeader bool
}

// NewStatusWriter wraps w; the status is 200 until one is written.
func NewStatusWriter(w http.ResponseWriter) StatusWriter {
	return StatusWriter{ResponseWriter: w, Status: http.StatusOK}
}

func (w *StatusWriter) WriteHeader(code int) {
	if !w.wroteHeader {
		w.Status, w.wroteHeader = code, true
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *StatusWriter) Write(b []byte) (int, error) {
	w.wroteHeader = true
	n, err := w.ResponseWriter.Write(b)
	w.Bytes += int64(n)
	return n, err
}

// Unwrap lets http.ResponseController reach the connection.
func (w *StatusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.Registry, promhttp.HandlerOpts{Registry: m.Registry})
}
