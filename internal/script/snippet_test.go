package script

import (
	"strings"
	"testing"
)

func TestSnippet(t *testing.T) {
	s := Snippet("https://proof.example/svc.js", "svc", "br_4fT0q9ZxL2mA")
	for _, want := range []string{`"https://proof.example/svc.js"`, `q("init",{brandId:b})`, `,"br_4fT0q9ZxL2mA")`, `if(w[n])return`, `s.async=1`, `insertBefore(s,f)`} {
		if !strings.Contains(s, want) {
			t.Errorf("snippet lacks %q:\n%s", want, s)
		}
	}
	// The budget holds for a long script address too.
	if long := Snippet("https://social-proof.cdn.some-long-brand-domain.example.com/assets/svc.js", "svc", "br_4fT0q9ZxL2mA"); len(long) > 400 {
		t.Errorf("snippet with a long URL is %d bytes", len(long))
	}
	if len(s) > 400 {
		t.Errorf("snippet with init is %d bytes, over the 400-byte budget", len(s))
	}
	// Values are JSON-quoted: a hostile brand id cannot break out of the string.
	if evil := Snippet("https://x/svc.js", "svc", `"</script><script>alert(1)`); strings.Contains(evil, `"</script>`) {
		t.Errorf("unescaped: %s", evil)
	}
}
