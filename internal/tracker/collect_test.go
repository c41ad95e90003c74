package tracker

import "github.com/svc-project/svc"

// CollectView and CollectPurchase send an event as httpapi hands it over
// for a brand's server: keyed, stamped at its timestamp, and free to
// register products. Exported for the package's external tests.
func CollectView(tr *Tracker, ev *svc.ViewEvent) error {
	return collect(tr, &svc.Write{View: ev, MayRegister: true}, &ev.Meta, ev.Context.Timestamp)
}

func CollectPurchase(tr *Tracker, ev *svc.PurchaseEvent) error {
	return collect(tr, &svc.Write{Purchase: ev, MayRegister: true}, &ev.Meta, ev.Context.Timestamp)
}

func collect(tr *Tracker, w *svc.Write, meta *svc.EventMeta, ts *string) error {
	if fields := svc.Stamp(meta, ts, true, tr.Now(), tr.Retention()); len(fields) > 0 {
		return svc.Invalid(fields)
	}
	return tr.Collect(w)
}

// DefaultProof returns a product's counts at the default windows.
func DefaultProof(tr *Tracker, brandID, productID string) (*svc.Proof, error) {
	q := svc.ProofQuery{BrandID: brandID, ProductID: productID, ViewWindow: svc.DefaultViewWindow, PurchaseWindow: svc.DefaultPurchaseWindow}
	return tr.Proof(q, &svc.Brand{ID: brandID})
}
