// svc-corner.js: the widget of svc.js, which svc.js loads only on pages
// that show one, beside the page's proof request: the sentences in every
// language, the drawing of the inline widget and of the corner badge, the
// badge's controls (closing, the chip, the focus rules) and the
// recent-purchase toasts. Its name is older than the move of the inline
// widget's drawing into it (docs/client-script.md, Size).
//
// Each toast is a real purchase from /api/svc/recent-activity, with the
// coarse place and the age the service gives; none is ever invented,
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
  var SVG = "http://www.w3.org/2000/svg", widget;
  var shown = +k.s("svc_tn") || 0, timer = 0, hide = 0, hov = 0, foc = 0, started, host, box, region, held, badge, base, known;

  // Sentences per language, with plural forms from Intl.PluralRules. The
  // count starts every sentence, {d} is the window ("in the last hour").
  // x: the toasts' verb, their close button's name, the badge's.
  var T = {
    en: {
      v: { one: " person viewed this {d}", other: " people viewed this {d}" },
      n: { one: " person is viewing this now", other: " people are viewing this now" },
      c: { one: " person has this in their cart", other: " people have this in their cart" },
      p: { one: " purchase {d}", other: " purchases {d}" },
      h: ["in the last hour", "in the last {n} hours"],
      m: ["in the last minute", "in the last {n} minutes"],
      x: ["Bought", "Hide recent purchases", "Dismiss product activity"]
    },
    de: {
      v: { one: " Person hat diesen Artikel {d} angesehen", other: " Personen haben diesen Artikel {d} angesehen" },
      n: { one: " Person sieht sich diesen Artikel gerade an", other: " Personen sehen sich diesen Artikel gerade an" },
      c: { one: " Person hat diesen Artikel im Warenkorb", other: " Personen haben diesen Artikel im Warenkorb" },
      p: { one: " Kauf {d}", other: " Käufe {d}" },
      h: ["in der letzten Stunde", "in den letzten {n} Stunden"],
      m: ["in der letzten Minute", "in den letzten {n} Minuten"],
      x: ["Gekauft", "Letzte Käufe ausblenden", "Hinweis zur Produktaktivität schließen"]
    },
    fr: {
      v: { one: " personne a consulté cet article {d}", other: " personnes ont consulté cet article {d}" },
      n: { one: " personne consulte cet article en ce moment", other: " personnes consultent cet article en ce moment" },
      c: { one: " personne a cet article dans son panier", other: " personnes ont cet article dans leur panier" },
      p: { one: " achat {d}", other: " achats {d}" },
      h: ["au cours de la dernière heure", "au cours des {n} dernières heures"],
      m: ["au cours de la dernière minute", "au cours des {n} dernières minutes"],
      x: ["Acheté", "Masquer les achats récents", "Masquer l’activité de l’article"]
    },
    es: {
      v: { one: " persona vio este artículo {d}", other: " personas vieron este artículo {d}" },
      n: { one: " persona está viendo este artículo ahora", other: " personas están viendo este artículo ahora" },
      c: { one: " persona tiene este artículo en su carrito", other: " personas tienen este artículo en su carrito" },
      p: { one: " compra {d}", other: " compras {d}" },
      h: ["en la última hora", "en las últimas {n} horas"],
      m: ["en el último minuto", "en los últimos {n} minutos"],
      x: ["Comprado", "Ocultar las compras recientes", "Ocultar la actividad del artículo"]
    }
  };

  function lang() {
    var l = k.l(1); // in the brand's languages
    return T[l[0]] ? [l[0] + (l[1] ? "-" + l[1] : ""), T[l[0]].x] : ["en", T.en.x];
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
    "font:max(.875rem,14px)/max(1.25rem,20px) system-ui,sans-serif;color:var(--f);background:var(--b);border:.0625rem solid var(--l);border-radius:.5rem;padding:.5rem .75rem;box-shadow:0 .25rem 1rem #0003;animation:s .3s}.i{font-family:inherit}" +
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
      if (e.target != wd.x) bx.classList.toggle("k"), clash();
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
      held = isHeld(pr);
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
      if (held || (held = isHeld(a))) return k.g("held out");
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
    box.classList.toggle("i", k.w().font == "inherit");
    region.textContent = "";
    p = region.appendChild(d.createElement("p"));
    svg = p.appendChild(d.createElementNS(SVG, "svg"));
    svg.setAttribute("viewBox", "0 0 16 16");
    svg.setAttribute("aria-hidden", "true");
    svg.appendChild(d.createElementNS(SVG, "path")).setAttribute("d", ICON.p);
    p.appendChild(d.createElement("b")).textContent = it.product.title;
    p = region.appendChild(d.createElement("p"));
    p.lang = t[0].slice(0, 2);
    p.textContent = t[1][0] + " " + when + (where.length ? " · " + where.join(", ") : "");
    box.classList.remove("e");
    // In the other corner, a toast never covers the badge; where it would
    // even there (a phone, a zoomed page), it waits: it is taken back
    // before it is painted, and the feed is asked again, as when it has
    // nothing to show.
    if (wd && wd.x && over(box, wd.box)) {
      region.textContent = "";
      box.classList.add("e");
      k.g("toast waits: the badge is in its place");
      return (timer = setTimeout(next, Math.max(every, 60) * 1000));
    }
    k.s("svc_tn", String(++shown));
    tell("toast_seen");
    if (!hov && !foc) hide = setTimeout(end, dur * 1000);
  }

  // end takes the toast away and plans the next one: at most one every
  // `every` seconds, counted from the start of each.
  function end() {
    region.textContent = "";
    box.classList.add("e");
    if (shown < max) timer = setTimeout(next, Math.max(every - dur, 1) * 1000);
  }

  // over tells whether two boxes overlap on the screen; an empty or hidden
  // box covers nothing.
  function over(a, b) {
    var r = a.getBoundingClientRect(), s = b.getBoundingClientRect();
    return !b.hidden && s.width > 0 && r.width > 0 && r.right > s.left && r.left < s.right && r.bottom > s.top && r.top < s.bottom;
  }

  // clash ends the toast shown when the badge has grown under it (opened
  // from its chip, or a new line): the badge is about this product.
  function clash() {
    if (box && badge && badge.x && !box.classList.contains("e") && over(box, badge.box)) clearTimeout(hide), end();
  }

  // isHeld tells whether the session is in the brand's holdout: FNV-1a 32
  // of the UTF-8 bytes of its id, mod 100, under widget.holdout percent. A
  // held-out session sees nothing, so that the brand can measure the lift.
  function isHeld(pr) {
    var h = 2166136261, x = k.w(pr).holdout;
    new TextEncoder().encode(k.i()).forEach(function (c) {
      h = Math.imul(h ^ c, 16777619) >>> 0;
    });
    return x > 0 && h % 100 < x;
  }

  function has(v, p) {
    return RegExp("\\b" + p + "\\b").test(v);
  }

  // sentences turns a proof into the facts to show, each {k: signal, n:
  // number, z: the rest of its sentence}, in the language they are written
  // in (the shopper's, or English); counts below the brand's thresholds
  // give none: social proof is never shown for tiny numbers.
  function sentences(pr) {
    var l = k.l(pr), t = T[l[0]], out = [], th = pr.thresholds || {};
    // Numbers are formatted in the sentence's language: an English fallback
    // on an Arabic page says "6", not "٦", and reads left to right.
    var tag = t ? l[0] + (l[1] ? "-" + l[1] : "") : "en";
    t = t || T.en;
    out.lang = tag.slice(0, 2);
    var fmt = function (n) { return new Intl.NumberFormat(tag).format(n); };
    var plural = function (n) { return new Intl.PluralRules(tag).select(n); };
    function say(f, n, unit, len) {
      var dw = unit ? (len == 1 ? unit[0] : unit[1].replace("{n}", fmt(len))) : "";
      out.push({ k: f, n: fmt(n), z: (t[f][plural(n)] || t[f].other).replace("{d}", dw) });
    }
    var wv = pr.window_views, wp = pr.window_purchases, v = k.v(pr), tv = Math.max(th.viewers || 3, 1), tc = Math.max(th.carts || 3, 1);
    if (isHeld(pr)) return k.g("held out"), out;
    // The server says null below the threshold; the script checks again.
    if (has(v, "now") && pr.viewers_now >= tv) say("n", pr.viewers_now);
    if (has(v, "inline") && pr.viewers >= tv) say("v", pr.viewers, wv % 60 ? t.m : t.h, wv % 60 ? wv : wv / 60);
    // Carts: people (sessions) with the product in their cart, never more
    // than the proof's real count says.
    if (has(v, "carts") && pr.carts >= tc) say("c", pr.carts);
    if (has(v, "inline") && pr.purchases >= Math.max(th.purchases || 1, 1)) say("p", pr.purchases, t.h, wp);
    if (!out.length) k.g("below thresholds: viewers " + pr.viewers + "/" + tv + ", purchases " + pr.purchases + "/" + (th.purchases || 1) + ", carts " + pr.carts + "/" + tc);
    return out;
  }

  // The host keeps the page's layout; the box inherits nothing from the page
  // but its direction (so the badge mirrors on a right-to-left page) and,
  // when the brand asks (widget.font inherit, class i), the page's typeface.
  // Colours are custom properties a shop may set (docs/client-script.md,
  // Theming); sizes are in rem, so the shopper's font size holds, and never
  // below 14 px, whatever the page's root size. One line per fact, never
  // wrapped, so the inline widget's height is the same at every width.
  var CSS = ":host{display:block}" +
    ".w{all:initial;--b:var(--svc-bg,#fff);--f:var(--svc-text,#1f2933);--l:var(--svc-border,#d9e2ec);--a:var(--svc-accent,#0b69a3);" +
    "box-sizing:border-box;display:inline-flex;align-items:center;max-width:100%;font:max(.875rem,14px)/max(1.25rem,20px) system-ui,sans-serif;color:var(--f);background:var(--b);" +
    "border:.0625rem solid var(--l);border-radius:.5rem;padding:.5rem .75rem;box-shadow:0 .125rem .5rem #0002}.i{font-family:inherit}" +
    "@media (prefers-color-scheme:dark){.w{--b:var(--svc-bg,#1f2933);--f:var(--svc-text,#f5f7fa);--l:var(--svc-border,#52606d);--a:var(--svc-accent,#7cc4fa)}}" +
    ".w[hidden]{display:none}.e{all:initial}" +
    ".r{min-width:0}p{margin:0;white-space:nowrap;overflow:hidden;text-overflow:ellipsis;animation:f .2s}" +
    "svg{width:1em;height:1em;vertical-align:-.125em;margin-inline-end:.375rem;fill:none;stroke:currentColor;stroke-width:1.5;color:var(--a)}b{color:var(--a)}" +
    "@keyframes f{from{opacity:0}}@media (prefers-reduced-motion:reduce){p{animation:none}}";

  // Icons, one per fact: a signal (a dot and its waves) for the viewers
  // now, an eye for the viewers of the window, a cart for carts, a bag for
  // purchases. On a phone's chip the icon is all that tells them apart.
  var ICON = {
    n: "M8 6.5a1.5 1.5 0 1 0 0 3 1.5 1.5 0 0 0 0-3zM5 5a4.2 4.2 0 0 0 0 6m6-6a4.2 4.2 0 0 1 0 6M2.8 2.8a7.4 7.4 0 0 0 0 10.4m10.4-10.4a7.4 7.4 0 0 1 0 10.4",
    v: "M1 8s2.5-5 7-5 7 5 7 5-2.5 5-7 5-7-5-7-5zm7-2a2 2 0 1 0 0 4 2 2 0 0 0 0-4z",
    c: "M1 2h2l1.8 8h7.7L14.5 4H4m2 9.5a1 1 0 1 0 0 .1m6-.1a1 1 0 1 0 0 .1",
    p: "M3 5h10l-1 9H4zm3 0V4a2 2 0 0 1 4 0v1"
  };

  // build builds the widget in a shadow root: inside [data-svc-proof] if the
  // page has one, else as a fixed corner badge, which shifts no layout and
  // which the shopper can close. The live region is there, empty and not
  // hidden, before any text arrives, so that its first text is announced.
  function build() {
    if (widget) return widget;
    var host = d.querySelector("[data-svc-proof]"), c = !host, root;
    if (c) host = d.body.appendChild(d.createElement("div"));
    try {
      root = host.shadowRoot || host.attachShadow({ mode: "open" });
    } catch (e) {
      // Elements such as <li> take no shadow root: use a child that does.
      root = host.appendChild(d.createElement("div")).attachShadow({ mode: "open" });
    }
    sheet(root, CSS);
    var box = d.createElement("div"), region = box.appendChild(d.createElement("div"));
    box.className = "w e" + (c ? " c k" : "");
    region.className = "r";
    region.setAttribute("role", "status");
    region.setAttribute("aria-live", "polite");
    widget = { box: box, region: region, p: {}, c: c && host, r: root };
    // A badge the shopper closed stays closed for the session; an inline
    // widget still shows.
    box.hidden = c && !!k.s("svc_closed");
    root.appendChild(box);
    requestAnimationFrame(function () { widget.f = 1; });
    return widget;
  }
  k.m = build;
  k.h = isHeld;

  // d draws a proof, writing only what changed: a refresh with the same
  // counts writes nothing, a new count rewrites its number (and its words
  // if the plural changed), each sentence being atomic: a screen reader
  // reads the one changed sentence once (docs/client-script.md,
  // Accessibility). api is where svc.js's service is, for the toasts.
  // tell reports the widget seen, a toast shown, or a click on the widget
  // or on a toast (a box of class w in a shadow root, not its close
  // button), for the brand's dashboard only (POST /api/collect/widget;
  // docs/dashboard.md).
  function tell(kind) {
    k.x("/api/collect/widget", { brand_id: k.o.brandId, kind: kind, session_id: k.i() });
  }
  d.addEventListener("click", function (e) {
    e.composedPath().some(function (x) {
      return x.tagName == "BUTTON" || (/\bw\b/.test(x.className) && x.getRootNode() != d && !tell(widget && x == widget.box ? "click" : "toast"));
    });
  });

  k.d = function (pr, api) {
    var wd = build(), facts, seen = {};
    // A live region filled in the frame that made it may not be announced:
    // the first text waits for the next frame.
    if (!wd.f) return requestAnimationFrame(function () { k.d(pr, api); });
    // widget.accent, else the brand's (its proof's): the colour for icons
    // and numbers on the light background (dark mode keeps its own), once;
    // nothing that could end the rule.
    var a = (k.o.widget || {}).accent || k.w(pr).accent;
    if (!wd.a && /^[#\w(), .%-]+$/.test((wd.a = a) || "")) sheet(wd.r, "@media (prefers-color-scheme:light){.w{--a:" + a + "}}");
    facts = sentences(pr);
    if (has(k.v(pr), "toasts") && !isHeld(pr) && (k.o.widget || {}).show !== false) k.t(wd, api, pr);
    wd.box.classList.toggle("i", k.w(pr).font == "inherit");
    // The badge shows once its close button is there.
    if (wd.c && facts.length) k.b(wd);
    facts.forEach(function (f, i) {
      var p = wd.p[f.k];
      if (!p) {
        p = wd.p[f.k] = d.createElement("p");
        p.lang = facts.lang; // the sentence's own language and direction
        p.dir = "ltr";
        p.setAttribute("aria-atomic", "true");
        var svg = p.appendChild(d.createElementNS(SVG, "svg"));
        svg.setAttribute("viewBox", "0 0 16 16");
        svg.setAttribute("aria-hidden", "true");
        svg.appendChild(d.createElementNS(SVG, "path")).setAttribute("d", ICON[f.k]);
        p.n = p.appendChild(d.createElement("b")).appendChild(d.createTextNode(""));
        p.z = p.appendChild(d.createElement("span")).appendChild(d.createTextNode(""));
      }
      if (p.n.data != f.n) p.n.data = f.n;
      if (p.z.data != f.z) p.z.data = f.z;
      if (wd.region.children[i] != p) wd.region.insertBefore(p, wd.region.children[i] || null);
      seen[f.k] = 1;
    });
    for (var f in wd.p) if (!seen[f]) wd.region.removeChild(wd.p[f]), delete wd.p[f];
    wd.box.classList.toggle("e", !facts.length);
    if (facts.length && !wd.s) tell((wd.s = "seen"));
    if (wd.guard) wd.guard();
    clash();
  };

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
