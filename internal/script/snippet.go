// Package script holds the client script of svc and its embed code.
package script

import (
	"encoding/json"
	"fmt"
)

// Snippet returns the embed code for a brand (SPEC 4.6): it defines the
// global queue function name unless that name is taken, queues the calls made
// before the script loads, inserts the async script before the first script
// element, and calls init with the brand's id.
func Snippet(scriptURL, name, brandID string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Sprintf(`<script>(function(w,d,n,u){if(w[n])return;var q=w[n]=function(){q.q.push(arguments)};q.q=[];var s=d.createElement("script"),f=d.getElementsByTagName("script")[0];s.async=1;s.src=u;s.dataset.svc=n;f.parentNode.insertBefore(s,f)})(window,document,%s,%s);%s("init",{brandId:%s});</script>`,
		q(name), q(scriptURL), name, q(brandID))
}
