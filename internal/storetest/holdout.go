package storetest

import (
	"testing"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/holdout"
)

// testHoldout checks that a brand's holdout is kept and that a view keeps
// the arm it came with.
func testHoldout(t *testing.T, s svc.Store) {
	withBrand(t, s, "br_1")
	b, err := s.Brand(ctx, "br_1")
	if err != nil || b.Holdout != 0 {
		t.Fatalf("new brand: holdout %v, %v; want 0", b, err)
	}
	b.Holdout, b.WidgetVariant, b.WidgetPosition, b.Languages = 20, "now toasts", "end", "fr,en"
	if err := s.UpdateBrand(ctx, b); err != nil {
		t.Fatal(err)
	}
	if b, err = s.Brand(ctx, "br_1"); err != nil || b.Holdout != 20 || b.WidgetVariant != "now toasts" || b.WidgetPosition != "end" || b.Languages != "fr,en" {
		t.Fatalf("updated brand %+v, %v; want holdout 20", b, err)
	}
	if err := s.CreateBrand(ctx, &svc.Brand{ID: "br_2", Name: "Two", Holdout: 7, WidgetPosition: "end", Languages: "de", CreatedAt: t0}, nil); err != nil {
		t.Fatal(err)
	}
	if b, err = s.Brand(ctx, "br_2"); err != nil || b.Holdout != 7 || b.WidgetPosition != "end" || b.Languages != "de" {
		t.Fatalf("created brand %+v, %v; want holdout 7", b, err)
	}

	held, shown, none := view("p1", ""), view("p1", ""), view("p1", "")
	held.View.Context.SessionID, held.View.Meta.Arm = ptr("s-held"), holdout.ArmHeldOut
	shown.View.Context.SessionID, shown.View.Meta.Arm = ptr("s-shown"), holdout.ArmShown
	cart := cartWrite("p1", "", nil)
	cart.Cart.Context.SessionID, cart.Cart.Meta.Arm = ptr("s-cart"), holdout.ArmHeldOut
	appendAll(t, s, held, shown, none, cart)
	arms := map[string]string{}
	if err := s.ExportEvents(ctx, "br_1", func(e svc.ExportedEvent) error {
		if c := e.Cart; c != nil {
			arms["cart "+*c.Context.SessionID] = c.Meta.Arm
		}
		if e.View != nil {
			sid := ""
			if e.View.Context.SessionID != nil {
				sid = *e.View.Context.SessionID
			}
			arms[sid] = e.View.Meta.Arm
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if arms["s-held"] != holdout.ArmHeldOut || arms["s-shown"] != holdout.ArmShown || arms[""] != "" || arms["cart s-cart"] != holdout.ArmHeldOut || len(arms) != 4 {
		t.Fatalf("exported arms %v", arms)
	}
}
