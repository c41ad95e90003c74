// Reads the page and draws what svc answered. It reads only the page's
// products (title, URL, price) or search results (title, URL, price), never
// the query, and hands them to the service worker, the only part that talks
// to svc. Nothing is drawn unless the answer's signature checks out.
(() => {
  // The colours are variables: light by default, dark on a dark page or,
  // where the page paints no background, in a browser that prefers dark.
  const STYLE = `
    :host { all: initial; --fg: #1d2433; --muted: #475467; --bg: #fff; --border: #d0d5dd; --shadow: rgba(16, 24, 40, .18);
      --ok: #05603a; --ok-bg: #ecfdf3; --ok-border: #abefc6; --warn: #93370d; --warn-bg: #fffaeb; --link: #1849a9; color-scheme: light; }
    :host([data-scheme="dark"]) { --fg: #e4e7ec; --muted: #98a2b3; --bg: #1d2939; --border: #475467; --shadow: rgba(0, 0, 0, .5);
      --ok: #75e0a7; --ok-bg: #053321; --ok-border: #085d3a; --warn: #fec84b; --warn-bg: #4e1d09; --link: #84adff; color-scheme: dark; }
    .panel { position: fixed; right: 16px; bottom: 16px; z-index: 2147483647; width: 320px; max-height: 70vh; overflow: auto;
      font: 14px/1.4 system-ui, sans-serif; color: var(--fg); background: var(--bg); border: 1px solid var(--border); border-radius: 10px;
      box-shadow: 0 6px 24px var(--shadow); padding: 12px 14px; }
    header { display: flex; align-items: center; gap: 8px; margin-bottom: 6px; }
    .name { font-weight: 700; }
    .verified { color: var(--ok); background: var(--ok-bg); border-radius: 999px; padding: 1px 8px; font-size: 12px; }
    .warning { color: var(--warn); background: var(--warn-bg); border-radius: 6px; padding: 6px 8px; font-size: 13px; }
    button { margin-left: auto; border: 0; background: none; font-size: 18px; cursor: pointer; color: var(--muted); }
    .match { margin: 0 0 6px; }
    .match .product { font-weight: 600; }
    ul { margin: 4px 0; padding-left: 18px; }
    h2 { font-size: 13px; margin: 10px 0 2px; color: var(--muted); }
    .price { margin: 6px 0 0; font-weight: 600; }
    .median { margin: 0 0 6px; color: var(--muted); font-size: 13px; }
    a { color: var(--link); }
    .badge { display: inline-block; margin-left: 8px; padding: 1px 8px; border-radius: 999px; font: 12px/1.6 system-ui, sans-serif;
      color: var(--ok); background: var(--ok-bg); border: 1px solid var(--ok-border); vertical-align: middle; }`;

  // rgba reads a computed colour, "rgb(r, g, b)" or "rgba(r, g, b, a)".
  function rgba(s) {
    const m = /rgba?\(([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:[,\s/]+([\d.]+))?/.exec(s || '');
    return m && { r: +m[1], g: +m[2], b: +m[3], a: m[4] === undefined ? 1 : +m[4] };
  }

  // scheme is the page's: dark when the background it paints is dark; when
  // it paints none, the browser's preference.
  function scheme() {
    for (const e of [document.body, document.documentElement]) {
      const c = e && rgba(getComputedStyle(e).backgroundColor);
      if (c && c.a >= 0.5) {
        const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
        return 0.2126 * lin(c.r) + 0.7152 * lin(c.g) + 0.0722 * lin(c.b) < 0.2 ? 'dark' : 'light';
      }
    }
    return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  }

  const strings = (lang) => globalThis.SVC_STRINGS[lang] || globalThis.SVC_STRINGS.en;

  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }

  // host is an element with a shadow root, so that the page's styles and
  // ours stay apart.
  function host(id) {
    const h = el('svc-extension', { id, 'data-scheme': scheme() });
    const root = h.attachShadow({ mode: 'open' });
    root.append(el('style', {}, STYLE));
    return [h, root];
  }

  const httpURL = (s) => { try { const u = new URL(s, location.href); return /^https?:$/.test(u.protocol) ? u.href : null; } catch { return null; } };

  // --- product pages ---------------------------------------------------

  function jsonLDProducts() {
    const out = [];
    const visit = (v) => {
      if (Array.isArray(v)) return v.forEach(visit);
      if (!v || typeof v !== 'object') return;
      const type = [].concat(v['@type'] || []);
      if (type.includes('Product') || type.includes('ProductGroup')) out.push(v);
      if (v['@graph']) visit(v['@graph']);
    };
    for (const s of document.querySelectorAll('script[type="application/ld+json"]')) {
      try { visit(JSON.parse(s.textContent)); } catch { /* a page's broken JSON-LD is not ours to report */ }
    }
    return out;
  }

  function readProduct() {
    const canonical = document.querySelector('link[rel="canonical"][href]');
    const url = httpURL(canonical ? canonical.getAttribute('href') : location.href.split('#')[0]);
    const ld = jsonLDProducts()[0];
    const product = {};
    if (ld) {
      if (typeof ld.name === 'string') product.title = ld.name.slice(0, 512);
      const brand = typeof ld.brand === 'string' ? ld.brand : ld.brand && ld.brand.name;
      if (typeof brand === 'string') product.brand = brand.slice(0, 512);
      if (typeof ld.sku === 'string') product.sku = ld.sku.slice(0, 128);
      const offer = [].concat(ld.offers || [])[0];
      if (offer) {
        const price = Number(offer.price ?? offer.lowPrice);
        if (Number.isFinite(price) && price >= 0) product.price = price;
        if (typeof offer.priceCurrency === 'string' && /^[A-Z]{3}$/.test(offer.priceCurrency)) product.currency = offer.priceCurrency;
      }
    } else if (!document.querySelector('meta[property="og:type"][content="product" i], [itemtype$="schema.org/Product"]')) {
      return null; // not a product page: its address is not sent anywhere
    }
    if (!url && !product.title) return null;
    return { url, domain: location.hostname, product };
  }

  function drawPanel(reply) {
    const a = reply.answer;
    const S = strings(a.language);
    const [h, root] = host('svc-panel');
    const close = el('button', { 'aria-label': S.close, title: S.close }, '×');
    close.addEventListener('click', () => h.remove());
    const panel = el('div', { class: 'panel', role: 'complementary', 'aria-label': 'svc' });
    root.append(panel);
    const head = el('header', {}, el('span', { class: 'name' }, 'svc'));
    panel.append(head);
    if (!reply.verified) {
      // A changed answer, or a key svc does not publish: no number is shown.
      head.append(close);
      panel.append(el('p', { class: 'warning', 'data-verified': 'false', title: reply.reason }, S.unchecked));
      document.documentElement.append(h);
      return;
    }
    head.append(el('span', { class: 'verified', 'data-verified': 'true', title: S.verifiedTitle }, '✓ ' + S.verified), close);
    if (a.matched && a.match) {
      // What the numbers are about: the product svc matched, at its shop.
      const product = el('span', { class: 'product' }, a.match.title || a.match.product_id);
      const shop = el('span', { class: 'shop' }, a.match.brand_name || a.match.brand_id);
      panel.append(el('p', { class: 'match', 'data-brand': a.match.brand_id }, ...S.match(product, shop)));
    }
    const messages = (a.messages || []).filter((m) => !m.kind.startsWith('price'));
    if (messages.length) panel.append(el('ul', { class: 'messages' }, ...messages.map((m) => el('li', { 'data-kind': m.kind }, m.text))));
    if (a.price && a.price.verdict) {
      const sentence = (a.messages || []).find((m) => m.kind.startsWith('price'));
      const p = el('p', { class: 'price', 'data-verdict': a.price.verdict }, S.price[a.price.verdict] || a.price.verdict);
      if (sentence) p.title = sentence.text;
      panel.append(p);
      if (a.price.median !== null && a.price.median !== undefined) {
        const median = new Intl.NumberFormat(a.language, { style: 'currency', currency: a.price.currency }).format(a.price.median);
        panel.append(el('p', { class: 'median' }, `${S.median}: ${median}`));
      }
    }
    const offers = (a.offers || []).filter((o) => httpURL(o.url || ''));
    if (offers.length) {
      panel.append(el('h2', {}, S.offers));
      panel.append(el('ul', { class: 'offers' }, ...offers.map((o) => {
        const li = el('li', {}, el('a', { href: httpURL(o.url), rel: 'noopener noreferrer', target: '_blank' }, o.title || new URL(o.url).hostname));
        if (o.price && o.price.median !== null && o.price.median !== undefined && o.price.currency) {
          li.append(' · ' + new Intl.NumberFormat(a.language, { style: 'currency', currency: o.price.currency }).format(o.price.median));
        }
        return li;
      })));
    }
    document.documentElement.append(h);
  }

  async function productPage() {
    const product = readProduct();
    if (!product) return;
    const reply = await chrome.runtime.sendMessage({ type: 'product', product });
    if (!reply || !reply.ok) return;
    const a = reply.answer;
    if (reply.verified && !a.matched && !(a.offers || []).length) return; // nothing to say
    drawPanel(reply);
  }

  // --- search result pages -------------------------------------------

  const currencies = { '€': 'EUR', '$': 'USD', '£': 'GBP', 'CHF': 'CHF', 'EUR': 'EUR', 'USD': 'USD', 'GBP': 'GBP' };

  function readPrice(text) {
    const m = /(€|\$|£|CHF|EUR|USD|GBP)?\s*([0-9]{1,3}(?:[.,\s][0-9]{3})*(?:[.,][0-9]{2})?)\s*(€|\$|£|CHF|EUR|USD|GBP)?/.exec(text || '');
    if (!m || !(m[1] || m[3])) return null;
    let n = m[2].replace(/\s/g, '');
    n = /[.,][0-9]{2}$/.test(n) ? n.slice(0, -3).replace(/[.,]/g, '') + '.' + n.slice(-2) : n.replace(/[.,]/g, '');
    const price = Number(n);
    return Number.isFinite(price) ? { price, currency: currencies[m[1] || m[3]] } : null;
  }

  // resultURL undoes a search engine's redirect link.
  function resultURL(a) {
    const u = httpURL(a.getAttribute('href'));
    if (!u) return null;
    const p = new URL(u);
    if (p.hostname === location.hostname && p.pathname === '/url' && p.searchParams.get('q')) return httpURL(p.searchParams.get('q'));
    return u;
  }

  async function searchPage(engine) {
    const found = [];
    for (const r of document.querySelectorAll(engine.result)) {
      if (found.length === 50) break;
      const t = r.querySelector(engine.title);
      const a = r.querySelector(engine.link);
      const url = a && resultURL(a);
      if (!t || !url || found.some((f) => f.el.contains(r) || r.contains(f.el))) continue;
      const item = { url, title: t.textContent.trim().slice(0, 512), domain: new URL(url).hostname };
      const price = readPrice(r.querySelector(engine.price)?.textContent);
      if (price) Object.assign(item, price);
      found.push({ el: r, item });
    }
    if (!found.length) return;
    const reply = await chrome.runtime.sendMessage({ type: 'search', results: found.map((f) => f.item) });
    if (!reply || !reply.ok || !reply.verified) return; // unchecked counts are not shown
    reply.answer.results.forEach((res, i) => {
      if (!res.matched || !res.badge || !found[i]) return;
      const [h, root] = host('svc-badge-' + i);
      h.style.display = 'inline';
      root.append(el('span', { class: 'badge', title: res.badge.title, 'data-kind': res.badge.kind }, res.badge.label));
      const anchor = found[i].el.querySelector(engine.anchor) || found[i].el.firstElementChild;
      anchor.after(h);
    });
  }

  async function main() {
    const settings = await chrome.runtime.sendMessage({ type: 'settings' });
    if (!settings || (settings.off || []).includes(location.hostname)) return;
    const engine = globalThis.SVC_ENGINES.find((e) => e.host.test(location.hostname) && e.path.test(location.pathname));
    if (engine) {
      if (settings.sites[engine.site]) await searchPage(engine);
      return;
    }
    if (settings.sites.shops) await productPage();
  }

  main().catch(() => { /* the page goes on without us */ });
})();
