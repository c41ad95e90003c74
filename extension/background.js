// The service worker: the only part of the extension that talks to the
// network, and only to the configured svc. It sends what a content script
// read from a page (titles, URLs, prices: never a query, never a cookie),
// and says whether each answer is signed by a key svc publishes.
import { verifyAnswer, checkReplaced, importJWK, contentDigest } from './verify.js';
import { load, locale } from './settings.js';

let keyCache = { base: '', keys: new Map(), replaced: new Map(), fetched: 0 };

async function fetchKeys(base) {
  const res = await fetch(base + '/.well-known/svc-keys.json', { credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer' });
  if (!res.ok) throw new Error(`the key set answered ${res.status}`);
  const set = await res.json();
  const keys = new Map();
  const replaced = new Map(); // kid to when the key stopped signing
  for (const jwk of set.keys || []) {
    keys.set(jwk.kid, await importJWK(jwk));
    if (jwk.replaced !== undefined) replaced.set(jwk.kid, jwk.replaced);
  }
  keyCache = { base, keys, replaced, fetched: Date.now() };
}

// keyFor finds a published key; an unknown keyid fetches the set again
// once, for a key rotated since.
function keyFinder(base) {
  return async (kid) => {
    if (keyCache.base !== base || Date.now() - keyCache.fetched > 60_000) await fetchKeys(base);
    if (!keyCache.keys.has(kid) && Date.now() - keyCache.fetched > 1_000) await fetchKeys(base);
    return keyCache.keys.get(kid) || null;
  };
}

async function ask(path, body) {
  const settings = await load();
  const base = settings.baseURL;
  const url = base + path;
  const payload = new TextEncoder().encode(JSON.stringify(body));
  // The body's digest binds svc's answer to this very request: a signed
  // answer about another product cannot be passed off as this one's.
  const requestHeaders = new Headers({ 'Content-Type': 'application/json', 'Content-Digest': await contentDigest(payload) });
  const res = await fetch(url, {
    method: 'POST', body: payload, headers: requestHeaders,
    credentials: 'omit', cache: 'no-store', referrerPolicy: 'no-referrer',
  });
  const bytes = new Uint8Array(await res.arrayBuffer());
  if (!res.ok) return { ok: false, status: res.status };
  let verified = false;
  let reason = '';
  try {
    const v = await verifyAnswer({ method: 'POST', url, requestHeaders, status: res.status, headers: res.headers, body: bytes }, keyFinder(base));
    checkReplaced(v, keyCache.replaced.get(v.keyid));
    verified = true;
  } catch (err) {
    reason = String(err && err.message || err);
  }
  return { ok: true, verified, reason, answer: JSON.parse(new TextDecoder().decode(bytes)) };
}

async function handle(msg) {
  const settings = await load();
  const loc = locale(settings);
  if (msg.type === 'product') {
    const p = msg.product;
    return ask('/api/svc/product-enrich', { context: { url: p.url, domain: p.domain, locale: loc }, product: p.product });
  }
  if (msg.type === 'search') {
    // The query text stays in the page: svc is sent only the results.
    return ask('/api/svc/search-enrich', { results: msg.results, user_context: { locale: loc } });
  }
  if (msg.type === 'settings') return settings;
  throw new Error('unknown message ' + msg.type);
}

chrome.runtime.onMessage.addListener((msg, sender, reply) => {
  if (sender.id !== chrome.runtime.id) return false;
  handle(msg).then(reply, (err) => reply({ ok: false, error: String(err && err.message || err) }));
  return true; // the reply comes later
});
