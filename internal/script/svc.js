// svc.js: the client script of svc. It tracks one view per page view, and
// shows the product's social proof in a small, accessible widget. Plain
// modern JavaScript, no dependencies; minified by esbuild when the server
// starts. Every failure is swallowed: the page never sees an error of ours.
(function (w, d) {
  "use strict";
  var me = d.currentScript;
  var name = (me && me.dataset.svc) || "svc";
  var q = w[name];
  if (q && q.loaded) return; // a second copy of the script
  var opts = {}, product = null, viewSent = false, widget = null, timer = 0;
  var apiBase = me ? me.src.replace(/\/svc\.js([?#].*)?$/, "") : "";

  // Sentences per language, with plural forms from Intl.PluralRules. {n} is
  // the count, {d} the window ("in the last hour").
  var T = {
    en: {
      v: { one: "{n} person viewed this {d}", other: "{n} people viewed this {d}" },
      p: { other: "{n} bought {d}" },
      h: ["in the last hour", "in the last {n} hours"],
      m: ["in the last minute", "in the last {n} minutes"]
    },
    de: {
      v: { one: "{n} Person hat sich das {d} angesehen", other: "{n} Personen haben sich das {d} angesehen" },
      p: { other: "{n}-mal gekauft {d}" },
      h: ["in der letzten Stunde", "in den letzten {n} Stunden"],
      m: ["in der letzten Minute", "in den letzten {n} Minuten"]
    },
    fr: {
      v: { one: "{n} personne a consulté ce produit {d}", other: "{n} personnes ont consulté ce produit {d}" },
      p: { one: "{n} achat {d}", other: "{n} achats {d}" },
      h: ["au cours de la dernière heure", "au cours des {n} dernières heures"],
      m: ["au cours de la dernière minute", "au cours des {n} dernières minutes"]
    },
    es: {
      v: { one: "{n} persona vio esto {d}", other: "{n} personas vieron esto {d}" },
      p: { one: "{n} compra {d}", other: "{n} compras {d}" },
      h: ["en la última hora", "en las últimas {n} horas"],
      m: ["en el último minuto", "en los últimos {n} minutos"]
    }
  };

  function locale() {
    var l = String(opts.locale || d.documentElement.lang || navigator.language || "en");
    var m = /^([a-zA-Z]{2})(?:[-_]([a-zA-Z]{2}))?/.exec(l);
    return m ? m[1].toLowerCase() + (m[2] ? "-" + m[2].toUpperCase() : "") : "en";
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
    return w.crypto && crypto.randomUUID ? crypto.randomUUID() : Math.random().toString(36).slice(2) + Date.now().toString(36);
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

  function context(extra) {
    var c = { session_id: session() }, l = locale();
    if (/^[a-z]{2}-[A-Z]{2}$/.test(l)) {
      c.locale = l;
      c.country = l.slice(3);
    }
    for (var k in extra) c[k] = extra[k];
    return c;
  }

  function trackView() {
    if (viewSent || !opts.brandId || !product) return;
    viewSent = true;
    // Draw once the view is counted, so the widget includes this visit.
    send("/api/collect/product-view", { brand_id: opts.brandId, product: product, context: context() }).then(render);
  }

  // fromJSONLD finds a schema.org Product in the page's JSON-LD, in plain,
  // array or @graph form.
  function fromJSONLD() {
    var found = null;
    function visit(x) {
      if (!x || typeof x != "object" || found) return;
      if (Array.isArray(x)) return x.forEach(visit);
      var t = x["@type"];
      if (t == "Product" || (Array.isArray(t) && t.indexOf("Product") >= 0)) {
        var offer = [].concat(x.offers || [])[0] || {};
        var id = x.productID || x.sku || x.mpn || offer.sku || x["@id"];
        if (id) found = clean({ product_id: String(id), sku: x.sku && String(x.sku), title: x.name && String(x.name), url: abs(x.url || offer.url || location.href) });
        return;
      }
      visit(x["@graph"]);
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

  function clean(o) {
    for (var k in o) if (o[k] == null || o[k] === "") delete o[k];
    return o;
  }

  // proof fetches the counts of the page's product, with a 5 s time limit.
  function proof(o) {
    o = o || {};
    var p = o.product_id || (product && product.product_id);
    if (!opts.brandId || !p) return Promise.reject(new Error("svc: no brandId or product"));
    var ac = w.AbortController && new AbortController();
    var t = ac && setTimeout(function () { ac.abort(); }, 5000);
    var u = apiBase + "/api/svc/product-proof?brand_id=" + encodeURIComponent(opts.brandId) + "&product_id=" + encodeURIComponent(p) +
      "&window_views=" + (o.windowViews || wopt().windowViews || 60) + "&window_purchases=" + (o.windowPurchases || wopt().windowPurchases || 24);
    return fetch(u, { credentials: "omit", signal: ac && ac.signal }).then(function (r) {
      clearTimeout(t);
      if (!r.ok) throw new Error("svc: proof answered " + r.status);
      return r.json();
    });
  }

  function wopt() {
    return opts.widget || {};
  }

  // sentences turns a proof into the lines to show; counts below the
  // brand's thresholds give none: social proof is never shown for tiny numbers.
  function sentences(pr) {
    var l = locale(), t = T[l.slice(0, 2)] || T.en, out = [], th = pr.thresholds || {};
    var nf = new Intl.NumberFormat(l), pl = new Intl.PluralRules(l);
    function say(forms, n, unit, len) {
      var dw = len == 1 ? unit[0] : unit[1].replace("{n}", nf.format(len));
      return (forms[pl.select(n)] || forms.other).replace("{n}", nf.format(n)).replace("{d}", dw);
    }
    var wv = pr.window_views, wp = pr.window_purchases;
    if (pr.viewers >= Math.max(th.viewers || 3, 1))
      out.push(say(t.v, pr.viewers, wv % 60 ? t.m : t.h, wv % 60 ? wv : wv / 60));
    if (pr.purchases >= Math.max(th.purchases || 1, 1))
      out.push(say(t.p, pr.purchases, t.h, wp));
    return out;
  }

  // The host keeps the page's layout; the box inherits nothing from the page.
  var CSS = ":host{display:block}" +
    ".w{all:initial;display:block;font:14px/1.4 system-ui,sans-serif;color:#1f2933;background:#fff;border:1px solid #d9e2ec;border-radius:8px;padding:8px 12px;box-shadow:0 2px 8px rgba(0,0,0,.12);animation:f .3s ease-out}" +
    ".w[hidden]{display:none}.w p{margin:0}.w p+p{margin-top:2px}" +
    ".c{position:fixed;left:16px;bottom:16px;z-index:2147483000;max-width:320px}" +
    "@keyframes f{from{opacity:0}}@media (prefers-reduced-motion:reduce){.w{animation:none}}";

  // mount builds the widget in a shadow root: inside [data-svc-proof] if the
  // page has one, else as a fixed corner badge, which shifts no layout.
  function mount() {
    if (widget) return widget;
    var host = d.querySelector("[data-svc-proof]"), corner = !host;
    if (corner) {
      host = d.createElement("div");
      d.body.appendChild(host);
    }
    var root = host.attachShadow ? host.attachShadow({ mode: "open" }) : host;
    try {
      var sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS); // constructed sheets need no style-src for inline CSS
      root.adoptedStyleSheets = [sheet];
    } catch (e) {
      var st = d.createElement("style");
      st.textContent = CSS;
      root.appendChild(st);
    }
    var box = d.createElement("div");
    box.className = "w" + (corner ? " c" : "");
    box.setAttribute("role", "status");
    box.setAttribute("aria-live", "polite");
    box.hidden = true;
    root.appendChild(box);
    return (widget = box);
  }

  function render() {
    clearTimeout(timer);
    // A product named in <head> must not draw before [data-svc-proof] is parsed.
    if (d.readyState == "loading") return d.addEventListener("DOMContentLoaded", render, { once: true });
    if (wopt().show === false || d.visibilityState == "hidden") return;
    proof().then(function (pr) {
      var lines = sentences(pr), box = mount();
      box.textContent = "";
      lines.forEach(function (s) {
        var p = d.createElement("p");
        p.textContent = s;
        box.appendChild(p);
      });
      box.hidden = !lines.length;
    }, noop).then(function () {
      timer = setTimeout(render, Math.max(wopt().refresh || 60, 1) * 1000);
    });
  }

  // Refresh only while the page is seen: no polling in a hidden tab.
  d.addEventListener("visibilitychange", function () {
    d.visibilityState == "hidden" ? clearTimeout(timer) : viewSent && render();
  });

  var commands = {
    init: function (o) {
      opts = o || {};
      if (opts.apiBase) apiBase = String(opts.apiBase).replace(/\/$/, "");
    },
    product: function (p) {
      product = clean({ product_id: p && String(p.product_id || p.id || ""), sku: p.sku, title: p.title, url: p.url && abs(p.url) });
      if (!product.product_id) product = null;
      trackView();
    },
    purchase: function (o) {
      if (!opts.brandId || !o) return;
      send("/api/collect/product-purchase", { brand_id: opts.brandId, order: o, context: { session_id: session() } });
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

  var api = function () {
    return call(arguments);
  };
  api.loaded = true;
  w[name] = api;
  ((q && q.q) || []).forEach(call);

  function auto() {
    if (!product) {
      product = fromJSONLD();
      trackView();
    }
  }
  d.readyState == "loading" ? d.addEventListener("DOMContentLoaded", auto) : auto();
})(window, document);
