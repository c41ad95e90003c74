// svc-corner.js: the widgets of svc.js that sit in a corner of the page,
// which svc.js loads only on pages that show one: the corner badge's
// controls (closing, the chip, the focus rules) and the recent-purchase
// toasts. Each toast is a real purchase from /api/svc/recent-activity, with
// the coarse place and the age the service gives; none is ever invented,
// repeated or kept past the brand's window.
(function (w, d) {
  "use strict";
  var k = w.__svc && w.__svc.k;
  if (!k || k.b) return;
  var to = (k.o.widget || {}).toasts || {};
  // opt reads a number of seconds (or a count): data-svc-toast-NAME on any
  // element, else init's widget.toasts.NAME, else the default.
  function opt(name, def) {
    var e = d.querySelector("[data-svc-toast-" + name + "]"), v = e ? e.getAttribute("data-svc-toast-" + name) : to[name];
    return v != null && v !== "" && +v >= 0 ? +v : def;
  }
  var delay = opt("delay", 8), every = opt("every", 20), max = opt("max", 3), dur = Math.max(opt("duration", 6), 1);
  var shown = +k.s("svc_tn") || 0, timer = 0, hide = 0, hov = 0, foc = 0, started, host, box, region, held, badge, base, known;

  // Per language: the toasts' verb, their close button's name, the badge's.
  var T = {
    en: ["Bought", "Hide recent purchases", "Dismiss product activity"],
    de: ["Gekauft", "Letzte Käufe ausblenden", "Hinweis zur Produktaktivität schließen"],
    fr: ["Acheté", "Masquer les achats récents", "Masquer l’activité de l’article"],
    es: ["Comprado", "Ocultar las compras recientes", "Ocultar la actividad del artículo"]
  };

  function lang() {
    var l = k.l(1); // in the brand's languages
    return T[l[0]] ? [l[0] + (l[1] ? "-" + l[1] : ""), T[l[0]]] : ["en", T.en];
  }

  // The close button, as the badge and the toasts draw it: at least 24 px,
  // 44 px on touch screens, with a visible focus ring.
  var BUTTON = "button{all:initial;flex:none;display:grid;place-items:center;min-width:24px;min-height:24px;width:1.5rem;height:1.5rem;" +
    "margin-inline:.5rem -.375rem;border-radius:.25rem;cursor:pointer;font:1.125rem/1 system-ui,sans-serif;color:var(--svc-muted,#52606d)}" +
    "@media (prefers-color-scheme:dark){button{color:var(--svc-muted,#bcccdc)}}" +
    "button:focus-visible{outline:.125rem solid var(--a)}@media (pointer:coarse){button{min-width:44px;min-height:44px}}.e button{display:none}";

  // The badge: fixed in the bottom-start corner (or end: atEnd); narrow
  // or zoomed in, a chip of icons and numbers (the sentences stay for
  // screen readers) that a tap, or focus, opens.
  var BADGE = BUTTON + ".c{position:fixed;inset-inline-start:16px;bottom:var(--o);z-index:1000;max-width:calc(100vw - 32px)}.h{opacity:0;pointer-events:none}" +
    "@media (max-width:30em){.k{cursor:pointer}.k:not(:focus-within) .r{display:flex;gap:.75rem}.k:not(:focus-within) span{position:absolute;width:1px;height:1px;overflow:hidden;clip-path:inset(50%)}}";

  // The toasts take the badge's look (docs/client-script.md, Theming).
  var TOAST = ".w{all:initial;--b:var(--svc-bg,#fff);--f:var(--svc-text,#1f2933);--l:var(--svc-border,#d9e2ec);--a:var(--svc-accent,#0b69a3);" +
    "box-sizing:border-box;position:fixed;z-index:1000;bottom:var(--o);inset-inline:var(--i,16px auto);display:flex;align-items:center;width:max-content;max-width:min(24rem,calc(100vw - 32px));" +
    "font:.875rem/1.25rem system-ui,sans-serif;color:var(--f);background:var(--b);border:.0625rem solid var(--l);border-radius:.5rem;padding:.5rem .75rem;box-shadow:0 .25rem 1rem #0003;animation:s .3s}" +
    "@media (prefers-color-scheme:dark){.w{--b:var(--svc-bg,#1f2933);--f:var(--svc-text,#f5f7fa);--l:var(--svc-border,#52606d);--a:var(--svc-accent,#7cc4fa)}}" +
    // Empty between toasts, the box keeps its live region in the page, so
    // that the next toast is announced, but draws nothing.
    ".e{all:initial;position:fixed}.x{--i:auto 16px}.n{--i:auto 16px}.n.x{--i:16px auto}.r{min-width:0}" +
    // The title is cut with "…" when too long; the purchase's line wraps.
    "p{margin:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis}p+p{white-space:normal}" +
    "svg{width:1em;height:1em;vertical-align:-.125em;margin-inline-end:.375rem;fill:none;stroke:currentColor;stroke-width:1.5;color:var(--a)}b{color:var(--f)}" +
    BUTTON +
    // Below 480 px the toast is centred at the bottom, clear of the page's
    // own buttons in the corners.
    "@media (max-width:30em){.w{inset-inline:0;margin-inline:auto}}" +
    "@keyframes s{from{opacity:0;transform:translateY(.5rem)}}@media (prefers-reduced-motion:reduce){.w{animation:none}}";

  // offset is the bottom of a corner widget: 16 px, lifted by
  // data-svc-offset on any element, off a sticky bar or cookie banner.
  function offset() {
    var of = d.querySelector("[data-svc-offset]");
    return ".w{--o:" + (16 + ((of && +of.dataset.svcOffset) || 0)) + "px}";
  }

  // atEnd gives css when the corner widgets sit in the bottom-end corner:
  // init's widget.position, else the brand's (its proof's widget.position).
  // The toasts take the corner the badge leaves (class x) as at start;
  // they read it at each toast (class n), as a page without a product
  // knows the brand's only once the feed's first proof has come.
  function atEnd(css) {
    return ((k.o.widget || {}).position || k.w().position) == "end" ? css : "";
  }

  // sheet adds css to a shadow root, as a constructed stylesheet, which a
  // strict style-src does not block.
  function sheet(root, css) {
    try {
      var s = new CSSStyleSheet();
      s.replaceSync(css);
      root.adoptedStyleSheets = [].slice.call(root.adoptedStyleSheets).concat(s);
    } catch (e) {
      root.appendChild(d.createElement("style")).textContent = css;
    }
  }

  // closer gives box its close button, named name; Escape closes too, while
  // focus is in it. Focus then goes back where it was, not to <body>.
  function closer(box, name, close) {
    var x = box.appendChild(d.createElement("button")), h = box.getRootNode().host, last = d.activeElement;
    x.textContent = "×";
    x.setAttribute("aria-label", name);
    d.addEventListener("focusin", function (e) {
      if (e.target != h) last = e.target;
    });
    function done() {
      var f = box.getRootNode().activeElement;
      close();
      if (f && last && last != d.body) last.focus({ preventScroll: true });
    }
    x.onclick = done;
    box.addEventListener("keydown", function (e) {
      if (e.key == "Escape") done();
    });
    return x;
  }

  // b gives svc.js's corner badge its controls. It stays closed for the
  // session once closed, and never covers the focused element: it fades out
  // while it would.
  k.b = function (wd) {
    if (wd.x) return;
    var bx = wd.box, hs = wd.c;
    sheet(wd.r, BADGE + offset() + atEnd(".c{inset-inline:auto 16px}"));
    wd.x = closer(bx, lang()[1][2], function () {
      bx.hidden = true;
      k.s("svc_closed", "1");
    });
    bx.onclick = function (e) {
      if (e.target != wd.x) bx.classList.toggle("k");
    };
    var guard = (wd.guard = function () {
      var a = d.activeElement, r = a && a != hs && a != d.body && a.getBoundingClientRect(), s = bx.getBoundingClientRect();
      bx.classList.toggle("h", !!r && r.right > s.left && r.left < s.right && r.bottom > s.top && r.top < s.bottom);
    });
    d.addEventListener("focusin", function () {
      requestAnimationFrame(guard);
    });
    w.addEventListener("scroll", function () { requestAnimationFrame(guard); }, { passive: true, capture: true });
  };

  // mount puts the toast box, empty, in a shadow root at the end of the
  // page: its live region is there before the first toast, so that each is
  // announced.
  function mount() {
    if (box) return;
    host = d.body.appendChild(d.createElement("div"));
    host.dataset.svcToasts = "";
    var root = host.attachShadow({ mode: "open" });
    sheet(root, TOAST + offset());
    box = root.appendChild(d.createElement("div"));
    box.className = "w e";
    region = box.appendChild(d.createElement("div"));
    region.className = "r";
    region.setAttribute("role", "status");
    region.setAttribute("aria-live", "polite");
    region.setAttribute("aria-atomic", "true");
    // The close button is beside the live region: never announced.
    closer(box, lang()[1][1], function () {
      // Closed, the toasts end for the session.
      k.s("svc_tc", "1");
      clearTimeout(timer);
      clearTimeout(hide);
      host.remove();
    });
    // Hovered or focused, a toast stays until the pointer and focus leave.
    function pause(h, f) {
      var was = hov || foc;
      hov = h;
      foc = f;
      if (hov || foc) clearTimeout(hide);
      else if (was && region.firstChild) hide = setTimeout(end, dur * 1000);
    }
    box.addEventListener("mouseenter", function () { pause(1, foc); });
    box.addEventListener("mouseleave", function () { pause(0, foc); });
    box.addEventListener("focusin", function () { pause(hov, 1); });
    box.addEventListener("focusout", function (e) { pause(hov, box.contains(e.relatedTarget)); });
  }

  // off tells whether the shopper closed the toasts, or the corner badge:
  // one who closed either wants neither, for the rest of the session.
  function off() {
    return k.s("svc_tc") || k.s("svc_closed");
  }

  // next fetches the recent purchases and shows the next one this session
  // has not seen yet, if any: the feed is newest first, and the n-th toast
  // of a session is its n-th item.
  // arm learns the session's arm on a page without a product, which has no
  // proof of its own: every proof of the brand carries its holdout, so the
  // feed's first product's says it. Until it is known, nothing is shown.
  function arm(a) {
    var u = base + "/api/svc/product-proof?brand_id=" + encodeURIComponent(k.o.brandId) + "&product_id=";
    if (known || !(a.items || [])[0]) return a;
    return fetch(u + encodeURIComponent(a.items[0].product.product_id), { credentials: "omit" }).then(function (r) {
      if (!r.ok) throw new Error("proof: " + r.status);
      return r.json();
    }).then(function (pr) {
      known = 1;
      held = k.h(pr);
      return a;
    });
  }

  function next() {
    if (off() || shown >= max) return;
    if (d.visibilityState == "hidden") return d.addEventListener("visibilitychange", next, { once: true });
    mount();
    fetch(base + "/api/svc/recent-activity?brand_id=" + encodeURIComponent(k.o.brandId), { credentials: "omit" }).then(function (r) {
      if (!r.ok) throw new Error("recent activity: " + r.status);
      return r.json();
    }).then(arm).then(function (a) {
      // A held-out session sees no toasts either (svc.js, held); nor one
      // that closed them while the feed was on its way.
      if (held || (held = k.h(a))) return k.g("held out");
      if (off()) return;
      var it = (a.items || []).filter(function (i) { return i.product && i.product.title; })[shown];
      if (it) return show(it);
      k.g("no recent purchase to show");
      timer = setTimeout(next, Math.max(every, 60) * 1000);
    }).catch(function (e) {
      k.g("no toasts: " + e.message);
    });
  }

  // show writes one purchase into the live region: the product's title, then
  // "Bought 12 minutes ago · Berlin, Germany" in the shopper's language.
  function show(it) {
    var t = lang(), m = it.minutes_ago, pl = it.place || {}, rt = new Intl.RelativeTimeFormat(t[0], { numeric: "auto" }), where = [], p, svg, wd = badge;
    var when = m < 60 ? rt.format(-m, "minute") : m < 1440 ? rt.format(-Math.floor(m / 60), "hour") : rt.format(-Math.floor(m / 1440), "day");
    if (pl.city) where.push(pl.city);
    if (pl.country) {
      try {
        where.push(new Intl.DisplayNames(t[0], { type: "region" }).of(pl.country));
      } catch (e) {
        where.push(pl.country);
      }
    }
    // svc.js's corner badge keeps its corner; the toasts take the other.
    box.classList.toggle("x", !!(wd && wd.x && !wd.box.hidden && !wd.box.classList.contains("e")));
    box.classList.toggle("n", !!atEnd(1));
    region.textContent = "";
    p = region.appendChild(d.createElement("p"));
    svg = p.appendChild(d.createElementNS("http://www.w3.org/2000/svg", "svg"));
    svg.setAttribute("viewBox", "0 0 16 16");
    svg.setAttribute("aria-hidden", "true");
    svg.appendChild(d.createElementNS("http://www.w3.org/2000/svg", "path")).setAttribute("d", "M3 5h10l-1 9H4zm3 0V4a2 2 0 0 1 4 0v1");
    p.appendChild(d.createElement("b")).textContent = it.product.title;
    p = region.appendChild(d.createElement("p"));
    p.lang = t[0].slice(0, 2);
    p.textContent = t[1][0] + " " + when + (where.length ? " · " + where.join(", ") : "");
    box.classList.remove("e");
    k.s("svc_tn", String(++shown));
    if (!hov && !foc) hide = setTimeout(end, dur * 1000);
  }

  // end takes the toast away and plans the next one: at most one every
  // `every` seconds, counted from the start of each.
  function end() {
    region.textContent = "";
    box.classList.add("e");
    if (shown < max) timer = setTimeout(next, Math.max(every - dur, 1) * 1000);
  }

  // t starts the toasts, once: the first comes after `delay` seconds. It
  // takes svc.js's widget, if any, where the API is, and the page's proof,
  // whose holdout svc.js has checked, if the page has a product.
  k.t = function (wd, api, pr) {
    badge = wd;
    base = api;
    known = !!pr;
    if (!started && !off() && shown < max) timer = setTimeout(next, delay * 1000);
    started = 1;
  };
})(window, document);
