package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/svc-project/svc"
)

// recentActivity answers a brand's recent purchases feed: like the proof,
// no key is needed from the brand's own pages.
func (s *Server) recentActivity(w http.ResponseWriter, r *http.Request) error {
	key, cred, err := s.authenticate(r)
	if err != nil {
		return err
	}
	params := query{raw: r.URL.RawQuery}
	q, fields := parseRecentQuery(params.Get)
	if fields = svc.MergeFieldErrors(params.repeated, fields); len(fields) > 0 {
		return svc.Invalid(fields)
	}
	brand, err := s.auth.Authorize(q.BrandID, key, cred.Origin)
	if err != nil {
		return err
	}
	w.Header()["Cache-Control"] = hNoStore
	writeJSON(w, http.StatusOK, RecentJSON(s.tracker.RecentActivity(q, brand)))
	return nil
}

// RecentJSON is the body of a recent purchases answer, as the API and the
// dashboard's preview of the widget send it.
func RecentJSON(items []svc.RecentItem) []byte {
	out := recentAnswer{Items: make([]recentItem, len(items))}
	for i := range items {
		it := &items[i]
		out.Items[i] = recentItem{Product: recentProduct{ProductID: it.ProductID, Title: it.Title, URL: it.URL},
			Place: it.Place(), MinutesAgo: it.MinutesAgo}
	}
	b, _ := json.Marshal(out) // strings, numbers and maps of strings: cannot fail
	return append(b, '\n')
}

// recentAnswer is the feed's body: what a shopper may see, and nothing
// that names one (docs/honesty.md).
type recentAnswer struct {
	Items []recentItem `json:"items"`
}

type recentItem struct {
	Product    recentProduct     `json:"product"`
	Place      map[string]string `json:"place"`
	MinutesAgo int               `json:"minutes_ago"`
}

type recentProduct struct {
	ProductID string  `json:"product_id"`
	Title     *string `json:"title"`
	URL       *string `json:"url"`
}
