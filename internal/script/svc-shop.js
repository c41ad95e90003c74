// svc-shop.js: what svc.js does on a shop platform's pages to tie the
// shop's orders to the shopper's session, so that the holdout experiment
// and the conversion work for orders that come by webhook
// (docs/integrations.md, Sessions). svc.js loads it only where it is
// needed: on Shopify's pages, and on WooCommerce's order-received page.
// Every failure is swallowed, and nothing here waits for anything.
(function (w, d) {
  "use strict";
  var k = w.__svc && w.__svc.k, me = d.currentScript;
  // svc.js's session in this tab: none before the tab's first product
  // page, and then no view to tie an order to.
  var sid = k && (k.s("svc_sid") || w.__svcSid), S = w.Shopify, m = /order-received[/=](\d+).*[?&]key=(wc_order_\w+)/.exec(location.href), r;
  if (!sid || k.p || !k.o.brandId) return;
  k.p = 1;
  // Shopify: the cart's attributes go with it into the order, whose
  // webhook gives them in note_attributes. The underscore hides this one
  // from the shopper at checkout. Once per session (svc_cart), unless
  // Shopify refused it.
  if (S && S.shop && k.s("svc_cart") != sid)
    fetch(((S.routes && S.routes.root) || "/") + "cart/update.js", {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ attributes: { _svc_session: sid } })
    }).then(function (r) {
      if (r.ok) k.s("svc_cart", sid);
      k.g("the cart's _svc_session " + (r.ok ? "is this session" : "was refused: " + r.status));
    }, function () {});
  // WooCommerce: the order-received page's order and key (the key proves
  // the page is the order's own), linked by the service once its signed
  // webhook has given the same key.
  if (m) {
    try {
      // Beside this script, as svc.js sends its events beside itself.
      r = fetch(me.src.replace(/\/svc-shop\.js([?#].*)?$/, "") + "/api/collect/order-session", {
        method: "POST",
        body: JSON.stringify({ brand_id: k.o.brandId, order_id: m[1], order_key: m[2], session_id: sid }),
        keepalive: true,
        credentials: "omit",
        headers: { "Content-Type": "text/plain" }
      });
    } catch (e) {
      return;
    }
    r.then(function (r) {
      return r.json().then(function (a) {
        k.g("order " + m[1] + ": " + (r.ok ? a.status : r.status + " " + a.detail));
      });
    }).catch(function () {});
  }
})(window, document);
