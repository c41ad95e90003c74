package plurals_test

import (
	"testing"

	"github.com/svc-project/svc/internal/plurals"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/message/catalog"
)

func TestCountTakesEachLanguagesForms(t *testing.T) {
	t.Parallel()
	c := plurals.New()
	c.Set(language.English, "k", plurals.Count("%d purchase", "%d purchases"))
	c.Set(language.French, "k", plurals.Count("%d achat", "%d achats"))
	for _, tt := range []struct {
		tag  language.Tag
		n    int
		want string
	}{
		{language.English, 1, "1 purchase"},
		{language.English, 0, "0 purchases"},
		{language.English, 12345, "12,345 purchases"},
		{language.French, 0, "0 achat"}, // French's "one" takes 0 too
		{language.French, 2, "2 achats"},
	} {
		if got := message.NewPrinter(tt.tag, message.Catalog(c.Builder)).Sprintf("k", tt.n); got != tt.want {
			t.Errorf("%s, %d: %q, want %q", tt.tag, tt.n, got, tt.want)
		}
	}
}

func TestSetPanicsOnABadMessage(t *testing.T) {
	t.Parallel()
	defer func() {
		if recover() == nil {
			t.Error("a message the catalog refuses did not panic")
		}
	}()
	plurals.New().Set(language.English, "k", catalog.Var("", catalog.String("x")))
}
