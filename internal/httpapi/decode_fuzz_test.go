package httpapi

import (
	"encoding/json"
	"reflect"
	"regexp"
	"testing"
	"unicode/utf8"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/wire"
)

// viewField and purchaseField are what a field error may name in a
// collect body: a JSON path of the event types.
var viewField = regexp.MustCompile(`^(brand_id|product(\.(product_id|sku|title|url))?|context(\.(timestamp|session_id|country|locale))?)$`)

var purchaseField = regexp.MustCompile(`^(brand_id|context(\.(timestamp|session_id))?|order(\.(order_id|currency|total_value)|\.items(\[\d+\](\.(product_id|sku|title|quantity|unit_price))?)?)?)$`)

// fuzzDecode checks the decoding into the shape E and the validation of one
// body as the collect handler does them: no panic; an unreadable body is one EINVALID error with
// a message; otherwise every error names a field of the body once, with a
// message; and a body without errors round-trips: marshalled and decoded
// again, it is the same event and still valid.
func fuzzDecode[E any](t *testing.T, body []byte, bodyField *regexp.Regexp, validate func(*E) []svc.FieldError) {
	ev := new(E)
	typeErrs, err := unmarshal(body, ev)
	if err != nil {
		if code := svc.ErrorCode(err); code != svc.EINVALID || err.(*svc.Error).Message == "" || typeErrs != nil {
			t.Fatalf("%q: error %v (%s) with fields %v", body, err, code, typeErrs)
		}
		// A body refused as written (bad UTF-8, a name twice or in another
		// case) names each field once; it may be a member we do not know.
		seen := map[string]bool{}
		for _, e := range err.(*svc.Error).Fields {
			if e.Field == "" || e.Message == "" || seen[e.Field] || !utf8.ValidString(e.Field) {
				t.Fatalf("%q: bad field error %+v in %v", body, e, err)
			}
			seen[e.Field] = true
		}
		return
	}
	errs := svc.MergeFieldErrors(typeErrs, wire.Names(validate(ev)))
	seen := map[string]bool{}
	for _, e := range errs {
		if !bodyField.MatchString(e.Field) || e.Message == "" || seen[e.Field] {
			t.Fatalf("%q: bad field error %+v among %v", body, e, errs)
		}
		seen[e.Field] = true
	}
	if len(errs) > 0 {
		return
	}
	again, err := json.Marshal(ev)
	if err != nil {
		t.Fatalf("%q: a valid event does not marshal: %v", body, err)
	}
	back := new(E)
	if fields, err := unmarshal(again, back); err != nil || fields != nil {
		t.Fatalf("%s: %v %v", again, err, fields)
	}
	if !reflect.DeepEqual(ev, back) {
		t.Fatalf("%q: round trip changed the event to %s", body, again)
	}
	if errs := validate(back); len(errs) > 0 {
		t.Fatalf("%s: no longer valid: %v", again, errs)
	}
}

var viewSeeds = []string{
	`{"brand_id":"br_1","product":{"product_id":"sku-42","title":"Trail Runner 2","url":"https://acme.example/p/2"},"context":{"session_id":"s","country":"DE","locale":"de-DE","timestamp":"2026-11-21T10:00:00Z"}}`,
	`{"product":{"product_id":""},"context":{"country":"de"}}`,
	`{"brand_id":1,"product":"p","context":[]}`,
	`{"brand_id":null,"product":{"product_id":null,"sku":null}}`,
	`{"BRAND_ID":"b","Product":{"Product_ID":"p"}}`,
	`{"brand_id":1,"brand_id":"b","product":{"product_id":"p"}}`,
	`{"brand_id":"b\u0000","product":{"product_id":"\ud800"}}`,
	"{\"brand_id\":\"b\",\"product\":{\"product_id\":\"u\xff\xfeX\",\"title\":\"a\\u001b[31m\"}}",
	`{"brand_id":"b","product":{"product_id":"p","Product_Id":"q"},"x":1,"x":2}`,
	`{"brand_id":"0","product":{"produCt_id":"0","ProduCt_Id":""},"0":0,"1":0}`,
	`[1,2]`, `"x"`, `null`, `{`, `{"brand_id":"b"} trailing`,
}

func FuzzDecodeView(f *testing.F) {
	for _, s := range viewSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzDecode(t, body, viewField, func(v *wire.View) []svc.FieldError { return v.Event().Validate() })
	})
}

var purchaseSeeds = []string{
	`{"brand_id":"br_1","order":{"order_id":"A-1","currency":"EUR","total_value":179.8,"items":[{"product_id":"sku-42","quantity":2,"unit_price":89.9}]},"context":{"session_id":"s"}}`,
	`{"brand_id":"b","order":{"order_id":"o","items":[{"product_id":"p","quantity":1.5},{"product_id":"q","quantity":"2"},{"quantity":0}]}}`,
	`{"brand_id":"b","order":{"order_id":"o","total_value":1e400,"items":[{"product_id":"p","quantity":9223372036854775808}]}}`,
	`{"brand_id":"b","order":{"order_id":"o","items":{}}}`,
	`{"brand_id":"b","order":{"order_id":"o","items":[null,{"product_id":"p","quantity":1}]}}`,
	`{"brand_id":"b","order":{"order_id":"o","items":[]}}`,
	`{"brand_id":"b","order":{"order_id":"o","items":[{"product_id":"p","quantity":1,"QUANTITY":7}]}}`,
	`{"brand_id":"b","order":{"order_id":"o","items":[{"product_id":"p","quantity":1,"quantity":7}]}}`,
}

func FuzzDecodePurchase(f *testing.F) {
	for _, s := range purchaseSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzDecode(t, body, purchaseField, func(p *wire.Purchase) []svc.FieldError { return p.Event().Validate() })
	})
}

// The enrichment bodies go through the same decoder.
var (
	searchField  = regexp.MustCompile(`^(query|results(\[\d+\](\.(title|url|price|currency|domain))?)?|user_context(\.(country|locale))?)$`)
	productField = regexp.MustCompile(`^(context(\.(domain|url|country|locale))?|product(\.(title|brand|sku|price|currency))?)$`)
	enrichSeeds  = []string{
		`{"query":"sony","results":[{"title":"Sony WH-1000XM5","url":"https://a.example/p","price":299,"currency":"EUR","domain":"a.example"}],"user_context":{"country":"DE","locale":"de-DE"}}`,
		`{"context":{"domain":"a.example","url":"https://a.example/p","country":"DE","locale":"de-DE"},"product":{"title":"Shoe","brand":"Acme","sku":"S-1","price":1.5,"currency":"EUR"}}`,
		`{"results":[{"url":"https://a.example/","URL":"x"}],"Query":"q"}`,
		"{\"results\":[],\"query\":\"\xff\",\"query\":\"a\\u0000\"}",
		`{"results":{},"context":[],"product":{"price":"1"}}`,
	}
)

func FuzzDecodeSearchEnrich(f *testing.F) {
	for _, s := range enrichSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzDecode(t, body, searchField, func(r *wire.SearchEnrich) []svc.FieldError { return r.Request().Validate() })
	})
}

func FuzzDecodeProductEnrich(f *testing.F) {
	for _, s := range enrichSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		fuzzDecode(t, body, productField, func(r *wire.ProductEnrich) []svc.FieldError { return r.Request().Validate() })
	})
}
