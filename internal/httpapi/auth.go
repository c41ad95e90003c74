package httpapi

import (
	"net/http"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/auth"
)

// APIKeyHeader carries a brand's key (docs/spec.md, Authentication). Header names are
// case-insensitive; Go writes this one X-Svc-Api-Key.
const APIKeyHeader = "X-svc-Api-Key"

// apiKeyField is APIKeyHeader as the server stores it: looking it up in
// that form saves canonicalizing it twice a request.
var apiKeyField = http.CanonicalHeaderKey(APIKeyHeader)

func credentials(r *http.Request) auth.Credentials {
	keys := r.Header[apiKeyField]
	c := auth.Credentials{Origin: r.Header.Get("Origin"), HasKey: len(keys) > 0}
	if c.HasKey {
		c.Key = keys[0]
	}
	return c
}

// authenticate is the one check of a request's API key, for every route
// and the rate limiter: a key that is sent must be active (EUNAUTHORIZED
// otherwise); no key returns nil.
func (s *Server) authenticate(r *http.Request) (*svc.APIKey, auth.Credentials, error) {
	cred := credentials(r)
	key, err := s.auth.Authenticate(cred)
	return key, cred, err
}
