package collect_test

import (
	"context"
	"slices"
	"testing"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/collect"
)

// A cancellation the brand refuses never reaches its idempotency key or
// the store: the key is not hashed or kept, the order keeps its units,
// and the brand's own cancellation with that key takes them out.
func TestCancelRefusedNeverReachesIdempotencyOrStore(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	placed := &collect.Event{Write: order("br_locked", "o1", t0)}
	if err := f.p.Collect(f.server("br_locked"), placed); err != nil || placed.Write.Result.Status != svc.StatusAccepted {
		t.Fatalf("order: %v %+v", err, placed.Write.Result)
	}
	for _, tc := range []struct {
		name string
		src  collect.Source
		want string
	}{
		{"another brand's key", f.server("br_open"), svc.EUNAUTHORIZED},
		{"a browser", f.browser("https://shop.example"), svc.EUNAUTHORIZED},
		{"a browser without an origin", f.browser(""), svc.EUNAUTHORIZED},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ce := &svc.CancelEvent{BrandID: "br_locked", OrderID: "o1"}
			c := collect.Cancellation{Cancel: ce, IdempotencyKey: ptr("k1"), KeyField: "Idempotency-Key",
				Hash: func() [32]byte {
					t.Error("the refused cancellation's body was hashed for its idempotency key")
					return [32]byte{}
				}}
			if err := f.p.Cancel(ctx, tc.src, &c); code(err) != tc.want {
				t.Fatalf("Cancel: %v, want %s", err, tc.want)
			}
			// The core gives every cancellation it gets an id first.
			if ce.IdempotencyKey != "" || ce.Meta.EventID != "" || ce.Result.Status != "" {
				t.Fatalf("refused cancellation carries key %q, id %q, status %q", ce.IdempotencyKey, ce.Meta.EventID, ce.Result.Status)
			}
		})
	}
	// The refused ones took nothing out and kept no key: the brand's own
	// cancellation with the key is new, and takes the order's unit out.
	ce := &svc.CancelEvent{BrandID: "br_locked", OrderID: "o1"}
	c := collect.Cancellation{Cancel: ce, IdempotencyKey: ptr("k1"), KeyField: "Idempotency-Key", Hash: func() [32]byte { return [32]byte{1} }}
	if err := f.p.Cancel(ctx, f.server("br_locked"), &c); err != nil {
		t.Fatal(err)
	}
	if r := ce.Result; r.Status != svc.StatusAccepted || r.Replay || len(r.Removed) != 1 || r.Removed[0].Units != 1 {
		t.Fatalf("the brand's cancellation: %+v, want accepted, one unit out", r)
	}
}

// An invalid cancellation is refused naming every bad field, before its
// brand is looked at, whoever sends it.
func TestCancelInvalidNamesEveryFieldBeforeTheBrand(t *testing.T) {
	f := newFixture(t)
	bad := func(brandID string) *collect.Cancellation {
		ce := &svc.CancelEvent{BrandID: brandID, OrderID: "", Items: []svc.CancelItem{{ProductID: "", Quantity: ptr[int64](0)}, {ProductID: "p1"}}}
		return &collect.Cancellation{Cancel: ce, IdempotencyKey: ptr("bad\x01key"), KeyField: "Idempotency-Key",
			DecodeErrors: []svc.FieldError{{Field: "items[1].quantity", Message: "must be an integer"}}}
	}
	want := []string{"Idempotency-Key", "items[0].product_id", "items[0].quantity", "items[1].quantity", "order_id"}
	for _, tc := range []struct {
		name string
		src  collect.Source
		c    *collect.Cancellation
		want []string
	}{
		{"keyed, another brand", f.server("br_open"), bad("br_locked"), want},
		{"keyed, unknown brand", f.server("br_open"), bad("br_nope"), want},
		{"a browser", f.browser(""), bad("br_open"), want},
		{"a platform, another brand", collect.Source{Kind: collect.Platform, Brand: f.auth.Brand("br_open")}, bad("br_locked"), append(slices.Clone(want), "brand_id")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := f.p.Cancel(context.Background(), tc.src, tc.c)
			slices.Sort(tc.want)
			if code(err) != svc.EINVALID || !slices.Equal(fields(err), tc.want) {
				t.Fatalf("Cancel: %v %v, want invalid %v", err, fields(err), tc.want)
			}
			if tc.c.Cancel.Meta.EventID != "" {
				t.Fatal("the invalid cancellation reached the core")
			}
		})
	}
}
