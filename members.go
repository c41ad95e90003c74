package svc

import (
	"context"
	"net/mail"
	"strings"
	"time"
)

// The roles of a brand's members. An owner changes the brand's settings,
// keys, webhook secrets and members; a viewer sees everything and changes
// nothing. The operator is an owner of every brand.
const (
	RoleOwner  = "owner"
	RoleViewer = "viewer"
)

// Member is a person with access to a brand's dashboard, by email address.
type Member struct {
	BrandID   string
	Email     string // lower case
	Role      string
	Digest    bool // wants the weekly digest
	CreatedAt time.Time
}

// NormalizeEmail returns a bare address in lower case, or false for
// anything else ("Name <a@b>" included: a member is an address).
func NormalizeEmail(s string) (string, bool) {
	s = strings.TrimSpace(s)
	a, err := mail.ParseAddress(s)
	if err != nil || a.Name != "" || a.Address != s || len(s) > 254 || !strings.Contains(s[strings.LastIndexByte(s, '@'):], ".") {
		return "", false
	}
	return strings.ToLower(s), true
}

// Validate normalizes the member's address and checks its role, naming
// every bad field.
func (m *Member) Validate() error {
	var fields []FieldError
	if m.BrandID == "" {
		fields = append(fields, FieldError{Field: "brand_id", Message: "is required"})
	}
	if e, ok := NormalizeEmail(m.Email); ok {
		m.Email = e
	} else {
		fields = append(fields, FieldError{Field: "email", Message: "must be an email address such as owner@shop.example"})
	}
	if m.Role != RoleOwner && m.Role != RoleViewer {
		fields = append(fields, FieldError{Field: "role", Message: "must be owner or viewer"})
	}
	if len(fields) > 0 {
		return Invalid(fields)
	}
	return nil
}

// MemberStore keeps the brands' members and the weekly digest's sends.
type MemberStore interface {
	// PutMember adds a member, or changes the role of one, and reports
	// whether it was added (a change keeps the digest choice and creation
	// time). Returns ENOTFOUND if the brand does not exist and ECONFLICT
	// if the change would leave a brand that has an owner without one.
	PutMember(ctx context.Context, m *Member) (added bool, err error)
	// RemoveMember removes a member; when it was the address's last
	// brand, its sessions end in the same transaction. Returns ENOTFOUND
	// if there is no such member and ECONFLICT for a brand's last owner.
	RemoveMember(ctx context.Context, brandID, email string) error
	// Member returns one member. Returns ENOTFOUND if there is none.
	Member(ctx context.Context, brandID, email string) (*Member, error)
	// Members returns a brand's members by address; brandID "" returns
	// every brand's, by brand then address.
	Members(ctx context.Context, brandID string) ([]*Member, error)
	// MemberBrands returns the memberships of an address, by brand.
	MemberBrands(ctx context.Context, email string) ([]*Member, error)
	// SetDigest turns the member's weekly digest on or off. Returns
	// ENOTFOUND if there is no such member.
	SetDigest(ctx context.Context, brandID, email string, on bool) error
	// ClaimDigest records that the digest of the member for the week
	// (its Monday, as 2006-01-02) is being sent, with the hash of its
	// unsubscribe token. It reports false if the week's digest was
	// claimed before, by this node or another: exactly one claim wins.
	ClaimDigest(ctx context.Context, brandID, email, week string, unsubscribe [32]byte, now time.Time) (bool, error)
	// UnsubscribeDigest turns off the digest of the member a sent digest's
	// unsubscribe token hash names, and returns that member. Returns
	// ENOTFOUND for an unknown token or a member since removed.
	UnsubscribeDigest(ctx context.Context, unsubscribe [32]byte) (*Member, error)
}

// AuditEvent is one line of a brand's audit log: who did what, when, from
// which address. Actor is a member's address, "operator", or "link" for a
// session opened by svc dashboard link.
type AuditEvent struct {
	ID      int64
	BrandID string
	At      time.Time
	Actor   string
	IP      string
	Action  string // one of the Audit constants
	Detail  string // what changed, never a secret
}

// Actions of the audit log.
const (
	AuditSignIn        = "sign-in"
	AuditMemberAdd     = "member-add"
	AuditMemberRole    = "member-role"
	AuditMemberRemove  = "member-remove"
	AuditKeyCreate     = "key-create"
	AuditKeyRevoke     = "key-revoke"
	AuditWebhookSecret = "webhook-secret"
	AuditSettings      = "settings"
	AuditPasskeyAdd    = "passkey-add"
	AuditPasskeyRemove = "passkey-remove"
)

// AuditStore keeps the audit log. Its lines are deleted with the events
// of the same age (EventStore.DeleteExpired).
type AuditStore interface {
	// AppendAudit stores an event and sets its ID.
	AppendAudit(ctx context.Context, e *AuditEvent) error
	// AuditEvents returns up to limit of a brand's events, newest first,
	// older than the event with the id before (0: the newest).
	AuditEvents(ctx context.Context, brandID string, before int64, limit int) ([]*AuditEvent, error)
}

// Passkey is a member's WebAuthn credential: a second way in, after a
// first sign-in by email.
type Passkey struct {
	ID         []byte // the credential id
	Email      string
	UserHandle []byte // the member's random id on the authenticator
	Name       string // the device it was made on, as the member sees it
	Credential []byte // the WebAuthn library's record, as JSON
	CreatedAt  time.Time
	LastUsed   time.Time
}

// PasskeyStore keeps members' passkeys and the WebAuthn ceremonies in
// flight, so that any node finishes what another began.
type PasskeyStore interface {
	// AddPasskey stores a passkey. Returns ECONFLICT if its id is taken.
	AddPasskey(ctx context.Context, p *Passkey) error
	// Passkeys returns a member's passkeys, oldest first.
	Passkeys(ctx context.Context, email string) ([]*Passkey, error)
	// PasskeysByHandle returns the passkeys of the member with the user
	// handle, oldest first.
	PasskeysByHandle(ctx context.Context, handle []byte) ([]*Passkey, error)
	// UsePasskey records a sign-in with a passkey: its updated record
	// (sign count, flags) and the time. Returns ENOTFOUND if it is gone.
	UsePasskey(ctx context.Context, id, credential []byte, at time.Time) error
	// RemovePasskey deletes a member's passkey. Returns ENOTFOUND if the
	// member has none with the id.
	RemovePasskey(ctx context.Context, email string, id []byte) error
	// PutCeremony stores a ceremony's state under a hash until expires,
	// replacing any, and deletes the ones expired at now.
	PutCeremony(ctx context.Context, hash [32]byte, data []byte, now, expires time.Time) error
	// TakeCeremony deletes and returns a live ceremony's state: a
	// ceremony finishes once. Returns ENOTFOUND if there is none at now.
	TakeCeremony(ctx context.Context, hash [32]byte, now time.Time) ([]byte, error)
	// CreateDashboardSession stores a session opened without a link (a
	// passkey's).
	CreateDashboardSession(ctx context.Context, s *DashboardSession) error
}
