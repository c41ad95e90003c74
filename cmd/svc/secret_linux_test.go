package main

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/svc-project/svc/internal/testwait"
)

// On a terminal, a secret is prompted for and not echoed: what the
// terminal shows holds the prompt and not the secret.
func TestSecretFromATerminalIsNotEchoed(t *testing.T) {
	t.Parallel()
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Skipf("no pseudo-terminal here: %v", err)
	}
	defer ptm.Close()
	defer tty.Close()
	type result struct {
		secret string
		err    error
	}
	done := make(chan result, 1)
	go func() {
		s, err := newSecretReader(tty, tty).read("Shopify webhook secret of br_x")
		done <- result{s, err}
	}()
	// The terminal's screen: everything written to it, prompt and echo.
	var mu sync.Mutex
	var screen bytes.Buffer
	go func() {
		buf := make([]byte, 256)
		for {
			n, err := ptm.Read(buf)
			mu.Lock()
			screen.Write(buf[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	// Type only once the echo is off, as a person does after the prompt.
	testwait.Eventually(t, func() error {
		tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
		if err == nil && tio.Lflag&unix.ECHO != 0 {
			err = errors.New("the terminal still echoes")
		}
		return err
	})
	if _, err := ptm.Write([]byte("shpss_typed-secret\r")); err != nil {
		t.Fatal(err)
	}
	var got result
	select {
	case got = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the secret was not read from the terminal")
	}
	if got.err != nil || got.secret != "shpss_typed-secret" {
		t.Errorf("read %q, %v", got.secret, got.err)
	}
	var shown string
	testwait.Eventually(t, func() error { // the newline after the prompt has come through
		mu.Lock()
		defer mu.Unlock()
		if shown = screen.String(); !strings.HasSuffix(shown, "\n") {
			return fmt.Errorf("the terminal shows %q", shown)
		}
		return nil
	})
	if !strings.Contains(shown, "Shopify webhook secret of br_x (not shown as you type): ") {
		t.Errorf("no prompt on the terminal: %q", shown)
	}
	if strings.Contains(shown, "typed-secret") {
		t.Errorf("the terminal echoed the secret: %q", shown)
	}
}
