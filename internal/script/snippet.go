// Package script holds the client script of svc and its embed code.
package script

import (
	"encoding/json"
	"fmt"
)

// Snippet returns the embed code for a brand (docs/spec.md, Client script). Unless the global
// name is taken, in which case it does nothing at all, it defines the queue
// function under name, queues init with the brand's id and every later call
// until the script loads, and inserts the async script before the first
// script element.
func Snippet(scriptURL, name, brandID string) string {
	q := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	return fmt.Sprintf(`<script>(function(w,d,n,u,b){if(w[n])return;var q=w[n]=function(){q.q.push(arguments)};q.q=[];q("init",{brandId:b});var s=d.createElement("script"),f=d.getElementsByTagName("script")[0];s.async=1;s.src=u;s.dataset.svc=n;f.parentNode.insertBefore(s,f)})(window,document,%s,%s,%s)</script>`,
		q(name), q(scriptURL), q(brandID))
}
