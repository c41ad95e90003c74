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
  var opts = {}, product = null, sentFor = null, widget = null, timer = 0, shown = "", closed = false, ready;
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

  // Sentences per language, with plural forms from Intl.PluralRules. {n} is
  // the count, {d} the window ("in the last hour").
  var T = {
    en: {
      v: { one: "{n} person viewed this {d}", other: "{n} people viewed this {d}" },
      p: { other: "{n} bought {d}" },
      h: ["in the last hour", "in the last {n} hours"],
      m: ["in the last minute", "in the last {n} minutes"],
      x: "Close"
    },
    de: {
      v: { one: "{n} Person hat sich das {d} angesehen", other: "{n} Personen haben sich das {d} angesehen" },
      p: { one: "{n} Kauf {d}", other: "{n} Käufe {d}" },
      h: ["in der letzten Stunde", "in den letzten {n} Stunden"],
      m: ["in der letzten Minute", "in den letzten {n} Minuten"],
      x: "Schließen"
    },
    fr: {
      v: { one: "{n} personne a consulté ce produit {d}", other: "{n} personnes ont consulté ce produit {d}" },
      p: { one: "{n} achat {d}", other: "{n} achats {d}" },
      h: ["au cours de la dernière heure", "au cours des {n} dernières heures"],
      m: ["au cours de la dernière minute", "au cours des {n} dernières minutes"],
      x: "Fermer"
    },
    es: {
      v: { one: "{n} persona vio esto {d}", other: "{n} personas vieron esto {d}" },
      p: { one: "{n} compra {d}", other: "{n} compras {d}" },
      h: ["en la última hora", "en las últimas {n} horas"],
      m: ["en el último minuto", "en los últimos {n} minutos"],
      x: "Cerrar"
    }
  };

  // lang returns [language, region] of a tag such as de-DE, zh-Hant-TW, fil-PH.
  function lang(tag) {
    var m = /^([a-z]{2,3})(?:[-_][a-z]{4})?(?:[-_]([a-z]{2}))?(?![a-z])/i.exec(tag || "");
    return m ? [m[1].toLowerCase(), (m[2] || "").toUpperCase()] : null;
  }

  // locale is the shopper's language and region: from init, else the page,
  // else the browser; the region may come from the browser for the same language.
  function locale() {
    var l = lang(opts.locale) || lang(d.documentElement.lang) || lang(navigator.language) || ["en", ""];
    var nav = lang(navigator.language);
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

  // problem reads a refusal: its status and the service's explanation.
  function problem(r) {
    return r.json().catch(noop).then(function (p) {
      return { status: r.status, detail: (p && p.detail) || r.statusText };
    });
  }

  // why explains a failed request, with what fixes the usual causes.
  function why(e) {
    if (!e || !e.status) return e instanceof Error && !(e instanceof TypeError) && e.name != "AbortError" ? e.message : "cannot reach " + apiBase;
    return e.status + " " + e.detail + (/origin/.test(e.detail) ? "; svc brands set --brand " + opts.brandId + " --domain " + location.hostname + " adds this host" : "");
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
    viewed = send("/api/collect/product-view", { brand_id: opts.brandId, product: product, context: context() }).then(function (r) {
      if (r && !r.ok) return problem(r).then(function (e) { log("view refused: " + why(e)); });
    });
    viewed.then(render);
  }

  // setProduct keeps what the server would accept: ids up to 128
  // characters, titles up to 512, URLs up to 2048; strings only.
  function setProduct(id, sku, title, url) {
    function str(x, max) {
      x = typeof x == "number" ? String(x) : x;
      return typeof x == "string" && x && x.length <= max ? x : undefined;
    }
    id = str(id, 128);
    if (!id) return;
    product = { product_id: id };
    if ((sku = str(sku, 128))) product.sku = sku;
    if ((title = str(title, 512) || (typeof title == "string" ? title.slice(0, 512) : ""))) product.title = title;
    if ((url = str(abs(url || location.href), 2048))) product.url = url;
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
        var offer = [].concat(x.offers || [])[0] || {};
        var id = x.productID || x.productGroupID || x.sku || x.mpn || offer.sku || x["@id"];
        if (id) return (found = [id, x.sku || offer.sku, typeof x.name == "string" ? x.name : "", x.url || offer.url]);
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
      if (!opts.brandId || !p) throw new Error("no brandId or product");
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

  // sentences turns a proof into the lines to show; counts below the
  // brand's thresholds give none: social proof is never shown for tiny numbers.
  function sentences(pr) {
    var l = locale(), t = T[l[0]] || T.en, out = [], th = pr.thresholds || {}, tag = l[0] + (l[1] ? "-" + l[1] : "");
    var fmt = function (n) { return w.Intl ? new Intl.NumberFormat(tag).format(n) : n; };
    var plural = function (n) { return w.Intl && Intl.PluralRules ? new Intl.PluralRules(tag).select(n) : n == 1 ? "one" : "other"; };
    function say(forms, n, unit, len) {
      var dw = len == 1 ? unit[0] : unit[1].replace("{n}", fmt(len));
      return (forms[plural(n)] || forms.other).replace("{n}", fmt(n)).replace("{d}", dw);
    }
    var wv = pr.window_views, wp = pr.window_purchases;
    if (pr.viewers >= Math.max(th.viewers || 3, 1))
      out.push(say(t.v, pr.viewers, wv % 60 ? t.m : t.h, wv % 60 ? wv : wv / 60));
    if (pr.purchases >= Math.max(th.purchases || 1, 1))
      out.push(say(t.p, pr.purchases, t.h, wp));
    if (!out.length) log("below the brand's thresholds: viewers " + pr.viewers + "/" + (th.viewers || 3) + ", purchases " + pr.purchases + "/" + (th.purchases || 1));
    return out;
  }

  // The host keeps the page's layout; the box inherits nothing from the page.
  var CSS = ":host{display:block}" +
    ".w{all:initial;display:block;font:14px/20px system-ui,sans-serif;color:#1f2933;background:#fff;border:1px solid #d9e2ec;border-radius:8px;padding:8px 12px;box-shadow:0 2px 8px rgba(0,0,0,.12);animation:f .3s ease-out}" +
    ".w[hidden]{display:none}.w p{margin:0}.w p+p{margin-top:2px}" +
    ".c{position:fixed;left:16px;bottom:16px;z-index:1000;max-width:320px;padding-right:32px}" +
    "button{all:initial;position:absolute;top:4px;right:8px;cursor:pointer;font:18px/1 system-ui,sans-serif;color:#627d98;padding:4px}" +
    "button:focus-visible{outline:2px solid #0b69a3}" +
    "@keyframes f{from{opacity:0}}@media (prefers-reduced-motion:reduce){.w{animation:none}}";

  // mount builds the widget in a shadow root: inside [data-svc-proof] if the
  // page has one, else as a fixed corner badge, which shifts no layout and
  // which the shopper can close.
  function mount() {
    if (widget) return widget;
    var host = d.querySelector("[data-svc-proof]"), corner = !host, root;
    if (corner) host = d.body.appendChild(d.createElement("div"));
    try {
      root = host.shadowRoot || host.attachShadow({ mode: "open" });
    } catch (e) {
      // Elements such as <li> take no shadow root: use a child that does.
      root = host.appendChild(d.createElement("div")).attachShadow({ mode: "open" });
    }
    try {
      var sheet = new CSSStyleSheet();
      sheet.replaceSync(CSS); // constructed sheets need no style-src for inline CSS
      root.adoptedStyleSheets = [sheet];
    } catch (e) {
      var st = d.createElement("style");
      st.textContent = CSS;
      root.appendChild(st);
    }
    var box = d.createElement("div"), lines = d.createElement("div");
    box.className = "w" + (corner ? " c" : "");
    box.setAttribute("role", "status");
    box.setAttribute("aria-live", "polite");
    box.hidden = true;
    box.appendChild(lines);
    if (corner) {
      var x = box.appendChild(d.createElement("button"));
      x.textContent = "×";
      x.setAttribute("aria-label", (T[locale()[0]] || T.en).x);
      x.onclick = function () {
        closed = box.hidden = true;
        clearTimeout(timer);
      };
    }
    root.appendChild(box);
    widget = { box: box, lines: lines };
    return widget;
  }

  function draw(pr) {
    var lines = sentences(pr), text = lines.join("\n"), wd = mount();
    // Only a change is written, so a screen reader announces nothing twice.
    if (text != shown) {
      shown = text;
      wd.lines.textContent = "";
      lines.forEach(function (s) {
        wd.lines.appendChild(d.createElement("p")).textContent = s;
      });
    }
    wd.box.hidden = !lines.length || closed;
  }

  function render() {
    clearTimeout(timer);
    // A product named in <head> must not draw before [data-svc-proof] is parsed.
    if (d.readyState == "loading") return d.addEventListener("DOMContentLoaded", render, { once: true });
    if (wopt().show === false) return log("widget.show is false");
    if (closed || d.visibilityState == "hidden") return;
    var again = true;
    proof().then(draw).catch(function (e) {
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
    product: function (p) {
      setProduct(p.product_id || p.id, p.sku, p.title, p.url);
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
  w[name] = api;
  queued.forEach(call);

  function auto() {
    if (!product) {
      var f = fromJSONLD();
      if (f) setProduct(f[0], f[1], f[2], f[3]);
    }
    if (!product) log("no product: call svc(\"product\", ...) or add JSON-LD");
    ready(); // proof calls waiting for a product stop waiting
  }
  d.readyState == "loading" ? d.addEventListener("DOMContentLoaded", auto) : auto();
})(window, document);
