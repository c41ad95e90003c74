// The extension's own words, in the four languages of svc's widget (en, de,
// fr, es; the first is the fallback, as the widget's). The sentences about
// counts and prices come from svc, in the language asked for; these only
// frame them, and word the options page.
globalThis.SVC_STRINGS = {
  en: {
    verified: 'verified', verifiedTitle: 'Signed by svc with a published key', unchecked: 'Could not confirm these numbers came from svc: nothing is shown',
    offers: 'Elsewhere', median: 'Median paid in the last 30 days',
    price: { below_typical: 'Below typical price', typical: 'Typical price', above_typical: 'Above typical price', unknown: 'No typical price yet' },
    close: 'Close', match: (product, shop) => [product, ' at ', shop],
    options: {
      title: 'svc – options', intro: 'Shows, on product pages and search results, how many people viewed and bought a product, as counted by svc, and only when svc\u2019s signature on the numbers checks out.',
      server: 'Server', address: 'svc address', addressHint: 'Change it for a self-hosted svc; the browser asks you to allow the extension to reach that address.',
      language: 'Language', languageLabel: 'Sentences and labels in', auto: 'The browser\u2019s language',
      sites: 'Sites', google: 'Google search results', bing: 'Bing search results', shops: 'Product pages of shops', off: 'Turned off on these sites (one host name a line)',
      why: { syntax: 'it is not a URL', scheme: 'it must start with https:// or http://', parts: 'it may not have a query, a fragment or a user' },
      save: 'Save', saved: 'Saved.', invalid: 'The address is not valid: ', denied: 'Not saved: the extension may not reach that address.',
      privacy: 'What is sent, and what never is:', privacyLink: 'privacy',
    },
  },
  de: {
    verified: 'verifiziert', verifiedTitle: 'Von svc mit einem veröffentlichten Schlüssel signiert', unchecked: 'Nicht bestätigt, dass diese Zahlen von svc stammen: es wird nichts gezeigt',
    offers: 'Anderswo', median: 'Median der letzten 30 Tage',
    price: { below_typical: 'Unter dem üblichen Preis', typical: 'Üblicher Preis', above_typical: 'Über dem üblichen Preis', unknown: 'Noch kein üblicher Preis' },
    close: 'Schließen', match: (product, shop) => [product, ' bei ', shop],
    options: {
      title: 'svc – Einstellungen', intro: 'Zeigt auf Produktseiten und in Suchergebnissen, wie viele Personen ein Produkt angesehen und gekauft haben, wie svc sie gezählt hat, und nur, wenn svcs Signatur der Zahlen stimmt.',
      server: 'Server', address: 'Adresse von svc', addressHint: 'Für ein selbst betriebenes svc ändern; der Browser fragt, ob die Erweiterung diese Adresse erreichen darf.',
      language: 'Sprache', languageLabel: 'Sätze und Beschriftungen auf', auto: 'Sprache des Browsers',
      sites: 'Websites', google: 'Google-Suchergebnisse', bing: 'Bing-Suchergebnisse', shops: 'Produktseiten von Shops', off: 'Auf diesen Websites ausgeschaltet (ein Hostname pro Zeile)',
      why: { syntax: 'sie ist keine URL', scheme: 'sie muss mit https:// oder http:// beginnen', parts: 'sie darf keine Abfrage, kein Fragment und keinen Benutzer haben' },
      save: 'Speichern', saved: 'Gespeichert.', invalid: 'Die Adresse ist nicht gültig: ', denied: 'Nicht gespeichert: Die Erweiterung darf diese Adresse nicht erreichen.',
      privacy: 'Was gesendet wird und was nie:', privacyLink: 'Datenschutz',
    },
  },
  fr: {
    verified: 'vérifié', verifiedTitle: 'Signé par svc avec une clé publiée', unchecked: 'Impossible de confirmer que ces chiffres viennent de svc : rien n’est affiché',
    offers: 'Ailleurs', median: 'Médiane des 30 derniers jours',
    price: { below_typical: 'Sous le prix habituel', typical: 'Prix habituel', above_typical: 'Au-dessus du prix habituel', unknown: 'Pas encore de prix habituel' },
    close: 'Fermer', match: (product, shop) => [product, ' chez ', shop],
    options: {
      title: 'svc – options', intro: 'Affiche, sur les pages produit et les résultats de recherche, combien de personnes ont consulté et acheté un produit, selon le décompte de svc, et seulement si la signature de svc sur les chiffres est valide.',
      server: 'Serveur', address: 'Adresse de svc', addressHint: 'À changer pour un svc auto-hébergé ; le navigateur vous demande d’autoriser l’extension à joindre cette adresse.',
      language: 'Langue', languageLabel: 'Phrases et libellés en', auto: 'La langue du navigateur',
      sites: 'Sites', google: 'Résultats de recherche Google', bing: 'Résultats de recherche Bing', shops: 'Pages produit des boutiques', off: 'Désactivée sur ces sites (un nom d’hôte par ligne)',
      why: { syntax: 'ce n’est pas une URL', scheme: 'elle doit commencer par https:// ou http://', parts: 'elle ne peut avoir ni requête, ni fragment, ni utilisateur' },
      save: 'Enregistrer', saved: 'Enregistré.', invalid: 'L’adresse n’est pas valide : ', denied: 'Non enregistré : l’extension ne peut pas joindre cette adresse.',
      privacy: 'Ce qui est envoyé, et ce qui ne l’est jamais :', privacyLink: 'confidentialité',
    },
  },
  es: {
    verified: 'verificado', verifiedTitle: 'Firmado por svc con una clave publicada', unchecked: 'No se pudo confirmar que estas cifras vengan de svc: no se muestra nada',
    offers: 'En otras tiendas', median: 'Mediana de los últimos 30 días',
    price: { below_typical: 'Por debajo del precio habitual', typical: 'Precio habitual', above_typical: 'Por encima del precio habitual', unknown: 'Aún sin precio habitual' },
    close: 'Cerrar', match: (product, shop) => [product, ' en ', shop],
    options: {
      title: 'svc – opciones', intro: 'Muestra, en páginas de producto y resultados de búsqueda, cuántas personas vieron y compraron un producto, según el recuento de svc, y solo cuando la firma de svc sobre las cifras es válida.',
      server: 'Servidor', address: 'Dirección de svc', addressHint: 'Cámbiela para un svc propio; el navegador le pide permitir que la extensión acceda a esa dirección.',
      language: 'Idioma', languageLabel: 'Frases y etiquetas en', auto: 'El idioma del navegador',
      sites: 'Sitios', google: 'Resultados de búsqueda de Google', bing: 'Resultados de búsqueda de Bing', shops: 'Páginas de producto de tiendas', off: 'Desactivada en estos sitios (un nombre de host por línea)',
      why: { syntax: 'no es una URL', scheme: 'debe empezar por https:// o http://', parts: 'no puede tener consulta, fragmento ni usuario' },
      save: 'Guardar', saved: 'Guardado.', invalid: 'La dirección no es válida: ', denied: 'No guardado: la extensión no puede acceder a esa dirección.',
      privacy: 'Qué se envía y qué nunca:', privacyLink: 'privacidad',
    },
  },
};
