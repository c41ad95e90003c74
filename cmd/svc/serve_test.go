package main

import (
	"encoding/json"
	"net/http"
	"testing"
)

func TestServesOpenAPIDocument(t *testing.T) {
	s := startServer(t, "--data", t.TempDir())
	res, err := http.Get(s.url + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil || res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("/openapi.json: %d %s %v", res.StatusCode, res.Header.Get("Content-Type"), err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Paths["/api/svc/product-proof"] == nil {
		t.Fatalf("/openapi.json is not the document: %+v", doc)
	}
}
