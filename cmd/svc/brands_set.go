package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"slices"
	"strings"

	"github.com/svc-project/svc"
)

// brandsSet changes what is given of a brand: its name, domains, flags and
// honesty thresholds. Servers on the same store see it within a second.
func brandsSet(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("brands set")
	id := fs.String("brand", "", "the brand's id (required)")
	name := fs.String("name", "", "a new display name")
	var domains, addDomains, removeDomains listFlag
	fs.Var(&domains, "domain", "replaces the brand's host names with these: repeat for more; --domain '' clears them (to keep the others, use --add-domain)")
	fs.Var(&addDomains, "add-domain", "adds a host name to the brand's, keeping the others; repeat for more")
	fs.Var(&removeDomains, "remove-domain", "removes a host name from the brand's, keeping the others; repeat for more")
	requireKey := fs.Bool("require-key", false, "refuse requests without a valid key of the brand (--require-key=false to allow them)")
	closedCatalog := fs.Bool("closed-catalog", false, "accept anonymous events only for products that exist (--closed-catalog=false to open it)")
	minViewers := fs.Int("min-viewers", 0, "fewest viewers a widget or message shows")
	minPurchases := fs.Int("min-purchases", 0, "fewest purchases a widget or message shows")
	holdout := fs.Int("holdout", 0, "percent of sessions (0 to 50) that never see the widget, to measure its lift")
	position, languages := addWidgetFlags(fs)
	look := addWidgetLookFlags(fs)
	recentRules := addRecentFlags(fs)
	asJSON := fs.Bool("json", false, "print the brand as one JSON object")
	secrets := addSecretFlags(fs)
	publicURL := publicURLFlag(fs, env, "the webhook URLs")
	if err := parse(fs, args); err != nil {
		return err
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	if *id == "" {
		return usageError{"--brand is required"}
	}
	if set["domain"] && (set["add-domain"] || set["remove-domain"]) {
		return usageError{"--domain replaces the brand's domains: give it alone, or --add-domain and --remove-domain"}
	}
	changesBrand := set["name"] || set["domain"] || set["add-domain"] || set["remove-domain"] || set["require-key"] || set["closed-catalog"] || set["min-viewers"] || set["min-purchases"] || set["holdout"] ||
		set["widget-position"] || set["languages"] || recentGiven(set) || look.given(set)
	if !changesBrand && !secrets.given(set) {
		return usageError{"nothing to change: give --name, --domain, --add-domain, --remove-domain, --require-key, --closed-catalog, --min-viewers, --min-purchases, --holdout, --widget-position, --languages, --widget-variant, --widget-font, --widget-accent, --min-carts, --recent-*, --shopify-secret or --woocommerce-secret"}
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	b, err := store.Brand(ctx, *id)
	if err != nil {
		return err
	}
	if set["name"] {
		b.Name = *name
	}
	if set["domain"] {
		b.Domains = slices.DeleteFunc(domains, func(d string) bool { return d == "" }) // --domain '' clears
	}
	if err := changeDomains(b, addDomains, removeDomains); err != nil {
		return err
	}
	if set["require-key"] {
		b.RequireKey = *requireKey
	}
	if set["closed-catalog"] {
		b.ClosedCatalog = *closedCatalog
	}
	if set["min-viewers"] {
		b.MinViewers = *minViewers
	}
	if set["min-purchases"] {
		b.MinPurchases = *minPurchases
	}
	if set["holdout"] {
		b.Holdout = *holdout
	}
	if set["widget-position"] {
		b.WidgetPosition = *position
	}
	if set["languages"] {
		b.Languages = *languages
	}
	recentRules.apply(b, set)
	look.apply(b, set)
	if err := validate(b); err != nil {
		return err
	}
	if changesBrand {
		if err := store.UpdateBrand(ctx, b); err != nil {
			return err
		}
		if err := auditCLI(ctx, store, b.ID, svc.AuditSettings, "svc brands set "+givenFlags(set)); err != nil {
			return err
		}
	}
	if err := secrets.store(ctx, store, env.stdin, env.stderr, b.ID, set); err != nil {
		return err
	}
	if *publicURL, err = publicURLOf(ctx, store, *publicURL); err != nil {
		return err
	}
	for _, p := range svc.Platforms {
		if set[p+"-secret"] {
			if err := auditCLI(ctx, store, b.ID, svc.AuditWebhookSecret, p+" secret set or removed by svc brands set"); err != nil {
				return err
			}
		}
	}
	hooks, err := webhooksOf(ctx, store, *publicURL, b.ID)
	if err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(env.stdout).Encode(struct {
			brandInfo
			Webhooks map[string]webhookInfo `json:"webhooks"`
		}{infoOf(b), hooks})
	}
	fmt.Fprintf(env.stdout, "brand %s updated: name %q, domains %s, require_key %t, closed_catalog %t, min_viewers %d, min_purchases %d, holdout %d%%, widget_position %s, languages %s, widget_variant %q, widget_font %q, min_carts %d, %s\n\n%s",
		b.ID, b.Name, strings.Join(b.Domains, ","), b.RequireKey, b.ClosedCatalog, b.MinViewers, b.MinPurchases, b.Holdout,
		svc.WidgetPositionOf(b.WidgetPosition), strings.Join(svc.WidgetLanguagesOf(b.Languages), ","), b.WidgetVariant, b.Widget.Font, b.Widget.Stored().MinCarts, recentInfoOf(b), webhookText(env, b.ID, hooks))
	return nil
}

// changeDomains adds and removes host names of the brand's, keeping the
// others and their order. A host added that it has, or removed that it
// has not, changes nothing; compared without case, as hosts are.
func changeDomains(b *svc.Brand, add, remove []string) error {
	for _, d := range remove {
		n := len(b.Domains)
		b.Domains = slices.DeleteFunc(b.Domains, func(x string) bool { return strings.EqualFold(x, d) })
		if len(b.Domains) == n {
			return usageError{fmt.Sprintf("--remove-domain %q: brand %s has no such domain (it has %s)", d, b.ID, domainList(b.Domains))}
		}
	}
	for _, d := range add {
		if d == "" {
			return usageError{"--add-domain needs a host name, such as shop.example"}
		}
		if !slices.ContainsFunc(b.Domains, func(x string) bool { return strings.EqualFold(x, d) }) {
			b.Domains = append(b.Domains, d)
		}
	}
	return nil
}

func domainList(d []string) string {
	if len(d) == 0 {
		return "none"
	}
	return strings.Join(d, ", ")
}
