// Package chrometest starts the real Chromium that the browser tests drive
// (the widget, the dashboard, the extension), and gathers what its pages
// report as errors. One place decides how Chromium runs here: as root in a
// container, without the network calls this machine refuses.
package chrometest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Path finds the browser: CHROME_PATH, or Debian's chromium. Without one
// the test fails under CI (.ci/run installs it) and is skipped elsewhere.
func Path(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("CHROME_PATH"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("no Chromium: .ci/run installs Debian's chromium package")
	}
	t.Skip("no Chromium on this machine: apt-get install chromium")
	return ""
}

// Start launches Chromium in a fresh profile at the given window size, with
// extra flags after the common ones, and returns the first tab's context;
// the browser ends with the test.
func Start(t testing.TB, width, height int, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Path(t)),
		chromedp.NoSandbox, // root in a container
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	)
	alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), append(opts, extra...)...)
	ctx, cancelCtx := chromedp.NewContext(alloc)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// Errors gathers what a target reports as wrong: uncaught exceptions,
// console errors and warnings, and error entries of the browser's log.
type Errors struct {
	// Info, when set, receives the first argument of each console.info
	// call, for tests of messages a script logs on purpose.
	Info func(string)

	mu   sync.Mutex
	list []string
}

// Listen starts gathering the target of ctx's reports.
func (e *Errors) Listen(t testing.TB, ctx context.Context) {
	t.Helper()
	err := chromedp.Listen(ctx, func(ev any) {
		if msg := e.message(ev); msg != "" {
			e.mu.Lock()
			e.list = append(e.list, msg)
			e.mu.Unlock()
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, enable := range []cdp.Command[cdp.Empty, cdp.Empty]{cdplog.Enable, runtime.Enable} {
		if _, err := chromedp.Call(ctx, enable, cdp.Empty{}); err != nil {
			t.Fatal(err)
		}
	}
}

func (e *Errors) message(ev any) string {
	switch ev := ev.(type) {
	case *runtime.EventExceptionThrown:
		msg := "exception: " + ev.ExceptionDetails.Text
		if ev.ExceptionDetails.Exception != nil {
			msg += " " + ev.ExceptionDetails.Exception.Description
		}
		return msg
	case *runtime.EventConsoleAPICalled:
		switch ev.Type {
		case runtime.ConsoleAPICalledTypeError, runtime.ConsoleAPICalledTypeWarning:
			msg := "console." + string(ev.Type)
			for _, a := range ev.Args {
				msg += " " + string(a.Value) + a.Description
			}
			return msg
		case runtime.ConsoleAPICalledTypeInfo:
			if e.Info != nil && len(ev.Args) > 0 {
				var text string
				_ = json.Unmarshal(ev.Args[0].Value, &text)
				e.Info(text)
			}
		}
	case *cdplog.EventEntryAdded:
		if ev.Entry.Level == cdplog.EntryLevelError {
			return "log: " + ev.Entry.Text + " " + ev.Entry.URL
		}
	}
	return ""
}

// None fails the test if anything was reported.
func (e *Errors) None(t testing.TB) {
	t.Helper()
	e.mu.Lock()
	defer e.mu.Unlock()
	if len(e.list) > 0 {
		t.Fatalf("the page reported errors:\n%s", strings.Join(e.list, "\n"))
	}
}

// Take returns what was gathered so far and forgets it.
func (e *Errors) Take() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	list := e.list
	e.list = nil
	return list
}
