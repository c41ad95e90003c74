// The dashboard's little script: copy buttons, and the widget preview
// following the thresholds as they are typed (preview.go says the same).
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

  function plural(n, one, other) {
    return n === 1 ? "1 " + one : n + " " + other;
  }

  function render(box, minV, minP) {
    var v = Number(box.dataset.viewers), p = Number(box.dataset.purchases);
    var lines = [];
    if (v >= minV && v > 0) lines.push(plural(v, "person viewed", "people viewed") + " this in the last hour");
    if (p >= minP && p > 0) lines.push(plural(p, "purchase", "purchases") + " in the last 24 hours");
    box.textContent = "";
    if (lines.length) {
      var ul = document.createElement("ul");
      ul.className = "widget";
      lines.forEach(function (t) {
        var li = document.createElement("li");
        li.textContent = t;
        ul.appendChild(li);
      });
      box.appendChild(ul);
    } else {
      var para = document.createElement("p");
      para.className = "widget-empty";
      para.textContent = "The widget shows nothing: " + v + " viewers in the last hour (it needs " + minV +
        ") and " + p + " purchases in the last 24 hours (it needs " + minP + ").";
      box.appendChild(para);
    }
  }

  document.addEventListener("DOMContentLoaded", function () {
    var form = document.getElementById("settings-form"), box = document.getElementById("preview");
    if (!form || !box) return;
    var update = function () {
      var minV = parseInt(form.elements.min_viewers.value, 10), minP = parseInt(form.elements.min_purchases.value, 10);
      if (minV >= 1 && minP >= 1) render(box, minV, minP);
    };
    form.addEventListener("input", update);
  });
})();
