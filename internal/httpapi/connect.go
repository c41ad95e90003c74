package httpapi

import (
	"errors"
	"net/http"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/collect"
	"github.com/svc-project/svc/internal/shops"
)

// MaxWebhookBytes is the largest webhook body read. A platform's order is
// far more verbose than svc's (taxes, discounts, addresses per line): 2 MiB
// holds an order of svc's 500 lines.
const MaxWebhookBytes = 2 << 20

// errBadSignature is the one answer to a webhook that cannot be verified:
// a wrong or missing signature, a brand without a secret for the platform,
// or no such brand. The same answer for each tells a prober nothing about
// which brands exist or have a secret (docs/integrations.md).
var errBadSignature = svc.Errorf(svc.EUNAUTHORIZED, "the webhook's signature does not verify with the brand's secret for the platform")

// shopifyWebhook receives Shopify's order webhooks (docs/integrations.md).
func (s *Server) shopifyWebhook(w http.ResponseWriter, r *http.Request) error {
	brandID := r.PathValue("brand_id")
	body, free, err := s.verifiedWebhook(w, r, svc.PlatformShopify, brandID, r.Header.Get(shops.ShopifySignatureHeader))
	defer free()
	if err != nil {
		return s.webhookOutcome(svc.PlatformShopify, err)
	}
	a, err := shops.Shopify(brandID, r.Header.Get(shops.ShopifyTopicHeader), body)
	if err != nil {
		return s.webhookOutcome(svc.PlatformShopify, err)
	}
	// Shopify sends a retry with the webhook's id and the same body: its
	// replay answers the first answer. A refund is keyed by its own id, so
	// that it takes its units out once however it is delivered.
	key := ""
	if id := r.Header.Get(shops.ShopifyWebhookIDHeader); id != "" {
		key = "shopify:" + id
	}
	if a.CancelID != "" {
		key = "shopify-" + a.CancelID
	}
	return s.act(w, r, svc.PlatformShopify, brandID, a, key, body)
}

// wooCommerceWebhook receives WooCommerce's order webhooks, and answers
// the ping WooCommerce sends when a webhook is saved.
func (s *Server) wooCommerceWebhook(w http.ResponseWriter, r *http.Request) error {
	brandID := r.PathValue("brand_id")
	sig := r.Header.Get(shops.WooCommerceSignatureHeader)
	body, free, err := s.verifiedWebhook(w, r, svc.PlatformWooCommerce, brandID, sig)
	defer free()
	switch {
	case errors.Is(err, errBadSignature) && sig == "" && shops.IsWooCommercePing(body):
		// The ping is unsigned, so it proves nothing: the same 200 for
		// every brand, with a secret, without one, or none at all, tells a
		// prober nothing, and nothing of it is kept. WooCommerce saves the
		// webhook only on a 200 to it.
		return s.act(w, r, svc.PlatformWooCommerce, brandID, &shops.Action{Kind: shops.Ignore, Reason: "ping"}, "", nil)
	case err != nil:
		return s.webhookOutcome(svc.PlatformWooCommerce, err)
	}
	a, err := shops.WooCommerce(brandID, r.Header.Get(shops.WooCommerceTopicHeader), body)
	if err != nil {
		return s.webhookOutcome(svc.PlatformWooCommerce, err)
	}
	// No idempotency key: WooCommerce's delivery id is a hash of the
	// webhook and the second, the same for two orders sent in one second.
	// Orders are told apart by their ids.
	return s.act(w, r, svc.PlatformWooCommerce, brandID, a, "", body)
}

// verifiedWebhook reads a webhook's body within the budget of unverified
// bytes (webhookbody.go) and checks its signature against the brand's
// secret for the platform, in constant time. A body over MaxWebhookBytes
// is ETOOLARGE; a signature that does not verify, for whatever reason,
// errBadSignature, with the body (a WooCommerce ping is unsigned). The
// body's bytes leave the budget once the signature is checked; free gives
// its buffer back, once the handler is done with the body.
func (s *Server) verifiedWebhook(w http.ResponseWriter, r *http.Request, platform, brandID, signature string) (body []byte, free func(), err error) {
	b, err := s.readWebhookBody(w, r)
	if err != nil {
		return nil, func() {}, err
	}
	secret, ok := s.auth.WebhookSecret(brandID, platform)
	if !ok {
		secret = "" // Verify refuses an empty secret, after the same work
	}
	if !shops.Verify(b.data, secret, signature) {
		if ok && signature != "" {
			// A brand with a secret whose shop signs with another: its
			// owners are told (the operator's page, the weekly digest).
			s.opts.Metrics.BrandRefused(brandID, platform, svc.EUNAUTHORIZED)
		}
		return b.data, b.free, errBadSignature
	}
	b.verified()
	return b.data, b.free, nil
}

// act does what a verified webhook asks: counts its order, or takes it
// out, through the checks of every event (internal/collect).
func (s *Server) act(w http.ResponseWriter, r *http.Request, platform, brandID string, a *shops.Action, key string, body []byte) error {
	hash := bodyHash(body)
	switch a.Kind {
	case shops.Ignore:
		if err := s.orderKey(r, brandID, a); err != nil {
			return s.webhookOutcome(platform, err)
		}
		return s.webhookAnswer(w, platform, webhookAck{Status: "ignored", Reason: a.Reason})
	case shops.Cancel:
		res, err := s.cancelOrder(r, brandID, a, key, hash)
		if err == nil {
			err = s.orderKey(r, brandID, a)
		}
		if err != nil {
			return s.webhookOutcome(platform, err)
		}
		return s.webhookAnswer(w, platform, res)
	}
	// The signature settled the brand; the order goes through the checks
	// of every event as a keyed one.
	ev := collect.Event{Write: &svc.Write{Purchase: a.Order}, Hash: func() [32]byte { return hash }}
	if key != "" {
		ev.IdempotencyKey = &key // one the platform's id makes: dropped if not valid
	}
	switch err := s.pipeline.Collect(collect.Source{Kind: collect.Platform, Brand: s.auth.Brand(brandID)}, &ev); {
	case err != nil:
		return s.webhookOutcome(platform, err)
	case ev.Ignored == collect.IgnoredOld:
		return s.webhookAnswer(w, platform, webhookAck{Status: "ignored", Reason: "the order is older than the retention"})
	}
	// After the order is stored: a page that came first gives it its session.
	if err := s.orderKey(r, brandID, a); err != nil {
		return s.webhookOutcome(platform, err)
	}
	res := ev.Write.Result
	return s.webhookAnswer(w, platform, webhookAck{Status: res.Status, EventID: res.EventID, replay: res.Replay})
}

// webhookAck is the answer to a verified webhook.
type webhookAck struct {
	Status  string // accepted, duplicate or ignored
	EventID string
	Reason  string // why an ignored webhook counts nothing
	replay  bool
}

func (s *Server) webhookAnswer(w http.ResponseWriter, platform string, a webhookAck) error {
	outcome := a.Status
	if a.replay {
		outcome = "replay"
		w.Header().Set("Idempotent-Replayed", "true")
	}
	s.opts.Metrics.Event(platform, outcome)
	b := append(make([]byte, 0, 128), `{"status":`...)
	b = appendString(b, a.Status)
	if a.EventID != "" {
		b = append(b, `,"event_id":`...)
		b = appendString(b, a.EventID)
	}
	if a.Reason != "" {
		b = append(b, `,"reason":`...)
		b = appendString(b, a.Reason)
	}
	writeJSON(w, http.StatusOK, append(b, "}\n"...))
	return nil
}

// webhookOutcome records a refused webhook in the metrics.
func (s *Server) webhookOutcome(platform string, err error) error {
	s.opts.Metrics.Event(platform, "rejected_"+svc.ErrorCode(err))
	return err
}

// cancelOrder takes a webhook's order, or some of its units, out of the
// counts through the pipeline and the tracker's one cancel path, which
// also records a cancellation that arrives before its order, so that the
// order never counts.
func (s *Server) cancelOrder(r *http.Request, brandID string, a *shops.Action, key string, hash [32]byte) (webhookAck, error) {
	c := &svc.CancelEvent{BrandID: brandID, OrderID: a.OrderID, IfCounted: a.IfCounted}
	if a.Items != nil {
		c.Items = make([]svc.CancelItem, len(a.Items))
		for i, it := range a.Items {
			c.Items[i] = svc.CancelItem{ProductID: it.ProductID, Quantity: &it.Quantity}
		}
	}
	// The signature settled the brand: the cancellation goes through the
	// checks of every event as a keyed one.
	cn := collect.Cancellation{Cancel: c, Hash: func() [32]byte { return hash }}
	if key != "" {
		cn.IdempotencyKey = &key // one the platform's id makes: dropped if not valid
	}
	if err := s.pipeline.Cancel(r.Context(), collect.Source{Kind: collect.Platform, Brand: s.auth.Brand(brandID)}, &cn); err != nil {
		return webhookAck{}, err
	}
	ack := webhookAck{Status: c.Result.Status, EventID: c.Result.EventID, replay: c.Result.Replay}
	if ack.Status == svc.StatusIgnored {
		ack.Reason = "order " + a.OrderID + " is not counted yet: it counts if it is paid"
	}
	return ack, nil
}
