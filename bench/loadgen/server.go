package main

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"slices"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// svc's own histogram of the time its handlers take, by route: read from
// its /metrics before and after a phase, it splits a latency the generator
// measured into svc's part and the part of everything around it (the
// network stack, the scheduler, the generator itself) on a shared machine.
const durationMetric = "svc_http_request_duration_seconds"

// histogram is one route's cumulative bucket counts, by upper bound in
// seconds (the last bound is +Inf).
type histogram struct {
	bounds []float64
	counts []uint64
}

// scrapeDurations reads svc's request-duration histograms from a /metrics URL.
func scrapeDurations(ctx context.Context, client *http.Client, url string) (map[string]histogram, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", url, resp.Status)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", url, err)
	}
	fam, ok := families[durationMetric]
	if !ok {
		return nil, fmt.Errorf("%s has no %s", url, durationMetric)
	}
	out := map[string]histogram{}
	for _, m := range fam.GetMetric() {
		route := label(m, "route")
		h := histogram{}
		for _, b := range m.GetHistogram().GetBucket() {
			h.bounds = append(h.bounds, b.GetUpperBound())
			h.counts = append(h.counts, b.GetCumulativeCount())
		}
		if n := len(h.bounds); n == 0 || !math.IsInf(h.bounds[n-1], 1) { // the text format lists +Inf; others may not
			h.bounds = append(h.bounds, math.Inf(1))
			h.counts = append(h.counts, m.GetHistogram().GetSampleCount())
		}
		out[route] = h
	}
	return out, nil
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// ServerLatency is what svc's own histogram says of one phase: requests
// its handlers answered and the bucket bound under which 99% of them were.
type ServerLatency struct {
	Requests uint64
	P99      time.Duration // an upper bound: the histogram's bucket; -1 when over the last finite bound
}

// serverP99 is the p99 bound of the requests between two scrapes, over
// the routes of the phase's endpoints.
func serverP99(before, after map[string]histogram, endpoints []Endpoint) ServerLatency {
	var bounds []float64
	var counts []uint64
	for _, e := range endpoints {
		a, b := after[e.Path()], before[e.Path()] // svc labels a route with its path
		if len(a.counts) == 0 {
			continue
		}
		if !slices.Equal(a.bounds, b.bounds) || b.counts[len(b.counts)-1] > a.counts[len(a.counts)-1] {
			b = histogram{} // svc restarted between the scrapes: its counts began again
		}
		if bounds == nil {
			bounds, counts = a.bounds, make([]uint64, len(a.counts))
		}
		if !slices.Equal(a.bounds, bounds) {
			continue // routes with other buckets cannot be summed
		}
		for i := range counts {
			counts[i] += a.counts[i]
			if i < len(b.counts) {
				counts[i] -= b.counts[i]
			}
		}
	}
	if len(counts) == 0 || counts[len(counts)-1] == 0 {
		return ServerLatency{}
	}
	total := counts[len(counts)-1]
	for i, c := range counts {
		if float64(c) >= 0.99*float64(total) {
			if math.IsInf(bounds[i], 1) {
				return ServerLatency{Requests: total, P99: -1}
			}
			return ServerLatency{Requests: total, P99: time.Duration(bounds[i] * float64(time.Second))}
		}
	}
	return ServerLatency{Requests: total, P99: -1}
}

// appendTo appends the p99 bound in microseconds to xs for a summary,
// unless there is none to give.
func (s ServerLatency) appendTo(xs []float64) []float64 {
	if s.Requests == 0 || s.P99 < 0 {
		return xs
	}
	return append(xs, float64(s.P99.Microseconds()))
}

func (s ServerLatency) String() string {
	switch {
	case s.Requests == 0:
		return "-"
	case s.P99 < 0:
		return "over the last bucket"
	}
	return "≤ " + ms(s.P99.Microseconds())
}
