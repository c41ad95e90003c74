package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/svc-project/svc"
)

// dashboardLink prints a one-time sign-in link. Only the token's hash is
// stored; the link itself is printed once, here, and never logged.
func dashboardLink(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("dashboard link")
	brand := fs.String("brand", "", "the brand whose dashboard the link opens")
	operator := fs.Bool("operator", false, "a link for the operator, who sees every brand")
	publicURL := publicURLFlag(fs, env, "the link")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	if (*brand == "") == !*operator {
		return usageError{"give --brand ID or --operator (one of them)"}
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if *publicURL, err = publicURLOf(ctx, store, *publicURL); err != nil {
		return err
	}
	if *brand != "" {
		if _, err := store.Brand(ctx, *brand); err != nil {
			return err
		}
	}
	now := time.Now()
	token, link := svc.NewSignInLink(*brand, now)
	if err := store.CreateSignInLink(ctx, link); err != nil {
		return err
	}
	u := strings.TrimSuffix(*publicURL, "/") + "/dashboard/signin?token=" + url.QueryEscape(token)
	if *asJSON {
		return json.NewEncoder(env.stdout).Encode(struct {
			URL       string    `json:"url"`
			BrandID   string    `json:"brand_id,omitempty"`
			Operator  bool      `json:"operator"`
			ExpiresAt time.Time `json:"expires_at"`
		}{u, *brand, *operator, link.ExpiresAt})
	}
	who := "brand " + *brand
	if *operator {
		who = "the operator (every brand)"
	}
	_, err = fmt.Fprintf(env.stdout, "Sign-in link for %s, valid once until %s:\n%s\n", who, link.ExpiresAt.Format("15:04 MST"), u)
	return err
}
