package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/svc-project/svc"
)

// The brands' members, for the operator and for scripts: the same store
// calls as the dashboard's members page, and the same audit lines.

// auditCLI writes a change made on the command line into the brand's
// audit log, as the operator's.
func auditCLI(ctx context.Context, store svc.AuditStore, brandID, action, detail string) error {
	return store.AppendAudit(ctx, &svc.AuditEvent{BrandID: brandID, At: time.Now().UTC(), Actor: "operator", IP: "command line", Action: action, Detail: detail})
}

// givenFlags names the flags a command was given, secrets' values never:
// "--min-viewers --holdout".
func givenFlags(set map[string]bool) string {
	var names []string
	for name := range set {
		if !strings.HasSuffix(name, "-secret") && name != "data" && name != "store" && name != "json" && name != "brand" {
			names = append(names, "--"+name)
		}
	}
	slices.Sort(names)
	return strings.Join(names, " ")
}

func brandsMembersAdd(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("brands members add")
	brand := fs.String("brand", "", "the brand")
	email := fs.String("email", "", "the member's email address")
	role := fs.String("role", "", "owner (changes settings, keys, webhook secrets and members) or viewer (sees everything, changes nothing)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *brand == "" || *email == "" || *role == "" {
		return usageError{"give --brand ID, --email ADDRESS and --role owner|viewer"}
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	m := &svc.Member{BrandID: *brand, Email: *email, Role: *role, CreatedAt: time.Now().UTC()}
	added, err := store.PutMember(ctx, m)
	if err != nil {
		return err
	}
	action, what := svc.AuditMemberAdd, "added"
	if !added {
		action, what = svc.AuditMemberRole, "now"
	}
	if err := auditCLI(ctx, store, m.BrandID, action, m.Email+" as "+m.Role); err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(env.stdout).Encode(memberJSON(m, added))
	}
	_, err = fmt.Fprintf(env.stdout, "%s %s as %s of %s; they sign in with their address at /dashboard/signin\n", m.Email, what, m.Role, m.BrandID)
	return err
}

func brandsMembersRemove(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("brands members remove")
	brand := fs.String("brand", "", "the brand")
	email := fs.String("email", "", "the member's email address")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *brand == "" || *email == "" {
		return usageError{"give --brand ID and --email ADDRESS"}
	}
	addr, ok := svc.NormalizeEmail(*email)
	if !ok {
		return svc.Invalid([]svc.FieldError{{Field: "email", Message: "must be an email address such as owner@shop.example"}})
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.RemoveMember(ctx, *brand, addr); err != nil {
		return err
	}
	if err := auditCLI(ctx, store, *brand, svc.AuditMemberRemove, addr); err != nil {
		return err
	}
	_, err = fmt.Fprintf(env.stdout, "%s removed from %s\n", addr, *brand)
	return err
}

func brandsMembersList(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("brands members list")
	brand := fs.String("brand", "", "the brand; without it, every brand's members")
	asJSON := fs.Bool("json", false, "print JSON Lines")
	if err := parse(fs, args); err != nil {
		return err
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if *brand != "" {
		if _, err := store.Brand(ctx, *brand); err != nil {
			return err
		}
	}
	ms, err := store.Members(ctx, *brand)
	if err != nil {
		return err
	}
	if len(ms) == 0 && !*asJSON {
		fmt.Fprintln(env.stderr, "no members: add one with "+env.cmd("brands members add --brand ID --email ADDRESS --role owner"))
	}
	for _, m := range ms {
		if *asJSON {
			if err := json.NewEncoder(env.stdout).Encode(memberJSON(m, false)); err != nil {
				return err
			}
			continue
		}
		digest := ""
		if m.Digest {
			digest = "  weekly digest"
		}
		fmt.Fprintf(env.stdout, "%s  %s  %s  since %s%s\n", m.BrandID, m.Email, m.Role, m.CreatedAt.Format(time.DateOnly), digest)
	}
	return nil
}

type memberOut struct {
	BrandID   string    `json:"brand_id"`
	Email     string    `json:"email"`
	Role      string    `json:"role"`
	Digest    bool      `json:"digest"`
	CreatedAt time.Time `json:"created_at"`
	Added     bool      `json:"added,omitempty"`
}

func memberJSON(m *svc.Member, added bool) memberOut {
	return memberOut{m.BrandID, m.Email, m.Role, m.Digest, m.CreatedAt, added}
}
