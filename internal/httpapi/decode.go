package httpapi

import (
	"bytes"
	"errors"
	"io"
	"net/http"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/strictjson"
	"github.com/svc-project/svc/internal/wire"
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

// checked is an error naming every bad field once (wire.Merge), or nil.
func checked(decodeErrors, invalid []svc.FieldError) error {
	if fields := wire.Merge(decodeErrors, invalid); len(fields) > 0 {
		return svc.Invalid(fields)
	}
	return nil
}

// The strict decoding every reader of events shares (internal/strictjson).
var (
	unmarshal   = strictjson.Unmarshal
	syntaxError = strictjson.SyntaxError
	jsonName    = strictjson.Name
)
