package httpapi

import (
	"encoding/json"
	"net/http"

	"github.com/svc-project/svc"
)

// Enrichment needs no key; a key that is sent must be valid (docs/decisions.md, Authentication).
// Answers are never cached: the counts move.

func (s *Server) searchEnrich(w http.ResponseWriter, r *http.Request) error {
	var req svc.SearchEnrichRequest
	if err := s.decodeEnrich(w, r, &req, req.Validate); err != nil {
		return err
	}
	return writeEnriched(w, s.enrich.Search(&req, r.Header.Get("Accept-Language")))
}

func (s *Server) productEnrich(w http.ResponseWriter, r *http.Request) error {
	var req svc.ProductEnrichRequest
	if err := s.decodeEnrich(w, r, &req, req.Validate); err != nil {
		return err
	}
	return writeEnriched(w, s.enrich.Product(&req, r.Header.Get("Accept-Language")))
}

// decodeEnrich checks the key, decodes the body into v and validates it,
// naming every bad field.
func (s *Server) decodeEnrich(w http.ResponseWriter, r *http.Request, v any, validate func() []svc.FieldError) error {
	if _, _, err := s.authenticate(r); err != nil {
		return err
	}
	_, decodeErrors, err := decodeJSON(w, r, v)
	if err != nil {
		return err
	}
	if fields := svc.MergeFieldErrors(decodeErrors, validate()); len(fields) > 0 {
		return svc.Invalid(fields)
	}
	return nil
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
