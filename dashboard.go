package svc

import (
	"context"
	"time"
)

// A dashboard user signs in with a one-time link that an operator's
// command prints, and then holds a session. Only hashes of the link's
// token and of the session id are stored, as for API keys: a copy of the
// database signs nobody in.

// Lifetimes of the dashboard's credentials.
const (
	SignInLinkTTL = 15 * time.Minute
	SessionTTL    = 12 * time.Hour
)

// SignInLink is a one-time sign-in for a brand's dashboard or, with
// BrandID "", the operator's.
type SignInLink struct {
	Hash      [32]byte // of the token in the link
	BrandID   string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// NewSignInLink returns a fresh token and the link record to store.
func NewSignInLink(brandID string, now time.Time) (token string, l *SignInLink) {
	token = randomBase62(43) // 256 bits
	return token, &SignInLink{Hash: HashSecret(token), BrandID: brandID, CreatedAt: now.UTC(), ExpiresAt: now.UTC().Add(SignInLinkTTL)}
}

// DashboardSession is a signed-in dashboard user: a brand's, or the
// operator's when BrandID is "".
type DashboardSession struct {
	Hash      [32]byte // of the session id in the cookie
	BrandID   string
	CSRF      string // the token every form of the session carries
	CreatedAt time.Time
	ExpiresAt time.Time
}

// Operator reports whether the session is the operator's, who sees every brand.
func (s *DashboardSession) Operator() bool { return s.BrandID == "" }

// NewDashboardSession returns a fresh session id and the session to
// store for the brand of a redeemed link.
func NewDashboardSession(brandID string, now time.Time) (id string, s *DashboardSession) {
	id = randomBase62(43)
	return id, &DashboardSession{Hash: HashSecret(id), BrandID: brandID, CSRF: randomBase62(32), CreatedAt: now.UTC(), ExpiresAt: now.UTC().Add(SessionTTL)}
}

// HashSecret is the hash under which a link token or a session id is
// stored and looked up.
func HashSecret(s string) [32]byte { return HashAPIKey(s) }

// DashboardStore keeps sign-in links and dashboard sessions, so that every
// node of a shared store knows them.
type DashboardStore interface {
	// CreateSignInLink stores a link.
	CreateSignInLink(ctx context.Context, l *SignInLink) error
	// RedeemSignInLink uses up the link with the token hash and stores
	// the session s for its brand (s.BrandID is set from the link) in one
	// transaction. Returns ENOTFOUND if there is no such link, or it was
	// used or expired at now.
	RedeemSignInLink(ctx context.Context, hash [32]byte, now time.Time, s *DashboardSession) error
	// SignInLink returns the link with the token hash without using it
	// up, so that its page can name its brand. Returns ENOTFOUND if there
	// is no such link, or it was used or expired at now.
	SignInLink(ctx context.Context, hash [32]byte, now time.Time) (*SignInLink, error)
	// DashboardSession returns the session with the id hash. Returns
	// ENOTFOUND if there is none or it expired at now.
	DashboardSession(ctx context.Context, hash [32]byte, now time.Time) (*DashboardSession, error)
	// EndDashboardSession deletes the session, and every expired one.
	EndDashboardSession(ctx context.Context, hash [32]byte, now time.Time) error
}
