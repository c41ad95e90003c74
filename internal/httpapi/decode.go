package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"

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

// unmarshal decodes body into v; see decodeJSON.
func unmarshal(body []byte, v any) ([]svc.FieldError, error) {
	err := json.Unmarshal(body, v)
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &syntax):
		return nil, svc.Errorf(svc.EINVALID, "the body is not valid JSON: %s (at byte %d)", syntax.Error(), syntax.Offset)
	case errors.As(err, &typ):
		// json stops reporting at the first wrong type; walk the generic
		// form of the body to name every one.
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var raw any
		if dec.Decode(&raw) != nil {
			return nil, svc.Errorf(svc.EINVALID, "the body is not valid JSON")
		}
		if _, ok := raw.(map[string]any); !ok {
			return nil, svc.Errorf(svc.EINVALID, "the body must be a JSON object")
		}
		var fields []svc.FieldError
		typeErrors(raw, reflect.TypeOf(v).Elem(), "", &fields)
		return fields, nil
	default:
		return nil, svc.Errorf(svc.EINVALID, "the body is not valid JSON")
	}
}

// typeErrors appends a FieldError for every value of raw (decoded with
// UseNumber) whose JSON type does not fit the Go type t. Null fits anything:
// it means absent.
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
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" || name == "-" {
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
