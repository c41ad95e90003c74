package httpapi

import (
	"reflect"
	"testing"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/svc-project/svc"
)

func TestLeadingType(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		`{"type":"product-view","brand_id":"b"}`: "product-view",
		"{ \n\t\"type\" :\r \"product-cart\" }":  "product-cart",
		`{"brand_id":"b","type":"product-view"}`: "",
		`{"type":"product-\u0076iew"}`:           "",
		`{"type":5}`:                             "",
		`{"type"}`:                               "",
		`{"type":"unterminated`:                  "",
		`{"typeX":"product-view"}`:               "",
		`{}`:                                     "",
	} {
		if got := leadingType([]byte(raw)); got != want {
			t.Errorf("leadingType(%s) = %q, want %q", raw, got, want)
		}
	}
}

// TestBatchEventReadOnce checks that an event read by its leading type
// is answered as when its type is read first: the same event when it is
// valid, the same errors when it is not.
func TestBatchEventReadOnce(t *testing.T) {
	t.Parallel()
	view := `"brand_id":"br_1","product":{"product_id":"p1","title":"T"},"context":{"session_id":"s"}`
	for _, c := range []struct {
		name, first, later string
		wantBad            []svc.FieldError
	}{
		{name: "valid", first: `{"type":"product-view",` + view + `}`, later: `{` + view + `,"type":"product-view"}`},
		{name: "key", first: `{"type":"product-view","idempotency_key":"k1",` + view + `}`, later: `{` + view + `,"idempotency_key":"k1","type":"product-view"}`},
		{name: "type twice", first: `{"type":"product-view",` + view + `,"type":"product-purchase"}`,
			wantBad: []svc.FieldError{{Field: "type", Message: "must be " + batchTypes}}},
		{name: "unknown member", first: `{"type":"product-view",` + view + `,"x":1}`, later: `{` + view + `,"x":1,"type":"product-view"}`},
		{name: "wrong type", first: `{"type":"product-view","brand_id":5,"product":{"product_id":"p1"}}`, later: `{"brand_id":5,"product":{"product_id":"p1"},"type":"product-view"}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			k, ev, key, decodeErrors, bad := readBatchEvent(jsontext.Value(c.first))
			if c.wantBad != nil {
				if !reflect.DeepEqual(bad, c.wantBad) {
					t.Fatalf("bad = %v, want %v", bad, c.wantBad)
				}
				return
			}
			k2, ev2, key2, decodeErrors2, bad2 := readBatchEvent(jsontext.Value(c.later))
			if k != k2 || !reflect.DeepEqual(ev, ev2) || !reflect.DeepEqual(key, key2) ||
				!reflect.DeepEqual(decodeErrors, decodeErrors2) || !reflect.DeepEqual(bad, bad2) {
				t.Errorf("type first: %v %+v %v %v %v\ntype last:  %v %+v %v %v %v", k, ev, key, decodeErrors, bad, k2, ev2, key2, decodeErrors2, bad2)
			}
			t.Logf("%v %v %v", decodeErrors, bad, key)
		})
	}
}
