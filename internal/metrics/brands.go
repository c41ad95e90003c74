package metrics

import (
	"sort"
	"sync"
)

// BrandRefusal is a count of one brand's refused events of a kind, for a
// reason (an error code), on this server since it started.
type BrandRefusal struct {
	Kind, Reason string
	Count        int64
}

// brandRefusals are the refusals per brand. They are not Prometheus
// labels: a brand label would multiply every series by the brands. Only
// existing brands are counted (the caller checks), so the map is bounded
// by the brands, kinds and reasons.
type brandRefusals struct {
	mu sync.Mutex
	m  map[string]map[[2]string]int64
}

// BrandRefused counts one refused event of kind for reason, for a brand
// that exists.
func (m *Metrics) BrandRefused(brandID, kind, reason string) {
	if m == nil {
		return
	}
	r := &m.refused
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.m == nil {
		r.m = map[string]map[[2]string]int64{}
	}
	if r.m[brandID] == nil {
		r.m[brandID] = map[[2]string]int64{}
	}
	r.m[brandID][[2]string{kind, reason}]++
}

// BrandRefusals are a brand's refused events by kind and reason, most
// first.
func (m *Metrics) BrandRefusals(brandID string) []BrandRefusal {
	if m == nil {
		return nil
	}
	r := &m.refused
	r.mu.Lock()
	out := make([]BrandRefusal, 0, len(r.m[brandID]))
	for k, n := range r.m[brandID] {
		out = append(out, BrandRefusal{k[0], k[1], n})
	}
	r.mu.Unlock()
	sort.Slice(out, func(i, j int) bool {
		if out[i].Count != out[j].Count {
			return out[i].Count > out[j].Count
		}
		return out[i].Kind+out[i].Reason < out[j].Kind+out[j].Reason
	})
	return out
}
