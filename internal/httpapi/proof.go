package httpapi

import (
	"encoding/json"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/svc-project/svc"
)

func (s *Server) productProof(w http.ResponseWriter, r *http.Request) error {
	key, cred, err := s.authenticate(r)
	if err != nil {
		return err
	}
	params := query{raw: r.URL.RawQuery}
	q, fields := ParseProofQuery(params.Get)
	if fields = svc.MergeFieldErrors(params.repeated, fields); len(fields) > 0 {
		return svc.Invalid(fields)
	}
	brand, err := s.auth.Authorize(q.BrandID, key, cred.Origin)
	if err != nil {
		return err
	}
	p, err := s.tracker.Proof(q, brand)
	if err != nil {
		return err
	}
	w.Header()["Cache-Control"] = hNoStore
	bp := proofBufs.Get().(*[]byte)
	*bp = appendProof((*bp)[:0], p)
	writeJSON(w, http.StatusOK, *bp) // copied by the writer
	proofBufs.Put(bp)
	return nil
}

// proofBufs hold the bodies of proofs being written.
var proofBufs = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

// ProofJSON is the body of a proof answer, as the API and the dashboard's
// preview of the widget send it.
func ProofJSON(p *svc.Proof) []byte { return appendProof(nil, p) }

// appendProof writes the proof body by hand: two of its field names carry
// the windows (docs/decisions.md, Product proof), and this read is the hottest path of the service.
func appendProof(b []byte, p *svc.Proof) []byte {
	b = append(b, `{"brand_id":`...)
	b = appendString(b, p.BrandID)
	b = append(b, `,"product_id":`...)
	b = appendString(b, p.ProductID)
	b = append(b, `,"`...)
	b = appendViewsField(b, p)
	b = append(b, `":`...)
	b = strconv.AppendInt(b, p.Views, 10)
	b = append(b, `,"`...)
	b = appendPurchasesField(b, p)
	b = append(b, `":`...)
	b = strconv.AppendInt(b, p.Purchases, 10)
	b = append(b, `,"views":`...)
	b = strconv.AppendInt(b, p.Views, 10)
	b = append(b, `,"purchases":`...)
	b = strconv.AppendInt(b, p.Purchases, 10)
	b = append(b, `,"viewers":`...)
	b = strconv.AppendInt(b, p.Viewers, 10)
	b = append(b, `,"units":`...)
	b = strconv.AppendInt(b, p.Units, 10)
	b = append(b, `,"window_views":`...)
	b = strconv.AppendInt(b, int64(p.ViewWindow/time.Minute), 10)
	b = append(b, `,"window_purchases":`...)
	b = strconv.AppendInt(b, int64(p.PurchaseWindow/time.Hour), 10)
	b = append(b, `,"`...)
	b = appendCartsField(b, p)
	b = append(b, `":`...)
	b = strconv.AppendInt(b, p.Carts, 10)
	b = append(b, `,"carts":`...)
	b = strconv.AppendInt(b, p.Carts, 10)
	b = append(b, `,"window_carts":`...)
	b = strconv.AppendInt(b, int64(p.CartWindow/time.Minute), 10)
	b = append(b, `,"viewers_now":`...)
	if p.ViewersNow >= int64(p.MinViewers) {
		b = strconv.AppendInt(b, p.ViewersNow, 10)
	} else {
		b = append(b, `null,"reasons":{"viewers_now":"below_threshold"}`...)
	}
	b = append(b, `,"window_now":`...)
	b = strconv.AppendInt(b, int64(p.NowWindow/time.Minute), 10)
	b = append(b, `,"thresholds":{"viewers":`...)
	b = strconv.AppendInt(b, int64(p.MinViewers), 10)
	b = append(b, `,"purchases":`...)
	b = strconv.AppendInt(b, int64(p.MinPurchases), 10)
	b = append(b, `,"carts":`...)
	b = strconv.AppendInt(b, int64(max(p.MinCarts, 1)), 10)
	b = append(b, `},"widget":{"holdout":`...)
	b = strconv.AppendInt(b, int64(p.Holdout), 10)
	if p.WidgetVariant != "" {
		b = append(b, `,"variant":`...)
		b = appendString(b, p.WidgetVariant)
	}
	b = append(b, `,"position":"`...)
	b = append(b, svc.WidgetPositionOf(p.WidgetPosition)...)
	b = append(b, `","languages":[`...)
	for i, l := range svc.WidgetLanguagesOf(p.Languages) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '"')
		b = append(b, l...) // validated: two letters
		b = append(b, '"')
	}
	b = append(b, ']')
	if p.WidgetFont != "" {
		b = append(b, `,"font":`...)
		b = appendString(b, p.WidgetFont)
	}
	if p.WidgetAccent != "" {
		b = append(b, `,"accent":`...)
		b = appendString(b, p.WidgetAccent)
	}
	b = append(b, `},"generated_at":"`...)
	b = p.GeneratedAt.UTC().AppendFormat(b, time.RFC3339)
	b = append(b, "\"}\n"...)
	return b
}

// appendString appends s as a JSON string, as encoding/json writes it.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always marshals
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
