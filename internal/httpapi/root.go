package httpapi

import (
	"encoding/json"
	"html/template"
	"mime"
	"net/http"
	"strings"
)

// docsURL is where svc's documentation is read.
const docsURL = "https://github.com/svc-project/svc#readme"

// rootInfo is what / says: the service's name and version, and where to
// go from here.
type rootInfo struct {
	Name    string            `json:"name"`
	Version string            `json:"version"`
	Links   map[string]string `json:"links"`
}

// root is the front door: a person's browser (which asks for HTML) gets a
// small page with the name, the version and links; an API client gets the
// same as JSON.
func (s *Server) root(w http.ResponseWriter, r *http.Request) error {
	info := rootInfo{Name: "svc", Version: s.opts.Version, Links: map[string]string{"docs": docsURL, "health": "/healthz"}}
	if info.Version == "" {
		info.Version = "unknown"
	}
	if s.opts.OpenAPI != nil {
		info.Links["openapi"] = "/openapi.json"
	}
	if s.opts.Demo != nil {
		info.Links["demo"] = "/demo"
	}
	if s.opts.Dashboard != nil {
		info.Links["dashboard"] = "/dashboard"
	}
	w.Header().Add("Vary", "Accept")
	if !wantsHTML(r.Header.Values("Accept")) {
		b, _ := json.Marshal(info) // strings only: cannot fail
		writeJSON(w, http.StatusOK, append(b, '\n'))
		return nil
	}
	var page strings.Builder
	if err := rootPage.Execute(&page, info); err != nil {
		return err
	}
	// A document of its own: its one inline style, nothing else.
	w.Header().Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'")
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte(page.String()))
	return nil
}

// wantsHTML reports whether an Accept header asks for HTML before JSON,
// as a browser's navigation does (text/html first); a client that names
// no HTML, or none at all, gets JSON.
func wantsHTML(accept []string) bool {
	for _, field := range accept {
		for _, part := range strings.Split(field, ",") {
			t, params, err := mime.ParseMediaType(strings.TrimSpace(part))
			if err != nil || params["q"] == "0" {
				continue
			}
			switch t {
			case "text/html", "application/xhtml+xml":
				return true
			case "application/json", "application/problem+json":
				return false
			}
		}
	}
	return false
}

var rootPage = template.Must(template.New("root").Parse(`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>svc</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:3rem auto;padding:0 1rem}code{font-size:.9em}</style>
</head>
<body>
<h1>svc</h1>
<p>Social proof for e-commerce, counted honestly. This is its server, version <code>{{.Version}}</code>.</p>
<ul>
{{- with .Links.demo}}
<li><a href="{{.}}">The demo product page</a>: a page that embeds the client script and its widget</li>
{{- end}}
{{- with .Links.dashboard}}
<li><a href="{{.}}">The dashboard</a>: for brands and the operator: a sign-in link by email, or one from <code>svc dashboard link</code></li>
{{- end}}
<li><a href="{{.Links.docs}}">The documentation</a>: the README, the API and the operator's guide</li>
{{- with .Links.openapi}}
<li><a href="{{.}}">The API's OpenAPI document</a></li>
{{- end}}
</ul>
</body>
</html>
`))
