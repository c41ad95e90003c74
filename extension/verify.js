// Checks svc's signed answers in the browser: RFC 9421 HTTP Message
// Signatures with Ed25519 (WebCrypto), and the body's RFC 9530
// Content-Digest. Plain ES module, no dependency; the same code runs in the
// service worker and in the test page that checks it against RFC 9421's
// own example (Appendix B.2.6).

// The components every svc answer must cover (docs/verification.md).
export const REQUIRED = ['"@status"', '"content-digest"', '"content-type"',
  '"@method";req', '"@target-uri";req', '"@query";req'];

// --- Structured fields (RFC 8941), the parts signatures use -------------

class Parser {
  constructor(s) { this.s = s; this.i = 0; }
  fail(what) { throw new Error(`structured field: ${what} at ${this.i}`); }
  peek() { return this.s[this.i]; }
  ows() { while (this.peek() === ' ' || this.peek() === '\t') this.i++; }
  sp() { while (this.peek() === ' ') this.i++; }
  key() {
    const m = /^[a-z*][a-z0-9_\-.*]*/.exec(this.s.slice(this.i));
    if (!m) this.fail('key');
    this.i += m[0].length;
    return m[0];
  }
  bare() {
    const c = this.peek();
    if (c === '"') return this.string();
    if (c === ':') return this.bytes();
    if (c === '?') { this.i++; const b = this.s[this.i++]; if (b !== '0' && b !== '1') this.fail('boolean'); return b === '1'; }
    if (c === '-' || (c >= '0' && c <= '9')) {
      const m = /^-?[0-9]{1,15}(\.[0-9]{1,3})?/.exec(this.s.slice(this.i));
      if (!m) this.fail('number');
      this.i += m[0].length;
      return Number(m[0]);
    }
    const m = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*/.exec(this.s.slice(this.i));
    if (!m) this.fail('item');
    this.i += m[0].length;
    return { token: m[0] };
  }
  string() {
    let out = '';
    this.i++;
    for (;;) {
      const c = this.s[this.i++];
      if (c === undefined) this.fail('unterminated string');
      if (c === '"') return out;
      if (c === '\\') {
        const n = this.s[this.i++];
        if (n !== '"' && n !== '\\') this.fail('escape');
        out += n;
      } else {
        if (c < ' ' || c > '~') this.fail('string character');
        out += c;
      }
    }
  }
  bytes() {
    const end = this.s.indexOf(':', this.i + 1);
    if (end < 0) this.fail('byte sequence');
    const b64 = this.s.slice(this.i + 1, end);
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64)) this.fail('base64');
    this.i = end + 1;
    return { bytes: Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0)) };
  }
  params() {
    const p = new Map();
    while (this.peek() === ';') {
      this.i++;
      this.sp();
      const k = this.key();
      let v = true;
      if (this.peek() === '=') { this.i++; v = this.bare(); }
      p.set(k, v);
    }
    return p;
  }
  item() { const value = this.bare(); return { value, params: this.params() }; }
  member() {
    if (this.peek() !== '(') return this.item();
    this.i++;
    const items = [];
    for (;;) {
      this.sp();
      if (this.peek() === ')') { this.i++; break; }
      items.push(this.item());
      if (this.peek() !== ' ' && this.peek() !== ')') this.fail('inner list');
    }
    return { items, params: this.params() };
  }
  dictionary() {
    const d = new Map();
    this.sp();
    while (this.i < this.s.length) {
      const k = this.key();
      let m;
      if (this.peek() === '=') { this.i++; m = this.member(); } else { m = { value: true, params: this.params() }; }
      d.set(k, m);
      this.ows();
      if (this.i >= this.s.length) break;
      if (this.peek() !== ',') this.fail('dictionary');
      this.i++;
      this.ows();
      if (this.i >= this.s.length) this.fail('trailing comma');
    }
    return d;
  }
}

export function parseDictionary(s) { return new Parser(s || '').dictionary(); }

function serializeBare(v) {
  if (typeof v === 'string') return '"' + v.replace(/[\\"]/g, (c) => '\\' + c) + '"';
  if (typeof v === 'number') return String(v);
  if (typeof v === 'boolean') return v ? '?1' : '?0';
  if (v && v.token) return v.token;
  if (v && v.bytes) return ':' + btoa(String.fromCharCode(...v.bytes)) + ':';
  throw new Error('structured field: cannot serialize');
}

function serializeParams(p) {
  let out = '';
  for (const [k, v] of p) out += v === true ? ';' + k : ';' + k + '=' + serializeBare(v);
  return out;
}

function serializeItem(it) { return serializeBare(it.value) + serializeParams(it.params); }

export function serializeInnerList(il) {
  return '(' + il.items.map(serializeItem).join(' ') + ')' + serializeParams(il.params);
}

// --- The signature base (RFC 9421, section 2) ---------------------------

// componentValue is a covered component's value in msg, a response
// {status, headers, request} or a request {method, targetURI, headers}.
function componentValue(msg, item) {
  const name = item.value;
  if (typeof name !== 'string') throw new Error('a covered component is not a string');
  for (const k of item.params.keys()) if (k !== 'req') throw new Error(`component parameter ${k} is not supported`);
  let m = msg;
  if (item.params.get('req') === true) {
    if (!msg.request) throw new Error(`${serializeItem(item)}: not a response`);
    m = msg.request;
  }
  if (!name.startsWith('@')) {
    const v = m.headers && m.headers.get(name);
    if (v === null || v === undefined) throw new Error(`the answer has no ${name} field`);
    return v.split(',').map((s) => s.trim()).join(', ');
  }
  if (name === '@status') {
    if (!m.status) throw new Error('@status of a request');
    return String(m.status);
  }
  const u = new URL(m.targetURI);
  switch (name) {
    case '@method': return m.method.toUpperCase();
    case '@target-uri': return u.href;
    case '@authority': return u.host.toLowerCase();
    case '@scheme': return u.protocol.slice(0, -1);
    case '@path': return u.pathname || '/';
    case '@query': return u.search === '' ? '?' : u.search;
    case '@request-target': return u.pathname + u.search;
  }
  throw new Error(`component ${name} is not supported`);
}

// signatureBase is the bytes a signature covers, for the inner list il.
export function signatureBase(msg, il) {
  const lines = [];
  const seen = new Set();
  for (const item of il.items) {
    const id = serializeItem(item);
    if (seen.has(id)) throw new Error(`${id} is covered twice`);
    seen.add(id);
    lines.push(`${id}: ${componentValue(msg, item)}`);
  }
  lines.push(`"@signature-params": ${serializeInnerList(il)}`);
  return new TextEncoder().encode(lines.join('\n'));
}

// verifySignature checks the signature labelled label (or the only one)
// of msg; keyFor(keyid) resolves to a CryptoKey or null. It resolves to
// {label, keyid, created, alg, covered}, or throws saying why not.
export async function verifySignature(msg, keyFor, label) {
  const inputs = parseDictionary(msg.headers.get('signature-input'));
  const sigs = parseDictionary(msg.headers.get('signature'));
  if (!label) {
    if (inputs.size !== 1) throw new Error(`expected one signature, found ${inputs.size}`);
    label = [...inputs.keys()][0];
  }
  const il = inputs.get(label);
  const sig = sigs.get(label);
  if (!il || !il.items) throw new Error(`no signature ${label} in Signature-Input`);
  if (!sig || !sig.value || !sig.value.bytes) throw new Error(`no signature ${label} in Signature`);
  const alg = il.params.get('alg');
  if (alg !== undefined && alg !== 'ed25519') throw new Error(`alg ${alg} is not ed25519`);
  const keyid = il.params.get('keyid');
  const key = await keyFor(keyid);
  if (!key) throw new Error(`key ${keyid} is not published`);
  const base = signatureBase(msg, il);
  const ok = await crypto.subtle.verify({ name: 'Ed25519' }, key, sig.value.bytes, base);
  if (!ok) throw new Error('the signature does not match the answer');
  return { label, keyid, alg, created: il.params.get('created'), covered: il.items.map(serializeItem) };
}

// --- Content-Digest (RFC 9530) and svc's own rules ------------------------

export async function checkDigest(field, body) {
  const d = parseDictionary(field || '');
  const algs = { 'sha-256': 'SHA-256', 'sha-512': 'SHA-512' };
  let checked = 0;
  for (const [name, m] of d) {
    if (!algs[name]) continue;
    const sum = new Uint8Array(await crypto.subtle.digest(algs[name], body));
    const want = m.value && m.value.bytes;
    if (!want || want.length !== sum.length || !want.every((b, i) => b === sum[i])) {
      throw new Error('the body is not the one the Content-Digest describes');
    }
    checked++;
  }
  if (!checked) throw new Error('no sha-256 or sha-512 Content-Digest');
}

// checkReplaced refuses a signature made after its key was replaced: the
// key set publishes each replaced key's "replaced" time (RFC 3339), and
// svc signs nothing with the key after it (docs/verification.md). v is
// what verifyAnswer returned; replaced is the key's member, or undefined.
export function checkReplaced(v, replaced) {
  if (replaced === undefined || replaced === null) return;
  const at = Date.parse(replaced) / 1000;
  if (!Number.isFinite(at)) throw new Error(`key ${v.keyid}: replaced is not a time`);
  if (v.created > at) throw new Error(`the signature was made after its key ${v.keyid} was replaced`);
}

// importJWK turns a published key into a CryptoKey that verifies.
export function importJWK(jwk) {
  if (jwk.kty !== 'OKP' || jwk.crv !== 'Ed25519' || typeof jwk.x !== 'string') {
    return Promise.reject(new Error(`key ${jwk.kid}: not an Ed25519 key`));
  }
  return crypto.subtle.importKey('jwk', { kty: 'OKP', crv: 'Ed25519', x: jwk.x }, { name: 'Ed25519' }, false, ['verify']);
}

// contentDigest is the Content-Digest field of a body (RFC 9530, sha-256).
export async function contentDigest(body) {
  const sum = new Uint8Array(await crypto.subtle.digest('SHA-256', body));
  return 'sha-256=:' + btoa(String.fromCharCode(...sum)) + ':';
}

// verifyAnswer checks an answer of svc: its signature "svc" by a published
// key, over every required component, and its body's digest. answer is
// {method, url, requestHeaders, status, headers (Headers), body (Uint8Array)};
// a request that sent its body's Content-Digest needs an answer bound to it.
export async function verifyAnswer(answer, keyFor) {
  const requestHeaders = answer.requestHeaders || new Headers();
  const msg = {
    status: answer.status, headers: answer.headers,
    request: { method: answer.method, targetURI: answer.url, headers: requestHeaders },
  };
  const v = await verifySignature(msg, keyFor, 'svc');
  const required = requestHeaders.has('content-digest') ? [...REQUIRED, '"content-digest";req'] : REQUIRED;
  for (const c of required) {
    if (!v.covered.includes(c)) throw new Error(`the signature does not cover ${c}`);
  }
  if (v.alg !== 'ed25519') throw new Error('the signature names no alg');
  if (typeof v.created !== 'number') throw new Error('the signature has no created time');
  await checkDigest(answer.headers.get('content-digest'), answer.body);
  return v;
}
