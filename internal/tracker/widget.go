package tracker

import "github.com/svc-project/svc/internal/rollup"

// Widgets is the store's keeper of the widget's reports (both stores
// are); nil for a store without one.
func (t *Tracker) Widgets() rollup.WidgetStore {
	w, _ := t.store.(rollup.WidgetStore)
	return w
}
