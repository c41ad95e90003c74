package dashboard

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/svc-project/svc"
)

// keysData is the API keys page: owners only, as the keys are theirs.
type keysData struct {
	CSRF    string
	Keys    []*svc.APIKey
	NewKey  string // a key just created, shown this once
	NewName string // its label
	Revoked string // the prefix of a key just revoked
	Label   string // a label typed and refused
	Error   string // why
}

func (h *Handler) keys(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	d := keysData{Revoked: r.URL.Query().Get("revoked")}
	if len(d.Revoked) != svc.KeyPrefixLen || !strings.HasPrefix(d.Revoked, "sk_") {
		d.Revoked = ""
	}
	return h.renderKeys(w, r, u, b, http.StatusOK, d)
}

func (h *Handler) renderKeys(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand, status int, d keysData) error {
	keys, err := h.cfg.Store.APIKeys(r.Context())
	if err != nil {
		return err
	}
	// Newest first, active before revoked.
	keys = slices.DeleteFunc(keys, func(k *svc.APIKey) bool { return k.BrandID != b.ID })
	slices.SortStableFunc(keys, func(a, b *svc.APIKey) int {
		if (a.RevokedAt == nil) != (b.RevokedAt == nil) {
			if a.RevokedAt == nil {
				return -1
			}
			return 1
		}
		return b.CreatedAt.Compare(a.CreatedAt)
	})
	d.CSRF, d.Keys = u.sess.CSRF, keys
	h.render(w, r, status, "keys", page{Title: "API keys", User: u.sess, Brand: b, Nav: "keys", Data: d})
	return nil
}

// createKey makes a key with the label given; its secret is shown in this
// answer only (the store keeps its hash), so there is no redirect here.
func (h *Handler) createKey(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	secret, k := svc.NewAPIKey(b.ID, h.cfg.Now())
	if err := k.SetLabel(r.PostFormValue("label")); err != nil {
		bad := fieldErrors{}
		addInvalid(bad, err)
		return h.renderKeys(w, r, u, b, http.StatusBadRequest, keysData{Label: r.PostFormValue("label"), Error: "The label " + bad["label"]})
	}
	if err := h.cfg.Store.CreateAPIKey(r.Context(), k); err != nil {
		return err
	}
	line := "key " + k.Prefix
	if k.Label != "" {
		line += " (" + k.Label + ")"
	}
	h.audit(r, u, b.ID, svc.AuditKeyCreate, line)
	h.refresh(r)
	return h.renderKeys(w, r, u, b, http.StatusOK, keysData{NewKey: secret, NewName: k.Label})
}

func (h *Handler) revokeKey(w http.ResponseWriter, r *http.Request, u *user, b *svc.Brand) error {
	prefix := r.PostFormValue("prefix")
	if err := svc.CheckRevocation(b.ID, prefix); err != nil {
		return h.renderKeys(w, r, u, b, http.StatusBadRequest, keysData{Error: err.Error()})
	}
	k, err := h.cfg.Store.RevokeAPIKey(r.Context(), b.ID, prefix, h.cfg.Now())
	if code := svc.ErrorCode(err); code == svc.ENOTFOUND || code == svc.ECONFLICT {
		return h.renderKeys(w, r, u, b, http.StatusBadRequest, keysData{Error: err.Error()})
	} else if err != nil {
		return err
	}
	h.audit(r, u, b.ID, svc.AuditKeyRevoke, "key "+k.Prefix)
	h.refresh(r)
	http.Redirect(w, r, brandPath(b.ID)+"keys?revoked="+url.QueryEscape(k.Prefix), http.StatusSeeOther)
	return nil
}
