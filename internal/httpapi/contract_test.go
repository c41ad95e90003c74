package httpapi_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/legacy"

	"github.com/svc-project/svc/internal/apidoc/spec"
)

// contract is docs/openapi.yaml, ready to check answers against.
type contract struct {
	doc     *openapi3.T
	router  routers.Router
	problem *openapi3.Schema
}

var loadContract = sync.OnceValues(func() (*contract, error) {
	doc, err := spec.Load()
	if err != nil {
		return nil, err
	}
	doc.Servers = nil // match paths on any host: test servers listen on port 0
	router, err := legacy.NewRouter(doc)
	if err != nil {
		return nil, err
	}
	ref := doc.Components.Schemas["Problem"]
	if ref == nil || ref.Value == nil {
		return nil, errors.New("docs/openapi.yaml has no Problem schema")
	}
	// Bodies of the non-JSON answers are checked as strings.
	for _, ct := range []string{"text/javascript", "text/html"} {
		openapi3filter.RegisterBodyDecoder(ct, openapi3filter.PlainBodyDecoder)
	}
	return &contract{doc: doc, router: router, problem: ref.Value}, nil
})

// checkContract wraps a handler so that every answer it gives is checked
// against docs/openapi.yaml: the status must be documented for the
// operation, and the headers and body must match its schemas. A mismatch
// fails the test. Answers of paths or methods the document does not have
// must be problems; CORS preflights are described in the document's text.
func checkContract(t *testing.T, h http.Handler) http.Handler {
	t.Helper()
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	return c.wrap(t.Errorf, h)
}

func (c *contract) wrap(report func(format string, args ...any), h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reqBody, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(reqBody))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		// The answer reaches the client only after the check, so a failure
		// is reported while the test still runs.
		if err := c.check(r, reqBody, rec); err != nil {
			report("%s %s answered %d, which docs/openapi.yaml does not allow:\n%v\nbody: %.600s",
				r.Method, r.URL.RequestURI(), rec.Code, err, rec.Body.Bytes())
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})
}

func (c *contract) check(r *http.Request, reqBody []byte, rec *httptest.ResponseRecorder) error {
	if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" {
		return nil // a CORS preflight
	}
	req := r.Clone(context.Background())
	req.Body = io.NopCloser(bytes.NewReader(reqBody))
	head := r.Method == http.MethodHead
	if head {
		// The document says HEAD is answered on every GET path as the GET
		// is; net/http drops the body (a handler may still write it).
		req.Method = http.MethodGet
	}
	route, params, err := c.router.FindRoute(req)
	if err != nil {
		// Not an operation of the document: the answer must be a problem.
		if ct := rec.Header().Get("Content-Type"); ct != "application/problem+json" {
			return fmt.Errorf("no operation in the document (%v), and the answer is %q, not a problem", err, ct)
		}
		if rec.Code == http.StatusMethodNotAllowed && rec.Header().Get("Allow") == "" {
			return errors.New("405 without Allow (the document's MethodNotAllowed)")
		}
		var v any
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil {
			return fmt.Errorf("the problem is not JSON: %w", err)
		}
		return c.problem.VisitJSON(v, openapi3.EnableJSONSchema2020(), openapi3.MultiErrors())
	}
	input := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route},
		Status:                 rec.Code,
		Header:                 rec.Header(),
		Options:                &openapi3filter.Options{IncludeResponseStatus: true, MultiError: true, ExcludeResponseBody: head},
	}
	input.SetBodyBytes(rec.Body.Bytes())
	return openapi3filter.ValidateResponse(context.Background(), input)
}

// TestContractCheckCatchesMismatches makes sure the check of every answer
// fails when an answer strays from the document.
func TestContractCheckCatchesMismatches(t *testing.T) {
	t.Parallel()
	c, err := loadContract()
	if err != nil {
		t.Fatal(err)
	}
	answer := func(ct string, status int, body string) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", ct)
			w.WriteHeader(status)
			_, _ = io.WriteString(w, body)
		})
	}
	tests := []struct {
		name, method, path string
		h                  http.Handler
		ok                 bool
	}{
		{"documented", "GET", "/healthz", answer("application/json", 200, `{"status":"ok"}`), true},
		{"wrong type in the body", "GET", "/healthz", answer("application/json", 200, `{"status":1}`), false},
		{"undocumented status", "GET", "/healthz", answer("application/json", 418, `{"status":"ok"}`), false},
		{"wrong content type", "GET", "/healthz", answer("text/plain", 200, `ok`), false},
		{"proof without its counts", "GET", "/api/svc/product-proof?brand_id=b&product_id=p", answer("application/json", 200, `{"brand_id":"b"}`), false},
		{"problem without status", "GET", "/api/svc/product-proof", answer("application/problem+json", 400, `{"type":"x","title":"Bad Request"}`), false},
		{"unknown path, not a problem", "GET", "/nope", answer("text/plain", 404, "404 page not found"), false},
		{"405 without Allow", "DELETE", "/healthz", answer("application/problem+json", 405, `{"type":"x","title":"Method Not Allowed","status":405}`), false},
		{"HEAD of a GET path", "HEAD", "/healthz", answer("application/json", 200, ""), true},
		{"HEAD with an undocumented status", "HEAD", "/healthz", answer("application/json", 418, ""), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var reports []string
			h := c.wrap(func(format string, args ...any) { reports = append(reports, fmt.Sprintf(format, args...)) }, tt.h)
			h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(tt.method, tt.path, nil))
			if ok := len(reports) == 0; ok != tt.ok {
				t.Fatalf("passed the check: %v, want %v; reports: %v", ok, tt.ok, reports)
			}
		})
	}
}
