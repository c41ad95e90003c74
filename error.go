package svc

import (
	"errors"
	"fmt"
	"strings"
)

// Error codes. Each maps to one HTTP status in internal/httpapi.
const (
	EINVALID      = "invalid"            // 400: the request is malformed or a field is bad
	EUNAUTHORIZED = "unauthorized"       // 401: key missing, unknown, revoked or of another brand
	ENOTFOUND     = "not_found"          // 404: brand or product unknown
	EMETHOD       = "method_not_allowed" // 405: the path exists, not with this method
	ECONFLICT     = "conflict"           // 409: the change clashes with what is stored
	ETOOLARGE     = "too_large"          // 413: the body is over the limit
	ERATELIMIT    = "rate_limited"       // 429: too many anonymous requests from one address
	EUNAVAILABLE  = "unavailable"        // 503: the service is shutting down or its store is unreachable
	EINTERNAL     = "internal"           // 500: anything else; never shown to clients
)

// FieldError names one bad field of a request and what is wrong with it.
// Field is a path of Go field names in the domain's type, such as
// "Order.Items[2].Quantity", which internal/wire names as the API does
// ("order.items[2].quantity"); or a brand setting's, query parameter's or
// header's name, which every layer names alike.
type FieldError struct {
	Field   string
	Message string
}

// Error is the error every layer of svc returns. Message is safe to show to a
// client; Err, if set, is the internal cause and is only logged.
type Error struct {
	Code    string
	Message string
	Fields  []FieldError
	Err     error
}

func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("svc %s: %s: %v", e.Code, e.Message, e.Err)
	}
	return fmt.Sprintf("svc %s: %s", e.Code, e.Message)
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf returns an *Error with the code and a formatted message.
func Errorf(code, format string, args ...any) *Error {
	return &Error{Code: code, Message: fmt.Sprintf(format, args...)}
}

// Invalid returns an EINVALID error listing every bad field.
func Invalid(fields []FieldError) *Error {
	msg := "the request has invalid fields"
	if len(fields) == 1 {
		msg = "the request has an invalid field"
	}
	return &Error{Code: EINVALID, Message: msg, Fields: fields}
}

// Internal wraps an unexpected failure; its cause is logged, never shown.
func Internal(err error) *Error {
	return &Error{Code: EINTERNAL, Message: "internal error", Err: err}
}

// ErrorCode returns the code of an *Error in err's chain, or EINTERNAL.
func ErrorCode(err error) string {
	var e *Error
	if err == nil {
		return ""
	} else if errors.As(err, &e) {
		return e.Code
	}
	return EINTERNAL
}

// MergeFieldErrors returns first followed by those of then that are not
// about a field of first or inside one: a field whose JSON type was wrong
// is reported once, not again as missing.
func MergeFieldErrors(first, then []FieldError) []FieldError {
	if len(first) == 0 {
		return then
	}
	out := append([]FieldError(nil), first...)
next:
	for _, f := range then {
		for _, g := range first {
			if f.Field == g.Field || strings.HasPrefix(f.Field, g.Field+".") || strings.HasPrefix(f.Field, g.Field+"[") {
				continue next
			}
		}
		out = append(out, f)
	}
	return out
}
