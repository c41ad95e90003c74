// Passkeys (passkeys.go): adding one on the account page, signing in with
// one on the sign-in page. The browser's own JSON forms of the WebAuthn
// options and answers carry them to and from the server.
(function () {
  "use strict";
  function status(text) {
    var el = document.getElementById("passkey-status");
    if (el) el.textContent = text;
  }
  function supported() {
    return window.PublicKeyCredential && PublicKeyCredential.parseCreationOptionsFromJSON && PublicKeyCredential.parseRequestOptionsFromJSON;
  }
  async function post(path, headers, body) {
    var res = await fetch(path, { method: "POST", headers: headers, body: body, credentials: "same-origin" });
    var data = await res.json().catch(function () { return {}; });
    if (!res.ok) throw new Error(data.error || "the server answered " + res.status);
    return data;
  }
  async function add(button) {
    var h = { "X-CSRF-Token": button.dataset.csrf };
    var options = await post("/dashboard/account/passkeys/begin", h);
    var cred = await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(options.publicKey) });
    h["Content-Type"] = "application/json";
    var done = await post("/dashboard/account/passkeys/finish", h, JSON.stringify(cred.toJSON()));
    status("Passkey added (" + done.name + ").");
    location.reload();
  }
  async function signIn() {
    var options = await post("/dashboard/signin/passkey/begin", {});
    var cred = await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(options.publicKey) });
    var done = await post("/dashboard/signin/passkey/finish", { "Content-Type": "application/json" }, JSON.stringify(cred.toJSON()));
    location.assign(done.redirect);
  }
  document.addEventListener("click", function (e) {
    var add_ = e.target.closest("#add-passkey"), sign = e.target.closest("#passkey-signin");
    if (!add_ && !sign) return;
    if (!supported()) {
      status("This browser cannot use passkeys here.");
      return;
    }
    status("Waiting for your device…");
    (add_ ? add(add_) : signIn()).catch(function (err) {
      status("No passkey: " + (err && err.message ? err.message : err));
    });
  });
})();
