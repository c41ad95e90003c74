// The dashboard's little script: copy buttons, and the settings' preview
// frame following the form as it is typed: the frame's page loads the real
// svc.js with the settings as typed (widgetpreview.go).
(function () {
  "use strict";
  document.addEventListener("click", function (e) {
    var b = e.target.closest("button.copy");
    if (!b) return;
    var el = document.getElementById(b.dataset.copy);
    if (!el || !navigator.clipboard) return;
    navigator.clipboard.writeText(el.textContent).then(function () {
      b.textContent = "Copied";
    }, function () {
      b.textContent = "Select and copy by hand";
    });
  });

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("settings-form"), frame = document.getElementById("preview-frame");
    if (!form || !frame) return;
    var timer = 0, last = frame.getAttribute("src"), saved = new URLSearchParams(last.split("?")[1] || "");
    // A disabled fieldset (a viewer's) sends nothing: the frame keeps the
    // saved settings it was made with.
    var viewer = !!form.querySelector("fieldset:disabled");
    var update = function () {
      var q = new URLSearchParams(saved);
      if (!viewer) {
        q = new URLSearchParams();
        new FormData(form).forEach(function (v, k) {
          if (k != "csrf") q.append(k, v);
        });
      }
      var layout = document.querySelector("input[name=layout]:checked");
      if (layout) q.set("layout", layout.value);
      var src = frame.dataset.base + "?" + q.toString();
      if (src != last) frame.src = last = src;
    };
    var later = function () {
      clearTimeout(timer);
      timer = setTimeout(update, 250);
    };
    form.addEventListener("input", later);
    form.addEventListener("change", later);
    document.querySelectorAll("input[name=layout]").forEach(function (r) {
      r.addEventListener("change", update);
    });
  });
})();
