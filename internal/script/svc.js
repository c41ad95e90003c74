// svc.js: the client script of svc. It tracks one view per page view, and
// shows the product's social proof in a small, accessible widget. Plain
// modern JavaScript, no dependencies; minified by esbuild when the server
// starts. Every failure is swallowed: the page never sees an error of ours.
(function (w, d) {
  "use strict";
  var me = d.currentScript;
  var name = (me && me.dataset.svc) || "svc";
  var q = w[name];
  var queued = (q && q.q) || [];
  if (w.__svc) {
    // Already running under another name: alias it and replay the calls.
    if (q && q.q) w[name] = w.__svc;
    return queued.forEach(function (a) { w.__svc.apply(null, a); });
  }
  var opts = {}, product = null, sentFor = null, timer = 0, ready, more, bw = {};
  var productKnown = new Promise(function (r) { ready = r; });
  // viewed settles when the page's own view has been answered: proofs wait
  // for it, so that they include this visit.
  var viewed = Promise.resolve();
  // In debug mode (data-svc-debug on a script tag, or svc("debug")) the
  // console says why the widget shows nothing.
  var debug = !!d.querySelector("script[data-svc-debug]");
  function log(msg) {
    if (debug) console.info("svc: " + msg);
  }
  var src = me ? me.src : "";
  var apiBase = /\/svc\.js([?#].*)?$/.test(src) ? src.replace(/\/svc\.js([?#].*)?$/, "") : src ? new URL(src).origin : "";

  // lang returns [language, region] of a tag such as de-DE, zh-Hant-TW, fil-PH.
  function lang(tag) {
    var m = /^([a-z]{2,3})(?:[-_][a-z]{4})?(?:[-_]([a-z]{2}))?(?![a-z])/i.exec(tag || "");
    return m ? [m[1].toLowerCase(), (m[2] || "").toUpperCase()] : null;
  }

  // locale is the shopper's language and region: from init, else the page,
  // else the browser; for the widget's text (pr given), if among the
  // brand's widget.languages, else their first. The region may come from
  // the browser for the same language.
  function locale(pr) {
    var l = lang(opts.locale) || lang(d.documentElement.lang) || lang(navigator.language) || ["en", ""];
    var nav = lang(navigator.language), s = pr && brand(pr).languages;
    if (s && s.indexOf(l[0]) < 0) l = [s[0]];
    if (!l[1] && nav && nav[0] == l[0]) l[1] = nav[1];
    return l;
  }

  function session() {
    var k = "svc_sid", id;
    try {
      id = sessionStorage.getItem(k);
      if (!id) sessionStorage.setItem(k, (id = rid()));
    } catch (e) {
      id = w.__svcSid || (w.__svcSid = rid()); // storage blocked: this page only
    }
    return id;
  }

  function rid() {
    return crypto.randomUUID ? crypto.randomUUID() : Math.random().toString(36).slice(2) + Date.now().toString(36);
  }

  // send posts an event as text/plain: a simple request, so no preflight.
  // Its promise settles, never rejects, when the service has answered or failed.
  function send(path, body) {
    try {
      return fetch(apiBase + path, { method: "POST", body: JSON.stringify(body), keepalive: true, credentials: "omit", headers: { "Content-Type": "text/plain" } }).catch(noop);
    } catch (e) {
      return Promise.resolve();
    }
  }
  function noop() {}

  // problem reads a refusal: its status and the service's explanation.
  function problem(r) {
    return r.json().catch(noop).then(function (p) {
      return { status: r.status, detail: (p && p.detail) || r.statusText };
    });
  }

  // why explains a failed request, with what fixes the usual causes.
  function why(e) {
    if (!e || !e.status) return e instanceof Error && !(e instanceof TypeError) && e.name != "AbortError" ? e.message : "cannot reach " + apiBase;
    return e.status + " " + e.detail + (/origin/.test(e.detail) ? "; svc brands set --brand " + opts.brandId + " --add-domain " + location.hostname + " adds it" : "");
  }

  function context() {
    var c = { session_id: session() }, l = locale();
    if (l[0].length == 2 && l[1]) {
      c.locale = l[0] + "-" + l[1];
      c.country = l[1];
    }
    return c;
  }

  // trackView sends one view per page view and product: again when a
  // single-page app names another product, never for a prerendered page
  // nobody has seen yet.
  function trackView() {
    if (!opts.brandId || !product || sentFor == product.product_id) return;
    if (d.prerendering) return d.addEventListener("prerenderingchange", trackView, { once: true });
    sentFor = product.product_id;
    // Draw once the view is counted, so the widget includes this visit.
    viewed = send("/api/collect/product-view", { brand_id: opts.brandId, product: product, context: context() }).then(refused("view"));
    viewed.then(render);
  }

  // refused logs why the service refused an event, or did not count it,
  // in debug mode: a headless browser's view is a bot's.
  function refused(what) {
    return function (r) {
      if (r && !r.ok) return problem(r).then(function (e) { log(what + " refused: " + why(e)); });
      if (r && debug) return r.json().then((a) => a.reason && log(what + " not counted: " + a.reason + ", " + navigator.userAgent), noop);
    };
  }

  // item keeps of a product what the server would accept: ids, part
  // numbers and makers up to 128 characters, titles up to 512, URLs up to
  // 2048, a GTIN only with its check digit right (the API refuses a whole
  // view for a bad one); strings only. The page's product has the page's URL.
  function item(o, page) {
    function str(x, max, one) {
      x = typeof x == "number" ? String(x) : x;
      if (typeof x != "string") return;
      // One line: page templates break names over lines, and the API
      // refuses control characters. Titles are cut, names dropped.
      if (one) x = x.replace(/[\s\0-\x1f\x7f-\x9f]+/g, " ").trim().slice(0, one);
      return x && x.length <= max ? x : undefined;
    }
    var u = o.url || (page && location.href), g = str(o.gtin, 14, 15), i, s = 0, p = { product_id: str(o.product_id || o.id, 128) },
      k = { sku: str(o.sku, 128), title: str(o.title, 512, 512), url: u && str(abs(u), 2048), mpn: str(o.mpn, 128, 129), brand: str(o.brand, 128, 129) };
    if (!p.product_id) return;
    // Sent as GTIN-14: a number in JSON-LD has lost its leading zeros. GS1's
    // check: weights 1, 3, 1, ... from the right make a multiple of 10.
    if (/^\d{8,14}$/.test(g)) {
      for (g = ("000000" + g).slice(-14), i = 14; i--; ) s += g[i] * (i % 2 ? 1 : 3);
      if (s % 10 == 0) k.gtin = g;
    }
    for (i in k) if (k[i]) p[i] = k[i];
    // Its other names (the platform's variants, the JSON-LD's ids), so
    // that the page and the shop's webhooks count one product.
    k = [].concat(o.aliases).map((x) => str(x, 128)).filter((x) => x && x != p.product_id);
    if (k[0]) p.aliases = k.slice(0, 16);
    return p;
  }

  function setProduct(o) {
    if (!(o = item(o, 1))) return;
    product = o;
    ready();
    trackView();
  }

  // fromJSONLD finds a schema.org Product in the page's JSON-LD: plain, in an
  // array, an @graph, a page's mainEntity, an offer's itemOffered, or a
  // ProductGroup (counted as the group).
  function fromJSONLD() {
    var found;
    function visit(x) {
      if (!x || typeof x != "object" || found) return;
      if (Array.isArray(x)) return x.forEach(visit);
      if ([].concat(x["@type"]).some(function (t) { return /(^|[/:])Product(Group)?$/.test(t); })) {
        var offer = [].concat(x.offers || [])[0] || {}, b = [].concat(x.brand)[0];
        var id = x.productID || x.productGroupID || x.sku || x.mpn || offer.sku || x["@id"];
        // The identifiers let svc match this product with other shops' (docs/enrichment.md).
        if (id)
          return (found = { product_id: id, sku: x.sku || offer.sku, title: x.name, url: x.url || offer.url, gtin: x.gtin13 || x.gtin12 || x.gtin8 || x.gtin14 || x.gtin, mpn: x.mpn, brand: (b && b.name) || b, aliases: [x.sku, x.productID, x["@id"]] });
      }
      [x["@graph"], x.mainEntity, x.itemOffered].forEach(visit);
    }
    d.querySelectorAll('script[type="application/ld+json"]').forEach(function (s) {
      try {
        visit(JSON.parse(s.textContent));
      } catch (e) {}
    });
    return found;
  }

  function abs(u) {
    try {
      return new URL(u, location.href).href.split("#")[0];
    } catch (e) {}
  }

  // proof fetches the counts of a product: the page's one, once it is known.
  function proof(o) {
    o = o || {};
    return (o.product_id ? Promise.resolve() : productKnown).then(function () {
      // A slow view delays the proof by 5 s at most.
      return Promise.race([viewed, new Promise(function (r) { setTimeout(r, 5000); })]);
    }).then(function () {
      var p = o.product_id || (product && product.product_id);
      if (!opts.brandId || !p) throw Error("no brandId or product");
      var ac = w.AbortController && new AbortController();
      var t = ac && setTimeout(function () { ac.abort(); }, 5000);
      var u = apiBase + "/api/svc/product-proof?brand_id=" + encodeURIComponent(opts.brandId) + "&product_id=" + encodeURIComponent(p) +
        "&window_views=" + (o.windowViews || wopt().windowViews || 60) + "&window_purchases=" + (o.windowPurchases || wopt().windowPurchases || 24);
      return fetch(u, { credentials: "omit", signal: ac && ac.signal }).then(function (r) {
        if (!r.ok) return problem(r).then(function (e) { throw e; });
        return r.json();
      }).finally(function () {
        clearTimeout(t);
      });
    });
  }

  function wopt() {
    return opts.widget || {};
  }

  // variant lists the parts of the widget to show: the embed's
  // data-svc-variant, else init's widget.variant, else the brand's (its
  // proof's widget.variant), else the inline line (docs/client-script.md).
  function variant(pr) {
    var e = d.querySelector("[data-svc-variant]");
    return (e && e.dataset.svcVariant) || wopt().variant || brand(pr).variant || "inline";
  }
  // brand is the brand's widget settings, from its proof, else the last.
  function brand(pr) {
    return (bw = (pr && pr.widget) || bw);
  }
  function has(v, k) {
    return RegExp("\\b" + k + "\\b").test(v);
  }

  // corner loads svc-corner.js, beside svc.js, once: the widget's drawing,
  // its sentences in every language, the corner badge's controls and the
  // toasts, which a page that shows no widget never needs. Then it calls f
  // with the script's kit.
  function corner(f) {
    // If it fails to load, the promise never settles and nothing shows.
    more =
      more ||
      new Promise(function (ok) {
        var s = d.head.appendChild(d.createElement("script"));
        s.onload = ok;
        s.src = apiBase + "/svc-corner.js";
      });
    more.then(function () { f(api.k); });
  }

  function store(k, v) {
    try {
      return v ? sessionStorage.setItem(k, v) : sessionStorage.getItem(k);
    } catch (e) {}
  }

  function render() {
    clearTimeout(timer);
    // A product named in <head> must not draw before [data-svc-proof] is parsed.
    if (d.readyState == "loading") return d.addEventListener("DOMContentLoaded", render, { once: true });
    if (wopt().show === false) return log("widget.show is false");
    // A corner badge the shopper closed stays closed for the session.
    if (d.visibilityState == "hidden" || (!d.querySelector("[data-svc-proof]") && store("svc_closed"))) return;
    // The widget's code loads beside the proof, once the view has shown
    // that the service answers (a page whose service hangs never waits for
    // it). Its box and live region go in as soon as it is here, empty,
    // before the proof has come, so that the first text is announced.
    corner(function (k) { k.m(); });
    var again = true;
    proof().then(function (pr) {
      corner(function (k) { k.d(pr, apiBase); });
    }).catch(function (e) {
      log("no proof: " + why(e));
      again = !(e && e.status >= 400 && e.status < 500); // a 4xx will not heal by asking again
    }).then(function () {
      var r = +wopt().refresh;
      if (again) timer = setTimeout(render, Math.max(r > 0 ? r : 60, 1) * 1000);
    });
  }

  // Refresh only while the page is seen: no polling in a hidden tab.
  d.addEventListener("visibilitychange", function () {
    d.visibilityState == "hidden" ? clearTimeout(timer) : sentFor && render();
  });
  // A page restored from the back-forward cache is seen again: another view.
  w.addEventListener("pageshow", function (e) {
    if (e.persisted) {
      sentFor = null;
      trackView();
    }
  });

  var commands = {
    init: function (o) {
      for (var k in o || {}) opts[k] = o[k];
      if (opts.apiBase) apiBase = String(opts.apiBase).replace(/\/$/, "");
      trackView();
    },
    product: setProduct,
    // cart reports an add-to-cart: of the page's product, or of the one named.
    cart: function (o) {
      o = o || {};
      var p = o.product_id || o.id ? item(o) : product, b = { brand_id: opts.brandId, product: p, context: context() };
      if (!opts.brandId || !p) return;
      if (o.quantity != null) b.quantity = o.quantity;
      send("/api/collect/product-cart", b).then(refused("cart"));
    },
    purchase: function (o) {
      if (!opts.brandId || !o) return;
      send("/api/collect/product-purchase", { brand_id: opts.brandId, order: o, context: { session_id: session() } });
    },
    debug: function (on) {
      debug = on !== false;
      render();
    },
    proof: function (o, cb) {
      if (typeof o == "function") (cb = o), (o = {});
      var p = proof(o);
      p.catch(noop); // a caller that ignores the promise gets no unhandled rejection
      if (cb) p.then(function (r) { cb(r); }, function (e) { cb(null, e); });
      return p;
    }
  };

  function call(args) {
    try {
      var f = commands[args[0]];
      return f && f(args[1], args[2]);
    } catch (e) {}
  }

  var api = (w.__svc = function () {
    return call(arguments);
  });
  api.loaded = true;
  // What svc-corner.js takes from this script.
  api.k = { l: locale, s: store, g: log, o: opts, w: brand, i: session, v: variant, x: send };
  w[name] = api;
  queued.forEach(call);

  // auto reads the page's product (docs/integrations.md, Product pages on
  // the platforms): on Shopify, ShopifyAnalytics' (the id its webhooks
  // give) with its variants' ids and SKUs as other names; on WooCommerce,
  // the single-product page's post id; elsewhere, the JSON-LD's.
  function auto() {
    var sp = w.ShopifyAnalytics, c = d.body.className, f = fromJSONLD() || {};
    try {
      sp = sp.meta.product;
      f.aliases = [].concat(f.aliases, sp.variants.flatMap((v) => [v.id, v.sku]));
      f.product_id = sp.id;
    } catch (e) {
      // Not a Shopify product page: a WooCommerce one has its post id in
      // the body classes, as WordPress writes them.
      if ((sp = /\bsingle-product postid-(\d+)/.exec(c))) f.product_id = sp[1];
    }
    if (!product) setProduct(f);
    // svc-shop.js ties the shop's orders to the session: on Shopify, and on
    // WooCommerce's order-received page.
    if (w.Shopify || /-order-received\b/.test(c)) d.head.appendChild(d.createElement("script")).src = apiBase + "/svc-shop.js";
    // A page without a product may still show the brand's recent purchases.
    if (!product && (log("no product: svc(\"product\", ...) or JSON-LD"), has(variant(), "toasts")) && wopt().show !== false) corner(function (k) { k.t(0, apiBase); });
    ready(); // proof calls waiting for a product stop waiting
  }
  d.readyState == "loading" ? d.addEventListener("DOMContentLoaded", auto) : auto();
})(window, document);
