package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/wire"
)

// Enrichment needs no key; a key that is sent must be valid (docs/decisions.md, Authentication).
// Answers are never cached: the counts move.

func (s *Server) searchEnrich(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeEnrich(s, w, r, (*wire.SearchEnrich).Request)
	if err != nil {
		return err
	}
	return writeEnriched(w, s.enrich.Search(req, r.Header.Get("Accept-Language")))
}

func (s *Server) productEnrich(w http.ResponseWriter, r *http.Request) error {
	req, err := decodeEnrich(s, w, r, (*wire.ProductEnrich).Request)
	if err != nil {
		return err
	}
	return writeEnriched(w, s.enrich.Product(req, r.Header.Get("Accept-Language")))
}

// decodeEnrich checks the key, decodes the body into its shape B and
// returns the request it describes, or an error naming every bad field.
func decodeEnrich[B any, R interface{ Validate() []svc.FieldError }](s *Server, w http.ResponseWriter, r *http.Request, request func(*B) R) (R, error) {
	var none R
	if _, _, err := s.authenticate(r); err != nil {
		return none, err
	}
	var body B
	_, decodeErrors, err := decodeJSON(w, r, &body)
	if err != nil {
		return none, err
	}
	req := request(&body)
	return req, checked(decodeErrors, req.Validate())
}

func writeEnriched(w http.ResponseWriter, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, append(b, '\n'))
	return nil
}
