// The settings' preview frame: the embed snippet's queue, as a shop's page
// has it, for the svc.js that the page loads next (widgetpreview.go). The
// frame forgets what svc.js kept for its session (a closed badge, toasts
// seen), so that every preview starts as a shopper's first page.
(function () {
  "use strict";
  var d = document.currentScript.dataset;
  try {
    sessionStorage.clear();
  } catch (e) {}
  var q = (window.svc = function () {
    q.q.push(arguments);
  });
  q.q = [];
  // The first toast at once, rather than after 8 s as on a shop's page.
  q("init", { brandId: d.brand, locale: d.lang, widget: { refresh: 3600, toasts: { delay: 1 } } });
  q("product", { product_id: d.product, title: d.title });
})();
