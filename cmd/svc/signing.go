package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/svc-project/svc"
)

// keysSigningRotate adds a signing key. Running servers sign with it
// within a second; the key it replaces stays published for --grace.
func keysSigningRotate(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("keys signing rotate")
	grace := fs.Duration("grace", svc.DefaultSigningGrace, "how long the replaced key stays published, so that answers it signed still verify")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *grace < 0 {
		return usageError{"--grace must not be negative"}
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	now := time.Now()
	k, err := svc.NewSigningKey(now)
	if err != nil {
		return err
	}
	until := now.Add(*grace).UTC().Truncate(time.Second)
	if err := store.RotateSigningKey(ctx, k, until); err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(env.stdout).Encode(map[string]string{"kid": k.ID, "replaced_until": until.Format(time.RFC3339)})
	}
	fmt.Fprintf(env.stdout, "signing key %s is current; the key it replaced stays published until %s\n", k.ID, until.Format(time.RFC3339))
	return nil
}

// keysSigningList prints the published signing keys.
func keysSigningList(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("keys signing list")
	asJSON := fs.Bool("json", false, "print JSON Lines")
	if err := parse(fs, args); err != nil {
		return err
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	keys, err := store.SigningKeys(ctx, time.Now())
	if err != nil {
		return err
	}
	if len(keys) == 0 {
		fmt.Fprintln(env.stderr, "no signing key yet: svc serve makes the first")
	}
	for _, k := range keys {
		until := ""
		if k.ExpiresAt != nil {
			until = k.ExpiresAt.Format(time.RFC3339)
		}
		if *asJSON {
			if err := json.NewEncoder(env.stdout).Encode(map[string]string{"kid": k.ID, "created_at": k.CreatedAt.Format(time.RFC3339), "expires_at": until}); err != nil {
				return err
			}
			continue
		}
		state := "current"
		if until != "" {
			state = "published until " + until
		}
		fmt.Fprintf(env.stdout, "%s  created %s  %s\n", k.ID, k.CreatedAt.Format(time.RFC3339), state)
	}
	return nil
}
