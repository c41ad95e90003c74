package main

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/svc-project/svc/internal/rollup"
)

// The operator's commands on a product's names (docs/decisions.md, A
// product's names): list them, remove one, merge two products.

func productsNames(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("products names")
	brandID := fs.String("brand", "", "the brand's id (required)")
	product := fs.String("product", "", "the product, by its id or any of its names (required)")
	asJSON := fs.Bool("json", false, "print one JSON object")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *brandID == "" || *product == "" {
		return usageError{"--brand and --product are required"}
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	p, names, err := store.ProductNames(ctx, *brandID, *product)
	if err != nil {
		return err
	}
	if *asJSON {
		if names == nil {
			names = []string{}
		}
		return json.NewEncoder(env.stdout).Encode(map[string]any{"brand_id": p.BrandID, "product_id": p.ProductID, "title": p.Title, "sku": p.SKU, "names": names})
	}
	title := ""
	if p.Title != nil {
		title = "  " + *p.Title
	}
	fmt.Fprintf(env.stdout, "product %s%s\n", p.ProductID, title)
	if len(names) == 0 {
		fmt.Fprintln(env.stdout, "  no other names: keyed events (API key, webhooks, import) register them")
	}
	for _, n := range names {
		fmt.Fprintf(env.stdout, "  %s\n", n)
	}
	return nil
}

func productsUnalias(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("products unalias")
	brandID := fs.String("brand", "", "the brand's id (required)")
	name := fs.String("name", "", "the registered name to remove (required; a product's own id is not one)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *brandID == "" || *name == "" {
		return usageError{"--brand and --name are required"}
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	id, err := store.Unalias(ctx, *brandID, *name)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "%q no longer names product %s of brand %s; the next keyed event that gives it registers it again.\n", *name, id, *brandID)
	fmt.Fprintln(env.stdout, "Running servers answer the proof by it until they restart.")
	return nil
}

func productsMerge(ctx context.Context, env environment, args []string) error {
	fs, sf := env.newFlags("products merge")
	brandID := fs.String("brand", "", "the brand's id (required)")
	into := fs.String("into", "", "the product that stays, by its id or any of its names (required)")
	from := fs.String("from", "", "the product merged into it, by its id or any of its names (required)")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *brandID == "" || *into == "" || *from == "" {
		return usageError{"--brand, --into and --from are required"}
	}
	store, err := sf.open(ctx)
	if err != nil {
		return err
	}
	defer store.Close()
	intoID, fromID, err := store.MergeProducts(ctx, *brandID, *into, *from)
	if err != nil {
		return err
	}
	fmt.Fprintf(env.stdout, "merged product %s into %s of brand %s: its events and names are %s's, and %q names %s; running servers recount within a second\n",
		fromID, intoID, *brandID, intoID, fromID, intoID)
	if rs, ok := store.(rollup.Store); ok {
		start := time.Now()
		if err := rs.RebuildRollups(ctx, false, func(time.Time, int, int) {}); err != nil {
			return fmt.Errorf("the products are merged, but the dashboard's rollups are not rebuilt (run svc rollups rebuild): %w", err)
		}
		fmt.Fprintf(env.stdout, "dashboard rollups rebuilt in %s\n", time.Since(start).Round(time.Millisecond))
	}
	return nil
}
