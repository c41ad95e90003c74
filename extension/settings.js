// The extension's settings, kept in chrome.storage.sync. DEFAULT_BASE_URL is
// the svc the extension talks to until the shopper picks another; `svc
// extension pack --base-url` writes the operator's address here and in the
// manifest's host permission.
export const DEFAULT_BASE_URL = 'http://127.0.0.1:8080';

export const LANGUAGES = ['auto', 'en', 'de', 'fr', 'es'];

// SITES are the kinds of page the extension acts on; each can be turned off.
export const SITES = ['google', 'bing', 'shops'];

export const DEFAULTS = {
  baseURL: DEFAULT_BASE_URL,
  language: 'auto', // auto: the browser's
  sites: { google: true, bing: true, shops: true },
  off: [], // host names where the extension does nothing
};

export async function load() {
  const got = await chrome.storage.sync.get(DEFAULTS);
  return { ...DEFAULTS, ...got, sites: { ...DEFAULTS.sites, ...(got.sites || {}) } };
}

export function save(settings) { return chrome.storage.sync.set(settings); }

// normalizeBaseURL returns the address without a trailing slash, or throws
// when it is not an absolute http(s) URL.
// Its error's code says why, for the options page to word: syntax, scheme
// or parts.
export function normalizeBaseURL(s) {
  const fail = (code, msg) => Object.assign(new Error(msg), { code });
  let u;
  try { u = new URL(s.trim()); } catch { throw fail('syntax', 'not a URL'); }
  if (u.protocol !== 'https:' && u.protocol !== 'http:') throw fail('scheme', 'not an http or https URL');
  if (u.search || u.hash || u.username || u.password) throw fail('parts', 'a base URL has no query, fragment or user');
  return u.href.replace(/\/+$/, '');
}

// originPattern is the host permission a base URL needs: its host on any port.
export function originPattern(baseURL) {
  const u = new URL(baseURL);
  return `${u.protocol}//${u.hostname}/*`;
}

// language is the extension's language for the settings: the one chosen,
// or for auto the browser's when it is one of the four, else English (the
// widget's rule: its first language is the fallback).
export function language(settings) {
  const lang = settings.language === 'auto' ? (navigator.language || 'en').slice(0, 2).toLowerCase() : settings.language;
  return LANGUAGES.includes(lang) && lang !== 'auto' ? lang : 'en';
}

export function locale(settings) {
  return { en: 'en-US', de: 'de-DE', fr: 'fr-FR', es: 'es-ES' }[language(settings)];
}
