package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/svc-project/svc"
)

// MaxBodyBytes is the largest request body accepted (docs/spec.md, Limits).
const MaxBodyBytes = 64 << 10

// decodeJSON reads the body into v. A body that is too large, empty or not
// JSON is an error; JSON of the wrong shape is not: every field whose type is
// wrong is returned, so that the caller reports them with the bad values.
// The Content-Type is not checked, so that navigator.sendBeacon's text/plain
// bodies work without a CORS preflight.
func decodeJSON(w http.ResponseWriter, r *http.Request, v any) (body []byte, _ []svc.FieldError, _ error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, MaxBodyBytes))
	var tooLarge *http.MaxBytesError
	switch {
	case errors.As(err, &tooLarge):
		return nil, nil, svc.Errorf(svc.ETOOLARGE, "the body is larger than %d KiB", MaxBodyBytes>>10)
	case err != nil:
		return nil, nil, svc.Errorf(svc.EINVALID, "the body could not be read")
	case len(bytes.TrimSpace(body)) == 0:
		return nil, nil, svc.Errorf(svc.EINVALID, "the body is empty: send a JSON object")
	}
	fields, err := unmarshal(body, v)
	return body, fields, err
}

// unmarshal decodes body into v; see decodeJSON. A body is read exactly as
// written (docs/decisions.md, Events): invalid UTF-8, a member
// name given twice, and a name that differs from one of v's only by case
// are errors naming the field, so that no proxy or log reading the same
// body can see another event than the one counted.
//
// JSON v2 does all three in one pass when every member is known and well
// typed, which is what svc.js and brands' servers send. Anything else
// takes the slow path, which names every problem.
func unmarshal(body []byte, v any) ([]svc.FieldError, error) {
	if jsonv2.Unmarshal(body, v, jsonv2.RejectUnknownMembers(true)) == nil {
		return nil, nil
	}
	rv := reflect.ValueOf(v).Elem()
	rv.SetZero() // the fast path may have filled part of it
	t := rv.Type()
	if err := checkSyntax(body, t); err != nil {
		return nil, err
	}
	// The body is now known to be one object of valid UTF-8 without
	// duplicate names; decode its generic form to name every case
	// variant and every wrong type.
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw map[string]any
	if dec.Decode(&raw) != nil {
		return nil, svc.Errorf(svc.EINVALID, "the body is not valid JSON")
	}
	var names, types []svc.FieldError
	walk(raw, t, "", &names, &types)
	if len(names) > 0 {
		return nil, svc.Invalid(names)
	}
	// With exact, unique names, encoding/json reads the same members as
	// v2 does, and it goes on past a wrong type, which types names.
	_ = json.Unmarshal(body, v)
	return types, nil
}

// errInvalidUTF8 is the error jsontext reports for invalid UTF-8; the
// package does not export it.
var errInvalidUTF8 = func() error {
	_, err := jsontext.NewDecoder(strings.NewReader("\"\xff\"")).ReadValue()
	var serr *jsontext.SyntacticError
	if !errors.As(err, &serr) {
		panic("jsontext accepts invalid UTF-8")
	}
	return serr.Err
}()

// checkSyntax returns an EINVALID error unless body is one JSON object of
// valid UTF-8 with unique member names. Invalid UTF-8 and a repeated name
// name their field.
func checkSyntax(body []byte, t reflect.Type) error {
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	val, err := dec.ReadValue()
	if err == nil {
		object := val.Kind() == '{' // val is valid until the next read
		if _, err = dec.ReadToken(); err != io.EOF {
			return svc.Errorf(svc.EINVALID, "the body is not valid JSON: there is more after the value")
		}
		if !object {
			return svc.Errorf(svc.EINVALID, "the body must be a JSON object")
		}
		return nil
	}
	var serr *jsontext.SyntacticError
	if !errors.As(err, &serr) {
		return svc.Errorf(svc.EINVALID, "the body is not valid JSON: it ends too early")
	}
	field := pointerField(serr.JSONPointer, t)
	switch {
	case field != "" && errors.Is(serr.Err, jsontext.ErrDuplicateName):
		return svc.Invalid([]svc.FieldError{{Field: field, Message: "appears more than once: each name may be given once"}})
	case field != "" && errors.Is(serr.Err, errInvalidUTF8):
		return svc.Invalid([]svc.FieldError{{Field: field, Message: "must be valid UTF-8"}})
	}
	return svc.Errorf(svc.EINVALID, "the body is not valid JSON: %s (at byte %d)", strings.ToValidUTF8(serr.Err.Error(), "\uFFFD"), serr.ByteOffset)
}

// pointerField turns a JSON pointer into a field as errors name it:
// product.product_id, order.items[0].quantity. Members outside t are
// named as sent.
func pointerField(p jsontext.Pointer, t reflect.Type) string {
	var b strings.Builder
	for tok := range p.Tokens() {
		for t != nil && t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t != nil && t.Kind() == reflect.Slice {
			b.WriteString("[" + tok + "]")
			t = t.Elem()
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(strings.ToValidUTF8(tok, "\uFFFD"))
		var next reflect.Type
		if t != nil && t.Kind() == reflect.Struct {
			if f, ok := fieldByName(t, tok); ok {
				next = f.Type
			}
		}
		t = next
	}
	return b.String()
}

// jsonName is the member name of a struct field, or "" for none.
func jsonName(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}

func fieldByName(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); jsonName(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// walk appends to names a FieldError for every member of raw (decoded with
// UseNumber) whose name is one of t's in another case, and to types one for
// every value whose JSON type does not fit the Go type t. Null fits
// anything: it means absent.
func walk(raw any, t reflect.Type, path string, names, types *[]svc.FieldError) {
	if raw == nil {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	bad := func(msg string) { *types = append(*types, svc.FieldError{Field: path, Message: msg}) }
	switch t.Kind() {
	case reflect.Struct:
		m, ok := raw.(map[string]any)
		if !ok {
			bad("must be an object")
			return
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := jsonName(f)
			if name == "" {
				continue
			}
			p := name
			if path != "" {
				p = path + "." + name
			}
			for k := range m { // objects are small: a handful of members
				if k != name && strings.EqualFold(k, name) {
					*names = append(*names, svc.FieldError{Field: p, Message: fmt.Sprintf("is sent as %s: names are case-sensitive", strconv.Quote(k))})
					break
				}
			}
			if v, ok := m[name]; ok {
				walk(v, f.Type, p, names, types)
			}
		}
	case reflect.Slice:
		a, ok := raw.([]any)
		if !ok {
			bad("must be an array")
			return
		}
		for i, e := range a {
			walk(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i), names, types)
		}
	case reflect.String:
		if _, ok := raw.(string); !ok {
			bad("must be a string")
		}
	case reflect.Float64:
		if _, ok := raw.(json.Number); !ok {
			bad("must be a number")
		} else if _, err := raw.(json.Number).Float64(); err != nil {
			bad("must be a finite number")
		}
	case reflect.Int64:
		n, ok := raw.(json.Number)
		if !ok {
			bad("must be an integer")
		} else if _, err := n.Int64(); err != nil {
			bad("must be an integer")
		}
	}
}
