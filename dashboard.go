package svc

import (
	"context"
	"time"
)

// A dashboard user signs in with a one-time link, which an operator's
// command prints or a member asks for by email, and then holds a session. Only hashes of the link's
// token and of the session id are stored, as for API keys: a copy of the
// database signs nobody in.

// Lifetimes of the dashboard's credentials.
const (
	SignInLinkTTL = 15 * time.Minute
	// SessionTTL is how long a session lasts unused: each use moves its
	// end this far ahead (at most once a SessionTouch).
	SessionTTL = 30 * 24 * time.Hour
	// SessionTouch is how stale a session's last use may be before a
	// request writes the new one: a page view is not a write each time.
	SessionTouch = time.Minute
)

// SignInLink is a one-time sign-in for a brand's dashboard, for a member
// (Email set, BrandID ""), or with both "", the operator's.
type SignInLink struct {
	Hash    [32]byte // of the token in the link
	BrandID string
	Email   string
	// Binding is the hash of the cookie of the browser that asked for a
	// member's link: the link opens a session in that browser only. Zero
	// for an operator's command's link.
	Binding   [32]byte
	CreatedAt time.Time
	ExpiresAt time.Time
}

// NewSignInLink returns a fresh token and the link record to store.
func NewSignInLink(brandID string, now time.Time) (token string, l *SignInLink) {
	token = randomBase62(43) // 256 bits
	return token, &SignInLink{Hash: HashSecret(token), BrandID: brandID, CreatedAt: now.UTC(), ExpiresAt: now.UTC().Add(SignInLinkTTL)}
}

// NewMemberSignInLink returns a fresh token and the link of a member who
// asked by email from the browser with the binding cookie.
func NewMemberSignInLink(email, binding string, now time.Time) (token string, l *SignInLink) {
	token, l = NewSignInLink("", now)
	l.Email, l.Binding = email, HashSecret(binding)
	return token, l
}

// DashboardSession is a signed-in dashboard user: a member's (Email set),
// the owner's of one brand (a command's link for BrandID), or the
// operator's when both are "".
type DashboardSession struct {
	Hash      [32]byte // of the session id in the cookie
	BrandID   string
	Email     string
	CSRF      string // the token every form of the session carries
	UserAgent string // of the browser that signed in, to tell sessions apart
	IP        string // that signed in
	CreatedAt time.Time
	LastSeen  time.Time
	ExpiresAt time.Time
}

// Operator reports whether the session is the operator's, who sees every brand.
func (s *DashboardSession) Operator() bool { return s.BrandID == "" && s.Email == "" }

// NewDashboardSession returns a fresh session id and the session to
// store for the brand of a redeemed link.
func NewDashboardSession(brandID string, now time.Time) (id string, s *DashboardSession) {
	id = randomBase62(43)
	return id, &DashboardSession{Hash: HashSecret(id), BrandID: brandID, CSRF: randomBase62(32), CreatedAt: now.UTC(), LastSeen: now.UTC(), ExpiresAt: now.UTC().Add(SessionTTL)}
}

// HashSecret is the hash under which a link token or a session id is
// stored and looked up.
func HashSecret(s string) [32]byte { return HashAPIKey(s) }

// NewSecret returns a random token of 256 bits, such as a browser's
// sign-in cookie.
func NewSecret() string { return randomBase62(43) }

// DashboardStore keeps sign-in links and dashboard sessions, so that every
// node of a shared store knows them.
type DashboardStore interface {
	// CreateSignInLink stores a link.
	CreateSignInLink(ctx context.Context, l *SignInLink) error
	// SignInLink returns the live link with the token hash without using
	// it up, so that its page can name whom it signs in, and its browser
	// binding be checked first. Returns ENOTFOUND if there is no such
	// link, or it was used or expired at now.
	SignInLink(ctx context.Context, hash [32]byte, now time.Time) (*SignInLink, error)
	// RedeemSignInLink uses up the link with the token hash and stores
	// the session s for its brand or member (s.BrandID and s.Email are set
	// from the link) in one transaction. Returns ENOTFOUND if there is no
	// such link, or it was used or expired at now.
	RedeemSignInLink(ctx context.Context, hash [32]byte, now time.Time, s *DashboardSession) error
	// DashboardSession returns the session with the id hash. Returns
	// ENOTFOUND if there is none or it expired at now.
	DashboardSession(ctx context.Context, hash [32]byte, now time.Time) (*DashboardSession, error)
	// EndDashboardSession deletes the session, and every expired one.
	EndDashboardSession(ctx context.Context, hash [32]byte, now time.Time) error
	// TouchDashboardSession records a use of the session at now, which
	// moves its end to now + SessionTTL.
	TouchDashboardSession(ctx context.Context, hash [32]byte, now time.Time) error
	// DashboardSessions returns the live sessions of a member, the most
	// recently used first.
	DashboardSessions(ctx context.Context, email string, now time.Time) ([]*DashboardSession, error)
	// EndMemberSessions deletes every session of the member but the one
	// with the hash keep (zero: every one), and returns how many of them
	// were live at now.
	EndMemberSessions(ctx context.Context, email string, keep [32]byte, now time.Time) (int64, error)
	// The brands' members (members.go).
	MemberStore
	// The audit log (members.go).
	AuditStore
	// Members' passkeys (members.go).
	PasskeyStore
}
