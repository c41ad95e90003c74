// Package strictjson decodes JSON exactly as written, for every reader of
// events: the API's bodies and svc import's lines (docs/decisions.md,
// Events). Invalid UTF-8, a member name given twice, and a name that
// differs from a known one only by case are errors naming the field, so
// that no proxy, log or importer reading the same bytes can see another
// event than the one counted.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/svc-project/svc"
)

// Unmarshal decodes body, one JSON object, into v. A body that is not one,
// or not read exactly as written (invalid UTF-8, a member name given
// twice), is an EINVALID error naming the field. JSON of the wrong shape
// is not an error: every field whose type is wrong, and every name that
// differs from one of v's only by case, is returned, so that the caller
// reports them with the other bad values. Unknown members are ignored.
//
// JSON v2 does all three in one pass when every member is known and well
// typed, which is what svc.js and brands' servers send. Anything else
// takes the slow path, which names every problem.
func Unmarshal(body []byte, v any) ([]svc.FieldError, error) {
	if jsonv2.Unmarshal(body, v, jsonv2.RejectUnknownMembers(true)) == nil {
		return nil, nil
	}
	rv := reflect.ValueOf(v).Elem()
	rv.SetZero() // the fast path may have filled part of it
	t := rv.Type()
	variants, err := checkSyntax(body, t)
	if err != nil {
		return nil, err
	}
	// The body is one object of valid UTF-8 with unique names: only
	// unknown members, names in another case (which match nothing, and
	// are reported with whatever else is wrong) or wrong types remain.
	if jsonv2.Unmarshal(body, v) == nil {
		return variants, nil
	}
	// A wrong type: v2 stops at the first; name every one from the
	// generic form, then decode with encoding/json, which reads the same
	// members now that names are exact and unique, and goes on past a
	// wrong type.
	rv.SetZero()
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw map[string]any
	if dec.Decode(&raw) != nil {
		return nil, svc.Errorf(svc.EINVALID, "the body is not valid JSON")
	}
	var fields []svc.FieldError
	typeErrors(raw, t, "", &fields)
	_ = json.Unmarshal(body, v)
	return svc.MergeFieldErrors(variants, fields), nil
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
// valid UTF-8 with unique member names; each of these names its field.
// It returns, as field errors, the members whose names differ from one of
// t's only by case: the event is refused, but with every other bad field
// named too (README.md: a bad request names every bad field).
func checkSyntax(body []byte, t reflect.Type) ([]svc.FieldError, error) {
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	var variants spellings
	if dec.PeekKind() == '{' {
		if err := checkNames(dec, t, t, &variants); err != nil {
			return nil, SyntaxError(err, t)
		}
	} else if err := dec.SkipValue(); err != nil {
		return nil, SyntaxError(err, t)
	} else {
		return nil, svc.Errorf(svc.EINVALID, "the body must be a JSON object")
	}
	if _, err := dec.ReadToken(); err != io.EOF {
		return nil, svc.Errorf(svc.EINVALID, "the body is not valid JSON: there is more after the value")
	}
	return variants.errors(), nil
}

// checkNames reads the value at dec, of Go type t (nil when it is not
// ours), adds every member whose name differs from one of t's only by case
// to variants, and returns the first syntax error.
func checkNames(dec *jsontext.Decoder, t, root reflect.Type, variants *spellings) error {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch k := dec.PeekKind(); {
	case k == '{' && t != nil && t.Kind() == reflect.Struct:
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			name := tok.String()
			f, ok := fieldByName(t, name)
			if !ok {
				if f, ok := fieldByFold(t, name); ok {
					field := Name(f)
					if parent := pointerField(dec.StackPointer().Parent(), root); parent != "" {
						field = parent + "." + field
					}
					variants.add(field, name)
				}
				if err := dec.SkipValue(); err != nil {
					return err
				}
				continue
			}
			if err := checkNames(dec, f.Type, root, variants); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	case k == '[' && t != nil && t.Kind() == reflect.Slice:
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		for dec.PeekKind() != ']' {
			if err := checkNames(dec, t.Elem(), root, variants); err != nil {
				return err
			}
		}
		_, err := dec.ReadToken()
		return err
	}
	return dec.SkipValue()
}

// spellings are the names of fields sent in another case than theirs:
// each field once, in the order they came, with every name it was sent as.
type spellings struct {
	fields []string
	names  map[string][]string
}

func (s *spellings) add(field, name string) {
	if s.names == nil {
		s.names = map[string][]string{}
	}
	if _, ok := s.names[field]; !ok {
		s.fields = append(s.fields, field)
	}
	s.names[field] = append(s.names[field], name)
}

// errors names each field once, with every spelling, so that each error
// names a different field.
func (s *spellings) errors() []svc.FieldError {
	var out []svc.FieldError
	for _, f := range s.fields {
		quoted := make([]string, len(s.names[f]))
		for i, n := range s.names[f] {
			quoted[i] = strconv.Quote(n)
		}
		out = append(out, svc.FieldError{Field: f, Message: "is sent as " + strings.Join(quoted, " and ") + ": names are case-sensitive"})
	}
	return out
}

// SyntaxError is the answer to a syntax error of a value of Go type t,
// which names its field when it is invalid UTF-8 or a repeated name.
func SyntaxError(err error, t reflect.Type) error {
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

// Name is the member name of a struct field, or "" for none.
func Name(f reflect.StructField) string {
	name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if name == "-" {
		return ""
	}
	return name
}

func fieldByName(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); Name(f) == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// fieldByFold finds the field whose name equals name but for case, as
// encoding/json would have matched it.
func fieldByFold(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := 0; i < t.NumField(); i++ {
		if f := t.Field(i); Name(f) != "" && strings.EqualFold(Name(f), name) {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

// typeErrors appends a FieldError for every value of raw (decoded with
// UseNumber) whose JSON type does not fit the Go type t. Null fits
// anything: it means absent.
func typeErrors(raw any, t reflect.Type, path string, out *[]svc.FieldError) {
	if raw == nil {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	bad := func(msg string) { *out = append(*out, svc.FieldError{Field: path, Message: msg}) }
	switch t.Kind() {
	case reflect.Struct:
		m, ok := raw.(map[string]any)
		if !ok {
			bad("must be an object")
			return
		}
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			name := Name(f)
			if name == "" {
				continue
			}
			if v, ok := m[name]; ok {
				p := name
				if path != "" {
					p = path + "." + name
				}
				typeErrors(v, f.Type, p, out)
			}
		}
	case reflect.Slice:
		a, ok := raw.([]any)
		if !ok {
			bad("must be an array")
			return
		}
		for i, e := range a {
			typeErrors(e, t.Elem(), fmt.Sprintf("%s[%d]", path, i), out)
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
