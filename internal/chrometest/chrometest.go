// Package chrometest starts the real Chromium that the browser tests drive
// (the widget, the dashboard, the extension), and gathers what its pages
// report as errors. One place decides how Chromium runs here: as root in a
// container, without the network calls this machine refuses.
package chrometest

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"

	"github.com/svc-project/svc/internal/testwait"
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

// shared is the browser that Tab opens tabs in: one per test binary, as
// starting Chromium costs more CPU than most browser tests do.
var shared struct {
	mu     sync.Mutex
	ctx    context.Context // its first tab's; nil until the first Tab
	cancel func()
	dir    string // its profile
}

// Tab opens a tab at the given window size in the browser this test binary
// shares, in a browser context of its own: no cookie, storage or cache of
// another test's tab. The tab and its context close when the test ends.
// A test that needs flags of its own starts its own browser (Start). A
// package whose tests call Tab runs them through Main.
func Tab(t testing.TB, width, height int) context.Context {
	t.Helper()
	path := Path(t)
	shared.mu.Lock()
	if shared.ctx == nil {
		dir, err := os.MkdirTemp("", "chrometest-")
		if err != nil {
			shared.mu.Unlock()
			t.Fatal(err)
		}
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(path),
			chromedp.NoSandbox, // root in a container
			chromedp.Flag("disable-quic", true),
			chromedp.Flag("disable-component-update", true),
			chromedp.UserDataDir(dir),
		)
		alloc, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(alloc)
		if err := chromedp.Do(ctx); err != nil {
			cancelCtx()
			cancelAlloc()
			os.RemoveAll(dir)
			shared.mu.Unlock()
			t.Fatal(err)
		}
		shared.ctx, shared.dir = ctx, dir
		shared.cancel = func() { cancelCtx(); cancelAlloc() }
	}
	browser := shared.ctx
	shared.mu.Unlock()
	ctx, cancel := chromedp.NewContext(browser, chromedp.WithNewBrowserContext())
	t.Cleanup(cancel)
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	w, err := chromedp.Call(ctx, cdpbrowser.GetWindowForTarget, cdpbrowser.GetWindowForTargetParams{})
	if err != nil {
		t.Fatal(err)
	}
	bounds := &cdpbrowser.Bounds{Width: int64(width), Height: int64(height)}
	if _, err := chromedp.Call(ctx, cdpbrowser.SetWindowBounds, cdpbrowser.SetWindowBoundsParams{WindowID: w.WindowID, Bounds: bounds}); err != nil {
		t.Fatal(err)
	}
	return ctx
}

// Main runs the tests of a package whose tests call Tab, then ends the
// shared browser: call it from TestMain as os.Exit(chrometest.Main(m)).
func Main(m *testing.M) int {
	code := m.Run()
	shared.mu.Lock()
	defer shared.mu.Unlock()
	if shared.ctx != nil {
		shared.cancel()
		os.RemoveAll(shared.dir)
		shared.ctx = nil
	}
	return code
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

// Run does the actions in the tab of ctx within 20 seconds, or fails the test.
func Run(t testing.TB, ctx context.Context, actions ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		t.Fatal(err)
	}
}

// Eval evaluates a JavaScript expression in the tab of ctx, awaiting a
// promise, and decodes its value into out.
func Eval(t testing.TB, ctx context.Context, js string, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[any](js, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatalf("%s: %v", js, err)
	}
	b, _ := json.Marshal(v)
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s = %s: %v", js, b, err)
	}
}

// WaitFor evaluates a JavaScript expression until it is truthy.
func WaitFor(t testing.TB, ctx context.Context, js string) {
	t.Helper()
	testwait.Eventually(t, func() error {
		var ok bool
		if Eval(t, ctx, "!!("+js+")", &ok); !ok {
			return fmt.Errorf("%s is false", js)
		}
		return nil
	})
}
