package httpapi

import (
	"net/url"
	"slices"
	"strings"

	"github.com/svc-project/svc"
)

// query reads a query string as url.Values.Get would on url.ParseQuery's
// result, without building the map: the proof read is the hottest path,
// and the map was a tenth of its allocations. Pairs that ParseQuery drops
// (a ';', a bad escape) are skipped.
//
// A parameter that is read and given more than once is an error
// (docs/security.md, What we tested and how): first-wins would let a proxy or a log see another
// value than the one we answer for.
type query struct {
	raw      string
	repeated []svc.FieldError
}

// Get returns the first value of name and notes a repetition of it.
func (q *query) Get(name string) string {
	var first string
	found := false
	for rest := q.raw; rest != ""; {
		var pair string
		pair, rest, _ = strings.Cut(rest, "&")
		if pair == "" || strings.Contains(pair, ";") {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		k, err := url.QueryUnescape(k)
		if err != nil || k != name {
			continue
		}
		if v, err = url.QueryUnescape(v); err != nil {
			continue
		}
		if found {
			if !slices.ContainsFunc(q.repeated, func(e svc.FieldError) bool { return e.Field == name }) {
				q.repeated = append(q.repeated, svc.FieldError{Field: name, Message: "is given more than once: give it once"})
			}
			break
		}
		first, found = v, true
	}
	return first
}
