package strictjson_test

import (
	"errors"
	"slices"
	"testing"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/strictjson"
)

type item struct {
	ProductID string `json:"product_id"`
	Quantity  *int64 `json:"quantity"`
}

type body struct {
	Items []item `json:"items"`
}

// Every reader of events refuses what the API refuses, naming the field,
// and reads the rest as written.
func TestUnmarshal(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name, json string
		field      string   // of the error; "" for none
		typeErrors []string // and names in another case
	}{
		{"valid, an unknown member ignored", `{"items":[{"product_id":"p","quantity":1}],"extra":1}`, "", nil},
		{"invalid UTF-8", "{\"items\":[{\"product_id\":\"p\xff\"}]}", "items[0].product_id", nil},
		{"a name twice", `{"items":[{"quantity":1,"quantity":7}]}`, "items[0].quantity", nil},
		// A name in another case is named with every other bad field.
		{"a name in another case", `{"items":[{"quantity":1,"QUANTITY":7}]}`, "", []string{"items[0].quantity"}},
		{"a name in another case and a wrong type", `{"items":[{"product_id":1,"QUANTITY":7}]}`, "", []string{"items[0].product_id", "items[0].quantity"}},
		{"a wrong type", `{"items":[{"product_id":1,"quantity":"x"}]}`, "", []string{"items[0].product_id", "items[0].quantity"}},
	} {
		var b body
		fields, err := strictjson.Unmarshal([]byte(tt.json), &b)
		var e *svc.Error
		switch {
		case tt.field == "" && err != nil:
			t.Errorf("%s: %v", tt.name, err)
		case tt.field != "" && (!errors.As(err, &e) || len(e.Fields) != 1 || e.Fields[0].Field != tt.field):
			t.Errorf("%s: %v, want an error naming %s", tt.name, err, tt.field)
		}
		var got []string
		for _, f := range fields {
			got = append(got, f.Field)
		}
		slices.Sort(got)
		if !slices.Equal(got, tt.typeErrors) {
			t.Errorf("%s: type errors %v, want %v", tt.name, got, tt.typeErrors)
		}
	}
}

// A field sent in several other cases is named once, with every spelling
// in the order sent.
func TestSpellingsNamedOnce(t *testing.T) {
	t.Parallel()
	var b body
	fields, err := strictjson.Unmarshal([]byte(`{"items":[{"QUANTITY":1,"Product_ID":"p","Quantity":7,"quantity":3,"quantitY":4}]}`), &b)
	want := []svc.FieldError{
		{Field: "items[0].quantity", Message: `is sent as "QUANTITY" and "Quantity" and "quantitY": names are case-sensitive`},
		{Field: "items[0].product_id", Message: `is sent as "Product_ID": names are case-sensitive`},
	}
	if err != nil || !slices.Equal(fields, want) {
		t.Errorf("fields %q, %v; want %q", fields, err, want)
	}
}
