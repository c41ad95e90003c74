package dashboard

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/go-webauthn/webauthn/protocol"
	"github.com/go-webauthn/webauthn/webauthn"

	"github.com/svc-project/svc"
)

// Passkeys (WebAuthn, github.com/go-webauthn/webauthn): a member signed in
// by email adds one on their account page; afterwards the sign-in page
// signs them in with it, without mail. The ceremonies' state is in the
// store, so that one node may begin what another finishes.

// PasskeyCookie holds, in the browser signing in with a passkey, the
// secret its ceremony is stored under.
const PasskeyCookie = "svc_passkey"

// ceremonyTTL is how long a passkey prompt may stay open.
const ceremonyTTL = 5 * time.Minute

// newWebAuthn is the relying party of --public-url: its host is the RP ID
// (an IP address cannot be one), its origin the only one accepted. nil
// without a public URL with a host name: no passkeys.
func newWebAuthn(publicURL string) *webauthn.WebAuthn {
	u, err := url.Parse(publicURL)
	if err != nil || u.Hostname() == "" || isIP(u.Hostname()) {
		return nil
	}
	w, err := webauthn.New(&webauthn.Config{RPDisplayName: "svc dashboard", RPID: u.Hostname(), RPOrigins: []string{u.Scheme + "://" + u.Host}})
	if err != nil {
		return nil
	}
	return w
}

func isIP(host string) bool { return net.ParseIP(host) != nil }

func hexEncode(b []byte) string          { return hex.EncodeToString(b) }
func hexDecode(s string) ([]byte, error) { return hex.DecodeString(s) }

func (h *Handler) routePasskeys() {
	h.mux.Handle("POST /dashboard/account/passkeys/begin", h.jsonSession(h.beginPasskey))
	h.mux.Handle("POST /dashboard/account/passkeys/finish", h.jsonSession(h.finishPasskey))
	h.mux.Handle("POST /dashboard/account/passkeys/remove", h.session(h.removePasskey))
	h.mux.HandleFunc("POST /dashboard/signin/passkey/begin", h.beginPasskeySignIn)
	h.mux.HandleFunc("POST /dashboard/signin/passkey/finish", h.finishPasskeySignIn)
}

// passkeyUser is a member as the WebAuthn library sees them.
type passkeyUser struct {
	email  string
	handle []byte
	keys   []*svc.Passkey
	creds  []webauthn.Credential
}

func (u *passkeyUser) WebAuthnID() []byte                         { return u.handle }
func (u *passkeyUser) WebAuthnName() string                       { return u.email }
func (u *passkeyUser) WebAuthnDisplayName() string                { return u.email }
func (u *passkeyUser) WebAuthnCredentials() []webauthn.Credential { return u.creds }

func newPasskeyUser(email string, keys []*svc.Passkey) (*passkeyUser, error) {
	u := &passkeyUser{email: email, keys: keys}
	for _, k := range keys {
		var c webauthn.Credential
		if err := json.Unmarshal(k.Credential, &c); err != nil {
			return nil, err
		}
		u.creds = append(u.creds, c)
		u.handle = k.UserHandle
	}
	if u.handle == nil { // the first passkey: a random handle, which says nothing of the address
		u.handle = make([]byte, 32)
		_, _ = rand.Read(u.handle)
	}
	return u, nil
}

// jsonSession is session for the passkey script's requests: JSON bodies,
// with the CSRF token in a header.
func (h *Handler) jsonSession(next sessionHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		u, err := h.user(w, r)
		switch {
		case err != nil:
			jsonError(w, http.StatusInternalServerError, "the server failed; the error is in its log")
			h.cfg.Log.Error("dashboard: passkey", "err", err)
			return
		case u == nil:
			jsonError(w, http.StatusUnauthorized, "sign in again")
			return
		}
		got := r.Header.Get("X-CSRF-Token")
		if site := r.Header.Get("Sec-Fetch-Site"); (site != "" && site != "same-origin") || got == "" || subtle.ConstantTimeCompare([]byte(got), []byte(u.sess.CSRF)) != 1 {
			jsonError(w, http.StatusForbidden, "the security token did not match this session")
			return
		}
		if err := next(w, r, u); err != nil {
			h.cfg.Log.Error("dashboard: passkey", "err", err)
			jsonError(w, http.StatusInternalServerError, "the server failed; the error is in its log")
		}
	})
}

func jsonError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

func writeJSONValue(w http.ResponseWriter, v any) error {
	w.Header().Set("Content-Type", "application/json")
	return json.NewEncoder(w).Encode(v)
}

// ceremonyKey is where a session's registration ceremony is kept.
func ceremonyKey(kind, secret string) [32]byte { return svc.HashSecret(kind + ":" + secret) }

func (h *Handler) beginPasskey(w http.ResponseWriter, r *http.Request, u *user) error {
	if h.webauthn == nil || u.sess.Email == "" {
		jsonError(w, http.StatusBadRequest, "passkeys need a member signed in by email, and --public-url with a host name")
		return nil
	}
	keys, err := h.cfg.Store.Passkeys(r.Context(), u.sess.Email)
	if err != nil {
		return err
	}
	pu, err := newPasskeyUser(u.sess.Email, keys)
	if err != nil {
		return err
	}
	creation, data, err := h.webauthn.BeginRegistration(pu,
		webauthn.WithResidentKeyRequirement(protocol.ResidentKeyRequirementRequired),
		webauthn.WithExclusions(webauthn.Credentials(pu.creds).CredentialDescriptors()))
	if err != nil {
		return err
	}
	if err := h.putCeremony(r, ceremonyKey("register", u.id), data); err != nil {
		return err
	}
	return writeJSONValue(w, creation)
}

func (h *Handler) putCeremony(r *http.Request, key [32]byte, data *webauthn.SessionData) error {
	raw, err := json.Marshal(data)
	if err != nil {
		return err
	}
	now := h.cfg.Now()
	return h.cfg.Store.PutCeremony(r.Context(), key, raw, now, now.Add(ceremonyTTL))
}

func (h *Handler) takeCeremony(r *http.Request, key [32]byte) (*webauthn.SessionData, error) {
	raw, err := h.cfg.Store.TakeCeremony(r.Context(), key, h.cfg.Now())
	if err != nil {
		return nil, err
	}
	var data webauthn.SessionData
	return &data, json.Unmarshal(raw, &data)
}

func (h *Handler) finishPasskey(w http.ResponseWriter, r *http.Request, u *user) error {
	if h.webauthn == nil || u.sess.Email == "" {
		jsonError(w, http.StatusBadRequest, "passkeys need a member signed in by email")
		return nil
	}
	data, err := h.takeCeremony(r, ceremonyKey("register", u.id))
	if svc.ErrorCode(err) == svc.ENOTFOUND {
		jsonError(w, http.StatusBadRequest, "the passkey prompt expired: try again")
		return nil
	} else if err != nil {
		return err
	}
	keys, err := h.cfg.Store.Passkeys(r.Context(), u.sess.Email)
	if err != nil {
		return err
	}
	pu, err := newPasskeyUser(u.sess.Email, keys)
	if err != nil {
		return err
	}
	pu.handle = data.UserID // the handle the authenticator was given
	cred, err := h.webauthn.FinishRegistration(pu, *data, r)
	if err != nil {
		jsonError(w, http.StatusBadRequest, "the passkey was not accepted: "+protocolDetail(err))
		return nil
	}
	raw, err := json.Marshal(cred)
	if err != nil {
		return err
	}
	now := h.cfg.Now()
	p := &svc.Passkey{ID: cred.ID, Email: u.sess.Email, UserHandle: pu.handle, Name: device(r.UserAgent()), Credential: raw, CreatedAt: now, LastUsed: now}
	if err := h.cfg.Store.AddPasskey(r.Context(), p); err != nil {
		if svc.ErrorCode(err) == svc.ECONFLICT {
			jsonError(w, http.StatusConflict, "this passkey is registered already")
			return nil
		}
		return err
	}
	h.auditMember(r, u, svc.AuditPasskeyAdd, p.Name)
	return writeJSONValue(w, map[string]string{"name": p.Name})
}

// protocolDetail is what the library says went wrong, for the person.
func protocolDetail(err error) string {
	var pe *protocol.Error
	if errors.As(err, &pe) && pe.Details != "" {
		return pe.Details
	}
	return err.Error()
}

// auditMember writes an event of a member into each of their brands' logs.
func (h *Handler) auditMember(r *http.Request, u *user, action, detail string) {
	ms, err := h.cfg.Store.MemberBrands(r.Context(), u.sess.Email)
	if err != nil {
		h.cfg.Log.Warn("dashboard: audit", "err", err)
		return
	}
	for _, m := range ms {
		h.audit(r, u, m.BrandID, action, detail)
	}
}

func (h *Handler) removePasskey(w http.ResponseWriter, r *http.Request, u *user) error {
	id, err := hexDecode(r.PostFormValue("passkey"))
	if err != nil || u.sess.Email == "" {
		return svc.Errorf(svc.ENOTFOUND, "no such passkey")
	}
	if err := h.cfg.Store.RemovePasskey(r.Context(), u.sess.Email, id); err != nil {
		return err
	}
	h.auditMember(r, u, svc.AuditPasskeyRemove, "")
	http.Redirect(w, r, "/dashboard/account#passkeys", http.StatusSeeOther)
	return nil
}

// beginPasskeySignIn starts a sign-in with any passkey of this site (a
// discoverable credential: the browser offers the member's own), under a
// cookie of this browser. Limited per client address, as mail is.
func (h *Handler) beginPasskeySignIn(w http.ResponseWriter, r *http.Request) {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		jsonError(w, http.StatusForbidden, "sign in from this site")
		return
	}
	if h.webauthn == nil {
		jsonError(w, http.StatusNotFound, "passkeys need --public-url with a host name")
		return
	}
	if !h.perIP.allow(h.cfg.ClientIP(r).String(), h.cfg.Now()) {
		jsonError(w, http.StatusTooManyRequests, "too many sign-ins from here: wait a few minutes")
		return
	}
	assertion, data, err := h.webauthn.BeginDiscoverableLogin()
	if err != nil {
		h.cfg.Log.Error("dashboard: passkey", "err", err)
		jsonError(w, http.StatusInternalServerError, "the server failed; the error is in its log")
		return
	}
	secret := svc.NewSecret()
	if err := h.putCeremony(r, ceremonyKey("signin", secret), data); err != nil {
		h.cfg.Log.Error("dashboard: passkey", "err", err)
		jsonError(w, http.StatusInternalServerError, "the server failed; the error is in its log")
		return
	}
	c := h.cookie(r, secret, int(ceremonyTTL/time.Second))
	c.Name, c.Path = PasskeyCookie, "/dashboard/signin"
	http.SetCookie(w, c)
	_ = writeJSONValue(w, assertion)
}

// finishPasskeySignIn checks the browser's assertion against the member's
// stored passkey and opens a session, as a mailed link would.
func (h *Handler) finishPasskeySignIn(w http.ResponseWriter, r *http.Request) {
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		jsonError(w, http.StatusForbidden, "sign in from this site")
		return
	}
	c, err := r.Cookie(PasskeyCookie)
	if h.webauthn == nil || err != nil {
		jsonError(w, http.StatusBadRequest, "the passkey prompt expired: try again")
		return
	}
	data, err := h.takeCeremony(r, ceremonyKey("signin", c.Value))
	if err != nil {
		jsonError(w, http.StatusBadRequest, "the passkey prompt expired: try again")
		return
	}
	var found *passkeyUser
	_, cred, err := h.webauthn.FinishPasskeyLogin(func(_, handle []byte) (webauthn.User, error) {
		keys, err := h.cfg.Store.PasskeysByHandle(r.Context(), handle)
		if err != nil || len(keys) == 0 {
			return nil, errors.New("no member has this passkey")
		}
		found, err = newPasskeyUser(keys[0].Email, keys)
		return found, err
	}, *data, r)
	if err != nil || found == nil {
		jsonError(w, http.StatusUnauthorized, "this passkey signs nobody in here")
		return
	}
	brands, err := h.cfg.Store.MemberBrands(r.Context(), found.email)
	if err != nil || len(brands) == 0 {
		jsonError(w, http.StatusUnauthorized, "this passkey signs nobody in here")
		return
	}
	now := h.cfg.Now()
	raw, _ := json.Marshal(cred)
	if err := h.cfg.Store.UsePasskey(r.Context(), cred.ID, raw, now); err != nil {
		jsonError(w, http.StatusUnauthorized, "this passkey signs nobody in here")
		return
	}
	id, s := svc.NewDashboardSession("", now)
	s.Email, s.UserAgent, s.IP = found.email, device(r.UserAgent()), h.cfg.ClientIP(r).String()
	if err := h.cfg.Store.CreateDashboardSession(r.Context(), s); err != nil {
		h.cfg.Log.Error("dashboard: passkey", "err", err)
		jsonError(w, http.StatusInternalServerError, "the server failed; the error is in its log")
		return
	}
	http.SetCookie(w, h.cookie(r, id, int(svc.SessionTTL/time.Second)))
	gone := h.cookie(r, "", -1)
	gone.Name, gone.Path = PasskeyCookie, "/dashboard/signin"
	http.SetCookie(w, gone)
	for _, m := range brands {
		h.audit(r, &user{sess: s}, m.BrandID, svc.AuditSignIn, "with a passkey, as "+m.Role)
	}
	_ = writeJSONValue(w, map[string]string{"redirect": "/dashboard/"})
}

// passkeyRow is one of a member's passkeys on the account page.
type passkeyRow struct {
	Ref                 string
	Name                string
	CreatedAt, LastUsed time.Time
}

func (h *Handler) passkeyRows(r *http.Request, email string) ([]passkeyRow, error) {
	keys, err := h.cfg.Store.Passkeys(r.Context(), email)
	if err != nil {
		return nil, err
	}
	var out []passkeyRow
	for _, k := range keys {
		out = append(out, passkeyRow{hexEncode(k.ID), k.Name, k.CreatedAt, k.LastUsed})
	}
	return out, nil
}
