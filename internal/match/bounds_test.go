package match

import (
	"fmt"
	"testing"

	"github.com/svc-project/svc"
)

// TestSameTitleIsBounded fills a brand with products of one title: a
// lookup scores at most maxScored of them, and answers nothing, as none
// is surer than the others.
func TestSameTitleIsBounded(t *testing.T) {
	t.Parallel()
	c := New()
	title := "Sony WH-1000XM5 Wireless Headphones Black"
	for i := range 3 * maxVisits {
		c.Put(&svc.Product{Ref: svc.ProductRef(i + 1), BrandID: "br_1", ProductID: fmt.Sprint(i), Title: &title})
	}
	if got := len(c.Candidates("br_1", title)); got > maxScored {
		t.Errorf("%d candidates scored, want at most %d", got, maxScored)
	}
	if h, ok := c.ByTitle("br_1", title, nil); ok {
		t.Errorf("one of %d products with the title matched: %+v", 3*maxVisits, h)
	}
	// With one more product whose title differs, that one is found.
	other := "Sony WH-1000XM4 Wireless Headphones Silver"
	c.Put(&svc.Product{Ref: svc.ProductRef(3*maxVisits + 1), BrandID: "br_1", ProductID: "other", Title: &other})
	if h, ok := c.ByTitle("br_1", other, nil); !ok || h.ProductID != "other" {
		t.Errorf("the one other product: %+v %v", h, ok)
	}
}
