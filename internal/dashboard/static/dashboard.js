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

  // The sentences per language, as preview.go's previewWords.
  var WORDS = {
    en: ["person viewed this in the last hour", "people viewed this in the last hour", "purchase in the last 24 hours", "purchases in the last 24 hours"],
    de: ["Person hat diesen Artikel in der letzten Stunde angesehen", "Personen haben diesen Artikel in der letzten Stunde angesehen", "Kauf in den letzten 24 Stunden", "Käufe in den letzten 24 Stunden"],
    fr: ["personne a consulté cet article au cours de la dernière heure", "personnes ont consulté cet article au cours de la dernière heure", "achat au cours des 24 dernières heures", "achats au cours des 24 dernières heures"],
    es: ["persona vio este artículo en la última hora", "personas vieron este artículo en la última hora", "compra en las últimas 24 horas", "compras en las últimas 24 horas"]
  };

  function render(box, minV, minP, lang, pos) {
    var v = Number(box.dataset.viewers), p = Number(box.dataset.purchases), w = WORDS[lang];
    var lines = [];
    box.lang = lang;
    box.className = "widget-preview pos-" + pos;
    if (v >= minV && v > 0) lines.push(plural(v, w[0], w[1]));
    if (p >= minP && p > 0) lines.push(plural(p, w[2], w[3]));
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
      // The first language known (the server checks the list on saving).
      var langs = (form.elements.languages.value || "en").toLowerCase().split(",").map(function (l) { return l.trim(); }).filter(function (l) { return WORDS[l]; });
      var pos = form.elements.widget_position.value || "start";
      if (minV >= 1 && minP >= 1) render(box, minV, minP, langs[0] || "en", pos);
    };
    form.addEventListener("input", update);
  });
})();
