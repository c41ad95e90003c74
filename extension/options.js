import { load, save, normalizeBaseURL, originPattern, SITES } from './settings.js';

const form = document.getElementById('options');
const status = document.getElementById('status');

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
}

form.addEventListener('submit', async (ev) => {
  ev.preventDefault();
  let baseURL;
  try {
    baseURL = normalizeBaseURL(form.baseURL.value);
  } catch (err) {
    show(`The address is not valid: ${err.message}`, true);
    return;
  }
  // Only the configured svc may be reached: a self-hosted one is asked for
  // now, while the click still counts as the shopper's gesture.
  const origins = [originPattern(baseURL)];
  if (!(await chrome.permissions.contains({ origins }))) {
    let granted = false;
    try { granted = await chrome.permissions.request({ origins }); } catch { granted = false; }
    if (!granted) {
      show('Not saved: the extension may not reach that address.', true);
      return;
    }
  }
  const sites = {};
  for (const site of SITES) sites[site] = form[site].checked;
  const off = form.off.value.split(/\s+/).map((h) => h.trim().toLowerCase()).filter(Boolean);
  await save({ baseURL, language: form.language.value, sites, off });
  show('Saved.');
});

fill();
