import { load, save, normalizeBaseURL, originPattern, language, SITES } from './settings.js';

const form = document.getElementById('options');
const status = document.getElementById('status');

// The page speaks the language chosen in it (strings.js, the panel's table),
// and follows the select at once.
let words = globalThis.SVC_STRINGS.en.options;
function translate(choice) {
  const lang = language({ language: choice });
  words = globalThis.SVC_STRINGS[lang].options;
  document.documentElement.lang = lang;
  for (const e of document.querySelectorAll('[data-i18n]')) e.textContent = words[e.dataset.i18n];
  document.title = words.title;
}
form.language.addEventListener('change', () => translate(form.language.value));

function show(msg, error) {
  status.textContent = msg;
  status.className = error ? 'error' : '';
}

async function fill() {
  const s = await load();
  form.baseURL.value = s.baseURL;
  form.language.value = s.language;
  for (const site of SITES) form[site].checked = !!s.sites[site];
  form.off.value = (s.off || []).join('\n');
  translate(s.language);
}

form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  let baseURL;
  try {
    baseURL = normalizeBaseURL(form.baseURL.value);
  } catch (err) {
    show(words.invalid + (words.why[err.code] || err.message), true);
    return;
  }
  // Only the configured svc may be reached: a self-hosted one is asked for
  // now, while the click still counts as the shopper's gesture.
  const origins = [originPattern(baseURL)];
  if (!(await chrome.permissions.contains({ origins }))) {
    let granted = false;
    try { granted = await chrome.permissions.request({ origins }); } catch { granted = false; }
    if (!granted) {
      show(words.denied, true);
      return;
    }
  }
  const sites = {};
  for (const site of SITES) sites[site] = form[site].checked;
  const off = form.off.value.split(/\s+/).map((h) => h.trim().toLowerCase()).filter(Boolean);
  await save({ baseURL, language: form.language.value, sites, off });
  translate(form.language.value); // said in the language just saved
  show(words.saved);
});

fill();
