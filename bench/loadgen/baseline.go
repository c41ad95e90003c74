package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/svc-project/svc"
)

// The baselines tell what this machine's HTTP stack can do at all, so that
// svc's figures are read as shares of it: absolute figures on a shared
// machine do not compare from one run to the next.
//
// The collect baseline reads the same bodies into svc's own event types
// with encoding/json and answers 200, storing nothing. The read baseline
// answers every GET with one fixed proof-sized JSON.

const fixedProof = `{"brand_id":"br_baseline000","product_id":"p1","views_last_60_min":42,"purchases_last_24h":3,"generated_at":"2026-01-01T00:00:00Z"}` + "\n"

// baselineHandler serves both baselines on svc's paths.
func baselineHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/collect/product-view", decodeAndAccept[svc.ViewEvent])
	mux.HandleFunc("POST /api/collect/product-purchase", decodeAndAccept[svc.PurchaseEvent])
	mux.HandleFunc("GET /api/svc/product-proof", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, fixedProof)
	})
	return mux
}

func decodeAndAccept[E any](w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 64<<10))
	var ev E
	if err == nil {
		err = json.Unmarshal(body, &ev)
	}
	w.Header().Set("Content-Type", "application/json")
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		io.WriteString(w, `{"status":"invalid"}`+"\n")
		return
	}
	io.WriteString(w, `{"status":"accepted"}`+"\n")
}

// serveBaseline is the child process: it listens on a free loopback port,
// prints its address, and serves until its standard input closes.
func serveBaseline() error {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	// The same limits as svc serve's server.
	srv := &http.Server{Handler: baselineHandler(), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
		WriteTimeout: 15 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 32 << 10}
	go func() { _ = srv.Serve(ln) }()
	fmt.Printf("listening %s\n", ln.Addr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	return srv.Close()
}

// startBaseline runs the baseline server as a child process, as svc runs
// in a process of its own beside the load generator, and returns its URL
// and a function that stops it. With cpus, it runs under taskset on them.
func startBaseline(ctx context.Context, cpus string) (string, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return "", nil, err
	}
	cmd := exec.CommandContext(ctx, self, "-serve-baseline")
	if cpus != "" {
		cmd = exec.CommandContext(ctx, "taskset", "-c", cpus, self, "-serve-baseline")
	}
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	stop := func() { stdin.Close(); _ = cmd.Wait() }
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	if err != nil || !ok {
		stop()
		return "", nil, fmt.Errorf("baseline server: %q: %v", line, err)
	}
	return "http://" + addr, stop, nil
}
