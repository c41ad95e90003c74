// The overview's script: the real-time panel refreshed in place, from its
// own address (reports.go), while the page is seen.
(function () {
  "use strict";
  var panel = document.getElementById("realtime");
  if (!panel || !window.fetch) return;
  var every = Math.max(Number(panel.dataset.every) || 10, 1) * 1000, timer;
  function refresh() {
    clearTimeout(timer);
    if (document.visibilityState === "hidden") return;
    fetch(panel.dataset.src, { credentials: "same-origin", headers: { Accept: "text/html" } }).then(function (r) {
      if (!r.ok) throw new Error(r.status);
      return r.text();
    }).then(function (html) {
      // The fragment is this origin's own template, escaped on the server.
      var doc = new DOMParser().parseFromString(html, "text/html");
      panel.replaceChildren.apply(panel, Array.prototype.slice.call(doc.body.childNodes));
      panel.dataset.refreshed = String(Number(panel.dataset.refreshed || 0) + 1);
    }).catch(function () {}).then(function () {
      timer = setTimeout(refresh, every);
    });
  }
  timer = setTimeout(refresh, every);
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState !== "hidden") refresh();
  });
})();
