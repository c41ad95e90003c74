package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// loadBrands reads the brands file, or, when it does not exist, creates n
// brands with the svc binary's own admin commands (so the load generator
// needs no access to the store and works with any of them) and writes the
// file for the next run.
func loadBrands(ctx context.Context, path string, n int, svcBin string, storeArgs []string) ([]Brand, error) {
	b, err := os.ReadFile(path)
	if err == nil {
		var brands []Brand
		if err := json.Unmarshal(b, &brands); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(brands) == 0 {
			return nil, fmt.Errorf("%s: no brands", path)
		}
		return brands, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if len(storeArgs) == 0 {
		return nil, fmt.Errorf("%s does not exist: pass -data or -store so that brands can be created", path)
	}
	brands := make([]Brand, n)
	for i := range brands {
		domain := fmt.Sprintf("b%d.bench.test", i)
		args := append([]string{"brands", "add", "--name", fmt.Sprintf("Bench %d", i), "--domain", domain, "--json"}, storeArgs...)
		out, err := exec.CommandContext(ctx, svcBin, args...).Output()
		if err != nil {
			return nil, fmt.Errorf("%s brands add: %w", svcBin, exitError(err))
		}
		if err := json.Unmarshal(out, &brands[i]); err != nil {
			return nil, fmt.Errorf("%s brands add: %w", svcBin, err)
		}
		brands[i].Domain = domain
	}
	out, err := json.MarshalIndent(brands, "", "  ")
	if err != nil {
		return nil, err
	}
	return brands, os.WriteFile(path, out, 0o600)
}

func exitError(err error) error {
	var ee *exec.ExitError
	if errors.As(err, &ee) && len(ee.Stderr) > 0 {
		return fmt.Errorf("%w: %s", err, ee.Stderr)
	}
	return err
}

// prefill sends one keyed view of every product, so that proof reads find
// them all; it returns how many failed.
func prefill(ctx context.Context, client *http.Client, base string, cat *Catalog, conns int) (int64, error) {
	var next, failed atomic.Int64
	var wg sync.WaitGroup
	var firstErr error
	var once sync.Once
	for w := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			g := NewGenerator(cat, Mix{View: 1}, uint64(w), "prefill")
			for ctx.Err() == nil {
				rank := int(next.Add(1) - 1)
				if rank >= cat.Products {
					return
				}
				b := g.brandOf(rank)
				req := Request{Endpoint: View, Method: "POST", Target: View.Path(), Body: g.viewBody(b, rank), Key: b.APIKey}
				status, err := do(ctx, client, base, req)
				// A brand just created reaches the server at its next poll
				// of the configuration, within a second.
				for try := 0; status == http.StatusUnauthorized && try < 30; try++ {
					time.Sleep(100 * time.Millisecond)
					status, err = do(ctx, client, base, req)
				}
				if err != nil || status != http.StatusOK {
					failed.Add(1)
					once.Do(func() { firstErr = fmt.Errorf("prefill: status %d: %v", status, err) })
				}
			}
		}()
	}
	wg.Wait()
	return failed.Load(), firstErr
}
