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
	var body wire.SearchEnrich
	decodeErrors, err := s.decodeEnrich(w, r, &body)
	if err != nil {
		return err
	}
	req := body.Request()
	if err := checked(decodeErrors, req.Validate()); err != nil {
		return err
	}
	return writeEnriched(w, s.enrich.Search(req, r.Header.Get("Accept-Language")))
}

func (s *Server) productEnrich(w http.ResponseWriter, r *http.Request) error {
	var body wire.ProductEnrich
	decodeErrors, err := s.decodeEnrich(w, r, &body)
	if err != nil {
		return err
	}
	req := body.Request()
	if err := checked(decodeErrors, req.Validate()); err != nil {
		return err
	}
	return writeEnriched(w, s.enrich.Product(req, r.Header.Get("Accept-Language")))
}

// decodeEnrich checks the key and decodes the body into v, returning its
// fields of a wrong JSON type.
func (s *Server) decodeEnrich(w http.ResponseWriter, r *http.Request, v any) ([]svc.FieldError, error) {
	if _, _, err := s.authenticate(r); err != nil {
		return nil, err
	}
	_, decodeErrors, err := decodeJSON(w, r, v)
	return decodeErrors, err
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
