// Package wire holds the JSON shapes of the bodies clients send: events,
// cancellations, order links and enrichment requests (docs/spec.md). Each
// shape converts to the domain's type, which carries no member names, and
// Names renames the domain's field paths ("Order.Items[0].Quantity") as the
// API spells them ("order.items[0].quantity"). The API, the import and the
// load generator read events through these shapes, so a member's name is
// written once.
package wire

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/strictjson"
)

// shapes are the bodies whose fields the domain validates: their members,
// and those of every struct inside them, make the table of names.
var shapes = []any{View{}, Purchase{}, Cart{}, Cancel{}, OrderSession{}, SearchEnrich{}, ProductEnrich{}}

// memberOf maps a Go field name of a shape to its JSON member name. A Go
// name has one member name in every shape (goName panics otherwise), so
// that a path renames without knowing the shape it came from.
var memberOf = func() map[string]string {
	m := map[string]string{}
	for _, s := range shapes {
		addMembers(m, reflect.TypeOf(s))
	}
	return m
}()

func addMembers(m map[string]string, t reflect.Type) {
	for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return
	}
	for i := range t.NumField() {
		f := t.Field(i)
		name := strictjson.Name(f)
		if name == "" {
			continue
		}
		if old, ok := m[f.Name]; ok && old != name {
			panic(fmt.Sprintf("wire: Go field %s is %q in one shape and %q in another", f.Name, old, name))
		}
		m[f.Name] = name
		addMembers(m, f.Type)
	}
}

// Name renames a domain field path as the API spells it: each Go field
// name by its member name, indexes kept. A path that is not one of Go
// field names (a query parameter, a header, a brand setting's name) comes
// back as it is, and so does the rest of a path after a name no shape has.
func Name(path string) string {
	var b strings.Builder
	rest := path
	for rest != "" {
		seg, tail, dotted := strings.Cut(rest, ".")
		name, index, _ := strings.Cut(seg, "[")
		member, ok := memberOf[name]
		if !ok {
			b.WriteString(rest)
			break
		}
		b.WriteString(member)
		if index != "" {
			b.WriteString("[" + index)
		}
		if dotted {
			b.WriteByte('.')
		}
		rest = tail
	}
	return b.String()
}

// Names renames the fields of errs in place (Name), and returns errs.
func Names(errs []svc.FieldError) []svc.FieldError {
	for i := range errs {
		errs[i].Field = Name(errs[i].Field)
	}
	return errs
}

// Merge is every bad field of a body once: the decoder's (already in the
// API's names) first, then those of the domain's validation, renamed.
func Merge(decodeErrors, invalid []svc.FieldError) []svc.FieldError {
	return svc.MergeFieldErrors(decodeErrors, Names(invalid))
}
