package httpapi

import (
	"net/http"

	"github.com/svc-project/svc/internal/shops"
	"github.com/svc-project/svc/internal/wire"
)

// collectOrderSession links a shop's order to the session of its
// order-received page, which svc-shop.js sends (svc.OrderSessionStore,
// docs/integrations.md, Sessions). It answers "linked" when the order's
// signed webhook gave the same key, else "pending": the link waits for
// the webhook. The checks are a view's: a key of the brand, or a browser
// on one of its domains; the order key is the proof that the page is the
// order's own.
func (s *Server) collectOrderSession(w http.ResponseWriter, r *http.Request) error {
	var body wire.OrderSession
	_, decodeErrors, err := decodeJSON(w, r, &body)
	if err != nil {
		return err
	}
	l := body.Link()
	key, cred, err := s.authenticate(r)
	if err != nil {
		return err
	}
	if err := checked(decodeErrors, l.Validate()); err != nil {
		return err
	}
	if _, err := s.auth.Authorize(l.BrandID, key, cred.Origin); err != nil {
		return err
	}
	linked, err := s.opts.Sessions.LinkOrderSession(r.Context(), l.BrandID, l.OrderID, l.OrderKey, l.SessionID, s.tracker.Now())
	if err != nil {
		return err
	}
	status := "pending"
	if linked {
		status = "linked"
	}
	writeJSON(w, http.StatusOK, append(appendString([]byte(`{"status":`), status), "}\n"...))
	return nil
}

// orderKey records the key a verified webhook gave for its order, for
// its order-received page to link the order to a session; before the
// webhook is answered, so that a failure is retried.
func (s *Server) orderKey(r *http.Request, brandID string, a *shops.Action) error {
	if a.OrderKey == "" || s.opts.Sessions == nil {
		return nil
	}
	return s.opts.Sessions.OrderKey(r.Context(), brandID, a.OrderID, a.OrderKey, s.tracker.Now())
}
