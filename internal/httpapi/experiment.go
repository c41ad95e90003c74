package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/svc-project/svc"
)

// experiment answers the brand's holdout experiment. Its figures are the
// brand's business, so only its key may read them, never a browser on
// its domains.
func (s *Server) experiment(w http.ResponseWriter, r *http.Request) error {
	key, _, err := s.authenticate(r)
	if err != nil {
		return err
	}
	params := query{raw: r.URL.RawQuery}
	brandID := params.Get("brand_id")
	var fields []svc.FieldError
	if brandID == "" {
		fields = append(fields, svc.FieldError{Field: "brand_id", Message: "is required"})
	}
	if fields = svc.MergeFieldErrors(params.repeated, fields); len(fields) > 0 {
		return svc.Invalid(fields)
	}
	if key == nil {
		return svc.Errorf(svc.EUNAUTHORIZED, "the experiment needs a key of brand %q in the %s header", brandID, APIKeyHeader)
	}
	brand, err := s.auth.Authorize(brandID, key, "")
	if err != nil {
		return err
	}
	d, err := s.opts.Insights.Brand(r.Context(), brandID)
	if err != nil {
		return err
	}
	defer d.Release()
	e, err := d.Experiment(r.Context(), brand.Holdout)
	if err != nil {
		return err
	}
	body, err := json.Marshal(e)
	if err != nil {
		return svc.Internal(err)
	}
	w.Header()["Cache-Control"] = hNoStore
	writeJSON(w, http.StatusOK, append(body, '\n'))
	return nil
}
