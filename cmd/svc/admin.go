package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/script"
)

// listFlag collects a repeated string flag.
type listFlag []string

func (l *listFlag) String() string     { return strings.Join(*l, ",") }
func (l *listFlag) Set(v string) error { *l = append(*l, v); return nil }

// scriptURL is where the client script of a service at base is served.
func scriptURL(base string) string { return strings.TrimSuffix(base, "/") + "/svc.js" }

// ScriptGlobal is the name of the queue function in the printed snippet.
const ScriptGlobal = "svc"

func brandsAdd(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("brands add")
	name := fs.String("name", "", "the brand's display name (required)")
	var domains listFlag
	fs.Var(&domains, "domain", "a host name the brand's pages live on; repeat for more (subdomains are included)")
	requireKey := fs.Bool("require-key", false, "refuse requests without a valid key of the brand")
	closedCatalog := fs.Bool("closed-catalog", false, "accept anonymous events only for products that exist")
	minViewers := fs.Int("min-viewers", svc.DefaultMinViewers, "fewest viewers a widget or message shows")
	minPurchases := fs.Int("min-purchases", svc.DefaultMinPurchases, "fewest purchases a widget or message shows")
	holdout := fs.Int("holdout", 0, "percent of sessions (0 to 50) that never see the widget, to measure its lift")
	position, languages := addWidgetFlags(fs)
	look := addWidgetLookFlags(fs)
	recentRules := addRecentFlags(fs)
	asJSON := fs.Bool("json", false, "print one JSON object")
	publicURL := publicURLFlag(fs, env, "the script URL and the webhook URLs")
	if err := parse(fs, args); err != nil {
		return err
	}
	b := &svc.Brand{ID: svc.NewBrandID(), Name: *name, Domains: domains, RequireKey: *requireKey, ClosedCatalog: *closedCatalog,
		MinViewers: *minViewers, MinPurchases: *minPurchases, Holdout: *holdout,
		WidgetPosition: *position, Languages: *languages, CreatedAt: time.Now().UTC()}
	recentRules.apply(b, nil)
	look.apply(b, nil)
	if err := validate(b); err != nil {
		return err
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if *publicURL, err = publicURLOf(ctx, store, *publicURL); err != nil {
		return err
	}
	secret, key := svc.NewAPIKey(b.ID, time.Now())
	if err := store.CreateBrand(ctx, b, key); err != nil {
		return err
	}
	hooks, err := webhooksOf(ctx, store, *publicURL, b.ID)
	if err != nil {
		return err
	}
	out := struct {
		brandInfo
		APIKey    string                 `json:"api_key"`
		KeyPrefix string                 `json:"key_prefix"`
		ScriptURL string                 `json:"script_url"`
		Snippet   string                 `json:"snippet"`
		Webhooks  map[string]webhookInfo `json:"webhooks"`
	}{infoOf(b), secret, key.Prefix, scriptURL(*publicURL), script.Snippet(scriptURL(*publicURL), ScriptGlobal, b.ID), hooks}
	if *asJSON {
		enc := json.NewEncoder(env.stdout)
		enc.SetEscapeHTML(false) // the snippet stays readable
		err = enc.Encode(out)
	} else {
		_, err = fmt.Fprintf(env.stdout, "brand_id:   %s\nname:       %s\ndomains:    %s\napi_key:    %s   (shown once: store it now)\nscript_url: %s\n\nEmbed this in the brand's pages, before </head>:\n%s\n\n%s\n%s\n"+
			"For the README's walk-through, in this shell:\nexport BRAND=%s KEY=%s\n",
			out.BrandID, out.Name, strings.Join(out.Domains, ", "), out.APIKey, out.ScriptURL, out.Snippet, thresholdNote(env, b), webhookText(env, b.ID, hooks), out.BrandID, out.APIKey)
	}
	warnNoDomain(env, b)
	return err
}

// warnNoDomain warns that a brand without domains cannot be embedded; on
// stderr, so that --json stays one object.
func warnNoDomain(env environment, b *svc.Brand) {
	if len(b.Domains) == 0 {
		fmt.Fprintf(env.stderr, "Warning: brand %s has no --domain, so this snippet counts and shows nothing on any page:\n"+
			"the API refuses a browser request without a key unless the page's origin is one of the brand's domains.\n"+
			"Add the shop's host name: %s (server-side calls with the key work already).\n",
			b.ID, env.cmd("brands set --brand %s --add-domain shop.example", b.ID))
	}
}

// thresholdNote tells a new brand why its widget stays empty at first.
func thresholdNote(env environment, b *svc.Brand) string {
	return fmt.Sprintf("Until a product has %d %s in the last hour or %d %s in the last 24 hours,\n"+
		"the widget shows nothing (the brand's thresholds; to change them:\n"+
		"%s).\n"+
		"With data-svc-debug on the <script> tag, the browser's console says why it is empty.\n",
		b.MinViewers, plural(b.MinViewers, "viewer", "viewers"), b.MinPurchases, plural(b.MinPurchases, "purchase", "purchases"),
		env.cmd("brands set --brand %s --min-viewers N --min-purchases N", b.ID))
}

// plural picks the form of a word for n.
func plural(n int, one, other string) string {
	if n == 1 {
		return one
	}
	return other
}

// validate checks a brand given on the command line; its errors name the
// flags rather than the fields.
func validate(b *svc.Brand) error {
	err := b.Validate()
	var e *svc.Error
	if !errors.As(err, &e) {
		return err
	}
	flags := map[string]string{"name": "--name", "min_viewers": "--min-viewers", "min_purchases": "--min-purchases", "holdout": "--holdout",
		"widget_position": "--widget-position", "languages": "--languages"}
	var problems []string
	for _, f := range e.Fields {
		name, ok := flags[f.Field]
		if l, isLook := widgetLookFlags[f.Field]; isLook {
			name, ok = l, true
		}
		if r, isRecent := recentFlagNames[f.Field]; isRecent {
			name, ok = r, true
		}
		if !ok { // domains[i]
			name = "--domain"
		}
		problems = append(problems, name+" "+f.Message)
	}
	return usageError{strings.Join(problems, "; ")}
}

func brandsList(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("brands list")
	asJSON := fs.Bool("json", false, "print a JSON array")
	if err := parse(fs, args); err != nil {
		return err
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	brands, err := store.Brands(ctx)
	if err != nil {
		return err
	}
	keys, err := store.APIKeys(ctx)
	if err != nil {
		return err
	}
	type keyOut struct {
		Prefix     string     `json:"prefix"`
		Label      string     `json:"label"`
		CreatedAt  time.Time  `json:"created_at"`
		RevokedAt  *time.Time `json:"revoked_at,omitempty"`
		LastUsedAt *time.Time `json:"last_used_at,omitempty"` // to within a minute (svc.KeyUseFlush)
	}
	type brandOut struct {
		brandInfo
		Keys []keyOut `json:"keys"`
	}
	out := make([]brandOut, 0, len(brands))
	for _, b := range brands {
		o := brandOut{infoOf(b), []keyOut{}}
		for _, k := range keys {
			if k.BrandID == b.ID {
				ko := keyOut{Prefix: k.Prefix, Label: k.Label, CreatedAt: k.CreatedAt, RevokedAt: k.RevokedAt}
				if !k.LastUsedAt.IsZero() {
					ko.LastUsedAt = &k.LastUsedAt
				}
				o.Keys = append(o.Keys, ko)
			}
		}
		out = append(out, o)
	}
	if *asJSON {
		return json.NewEncoder(env.stdout).Encode(out)
	}
	tw := tabwriter.NewWriter(env.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BRAND\tNAME\tDOMAINS\tREQUIRE KEY\tCLOSED CATALOG\tACTIVE KEYS")
	for _, o := range out {
		var active []string
		for _, k := range o.Keys {
			if k.RevokedAt == nil {
				active = append(active, k.Prefix+"…")
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%t\t%t\t%s\n", o.BrandID, o.Name, strings.Join(o.Domains, ","), o.RequireKey, o.ClosedCatalog, strings.Join(active, " "))
	}
	return tw.Flush()
}

func keysCreate(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("keys create")
	brandID := fs.String("brand", "", "the brand's id (required)")
	label := fs.String("label", "", "what the key is for, as the dashboard lists it (\"shop server\"), up to 100 characters")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *brandID == "" {
		return usageError{"--brand is required"}
	}
	secret, key := svc.NewAPIKey(*brandID, time.Now())
	if err := key.SetLabel(*label); err != nil {
		return err
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	if err := store.CreateAPIKey(ctx, key); err != nil {
		return err
	}
	if err := auditCLI(ctx, store, *brandID, svc.AuditKeyCreate, keyAudit(key)); err != nil {
		return err
	}
	if *asJSON {
		return json.NewEncoder(env.stdout).Encode(map[string]string{"brand_id": *brandID, "api_key": secret, "key_prefix": key.Prefix, "label": key.Label})
	}
	fmt.Fprintf(env.stdout, "api_key: %s   (shown once: store it now)\n", secret)
	return nil
}

// keyAudit is how the audit log names a key: its prefix, and its label.
func keyAudit(k *svc.APIKey) string {
	if k.Label == "" {
		return "key " + k.Prefix
	}
	return fmt.Sprintf("key %s (%q)", k.Prefix, k.Label)
}

func keysRevoke(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("keys revoke")
	brandID := fs.String("brand", "", "the brand's id (required)")
	keyArg := fs.String("key", "", "the key, or its prefix as 'brands list' shows it (required)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *brandID == "" || *keyArg == "" {
		return usageError{"--brand and --key are required"}
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	k, err := store.RevokeAPIKey(ctx, *brandID, strings.TrimSuffix(*keyArg, "…"), time.Now())
	if err != nil {
		return err
	}
	if err := auditCLI(ctx, store, k.BrandID, svc.AuditKeyRevoke, "key "+k.Prefix); err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "revoked %s… of brand %s; running servers refuse it within a second\n", k.Prefix, k.BrandID)
	return nil
}

// brandInfo is how the admin commands print a brand.
type brandInfo struct {
	BrandID       string     `json:"brand_id"`
	Name          string     `json:"name"`
	Domains       []string   `json:"domains"`
	RequireKey    bool       `json:"require_key"`
	ClosedCatalog bool       `json:"closed_catalog"`
	MinViewers    int        `json:"min_viewers"`
	MinPurchases  int        `json:"min_purchases"`
	CreatedAt     time.Time  `json:"created_at"`
	Recent        recentInfo `json:"recent"`
	Holdout       int        `json:"holdout"`
	Position      string     `json:"widget_position"`
	Languages     []string   `json:"languages"`
	Variant       string     `json:"widget_variant"`
	Font          string     `json:"widget_font"`
	MinCarts      int        `json:"min_carts"`
	Accent        string     `json:"widget_accent,omitempty"`
}

func infoOf(b *svc.Brand) brandInfo {
	n := b.Stored()
	return brandInfo{n.ID, n.Name, n.Domains, n.RequireKey, n.ClosedCatalog, n.MinViewers, n.MinPurchases, n.CreatedAt, recentInfoOf(&n), n.Holdout,
		svc.WidgetPositionOf(n.WidgetPosition), svc.WidgetLanguagesOf(n.Languages), n.WidgetVariant, n.Widget.Font, n.Widget.MinCarts, n.Widget.Accent}
}
