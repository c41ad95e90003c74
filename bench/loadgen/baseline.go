package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/svc-project/svc/internal/wire"
)

// The baselines tell what this machine can do at all, so that svc's
// figures are read as shares of it: absolute figures on a shared machine do
// not compare from one run to the next.
//
// The collect baseline reads the same bodies into svc's own event types
// with encoding/json and answers 200, storing nothing. The durable baseline
// does the same, then appends the body to a log file and answers once that
// is on disk: the least any server that acknowledges only durable events
// must do here, so that its latency tells the disk's share of svc's. The
// read baseline answers every GET with one fixed proof-sized JSON. Both
// take batches too: each event is decoded, the durable baseline appends
// the whole body at once, and each event is answered in its place.

const fixedProof = `{"brand_id":"br_baseline000","product_id":"p1","views_last_60_min":42,"purchases_last_24h":3,"generated_at":"2026-01-01T00:00:00Z"}` + "\n"

// baselineHandler serves the baselines on svc's paths; with a log, the
// collect paths are the durable baseline's.
func baselineHandler(log *durableLog) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/collect/product-view", decodeAndAccept[wire.View](log))
	mux.HandleFunc("POST /api/collect/product-purchase", decodeAndAccept[wire.Purchase](log))
	mux.HandleFunc("POST /api/collect/batch", decodeBatch(log))
	mux.HandleFunc("GET /api/svc/product-proof", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, fixedProof)
	})
	return mux
}

func decodeAndAccept[E any](log *durableLog) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
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
		if log != nil {
			if err := log.append(body); err != nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, `{"status":"unavailable"}`+"\n")
				return
			}
		}
		io.WriteString(w, `{"status":"accepted"}`+"\n")
	}
}

// decodeBatch answers a batch as svc does: each event decoded into svc's
// type for its "type", the body appended once when the log is there, and
// a result for each event.
func decodeBatch(log *durableLog) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 4<<20))
		var batch struct {
			Events []json.RawMessage `json:"events"`
		}
		if err == nil {
			err = json.Unmarshal(body, &batch)
		}
		w.Header().Set("Content-Type", "application/json")
		if err != nil || len(batch.Events) == 0 || len(batch.Events) > 500 {
			w.WriteHeader(http.StatusBadRequest)
			io.WriteString(w, `{"status":"invalid"}`+"\n")
			return
		}
		out := []byte(`{"results":[`)
		for i, raw := range batch.Events {
			var head struct {
				Type string `json:"type"`
			}
			err := json.Unmarshal(raw, &head)
			switch {
			case err != nil:
			case head.Type == "product-view":
				err = json.Unmarshal(raw, new(wire.View))
			case head.Type == "product-purchase":
				err = json.Unmarshal(raw, new(wire.Purchase))
			default:
				err = errors.New("unknown type")
			}
			if i > 0 {
				out = append(out, ',')
			}
			if err != nil {
				out = append(out, `{"status":"invalid"}`...)
			} else {
				out = append(out, `{"status":"accepted"}`...)
			}
		}
		out = append(out, "]}\n"...)
		if log != nil {
			if err := log.append(body); err != nil {
				w.WriteHeader(http.StatusServiceUnavailable)
				io.WriteString(w, `{"status":"unavailable"}`+"\n")
				return
			}
		}
		w.Write(out)
	}
}

// durableLog is the durable baseline's store: svc's group commit without
// SQLite, indexes or counts. Handlers hand it their bodies and wait; one
// goroutine appends whatever has queued up with one write and one fsync (as
// SQLite's commit in svc), then wakes them.
type durableLog struct {
	f       file
	in      chan *logJob
	stopped chan struct{}
}

// file is what the log needs of an *os.File.
type file interface {
	Write([]byte) (int, error)
	Sync() error
}

type logJob struct {
	body []byte
	err  error
	done chan struct{}
}

func newDurableLog(f file) *durableLog {
	l := &durableLog{f: f, in: make(chan *logJob, 1024), stopped: make(chan struct{})}
	go l.run()
	return l
}

// close commits what is queued and stops; nothing may append after it.
func (l *durableLog) close() {
	close(l.in)
	<-l.stopped
}

// append returns once body is on disk, or failed to be.
func (l *durableLog) append(body []byte) error {
	j := &logJob{body: body, done: make(chan struct{})}
	l.in <- j
	<-j.done
	return j.err
}

func (l *durableLog) run() {
	defer close(l.stopped)
	var buf []byte
	for j := range l.in {
		batch := []*logJob{j}
	drain:
		for len(batch) < cap(l.in) {
			select {
			case j, ok := <-l.in:
				if !ok {
					break drain
				}
				batch = append(batch, j)
			default:
				break drain
			}
		}
		buf = buf[:0]
		for _, j := range batch {
			buf = append(append(buf, j.body...), '\n')
		}
		_, err := l.f.Write(buf)
		if err == nil {
			err = l.f.Sync()
		}
		for _, j := range batch {
			j.err = err
			close(j.done)
		}
	}
}

// serveBaseline is the child process: it serves the baselines on two free
// loopback ports, the second durable with its log in the file at logPath
// (made and removed by the parent), prints both addresses, and serves until
// its standard input closes.
func serveBaseline(logPath string) error {
	f, err := os.OpenFile(logPath, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	log := newDurableLog(f)
	defer log.close() // after the servers' shutdown below: no handler appends any more
	var addrs []string
	for _, l := range []*durableLog{nil, log} {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		// The same limits as svc serve's server.
		srv := &http.Server{Handler: baselineHandler(l), ReadHeaderTimeout: 5 * time.Second, ReadTimeout: 10 * time.Second,
			WriteTimeout: 15 * time.Second, IdleTimeout: 2 * time.Minute, MaxHeaderBytes: 32 << 10}
		go func() { _ = srv.Serve(ln) }()
		defer func() {
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_ = srv.Shutdown(ctx)
		}()
		addrs = append(addrs, ln.Addr().String())
	}
	fmt.Printf("listening %s\n", strings.Join(addrs, " "))
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}

// baselines are the URLs of the baseline servers.
type baselines struct{ base, durable string }

// startBaseline runs the baseline servers as a child process, as svc runs
// in a process of its own beside the load generator, and returns their URLs
// and a function that stops them. The durable baseline's log is a new file
// in dir (the system's temporary folder if empty), to be on the disk svc
// writes to; stop removes it, also when the run is interrupted. With cpus,
// the child runs under taskset on them.
func startBaseline(ctx context.Context, cpus, dir string) (baselines, func(), error) {
	self, err := os.Executable()
	if err != nil {
		return baselines{}, nil, err
	}
	logFile, err := os.CreateTemp(dir, "loadgen-durable-*.log")
	if err != nil {
		return baselines{}, nil, fmt.Errorf("durable baseline: %w", err)
	}
	logFile.Close()
	removeLog := func() { os.Remove(logFile.Name()) }
	args := []string{self, "-serve-baseline", logFile.Name()}
	if cpus != "" {
		args = append([]string{"taskset", "-c", cpus}, args...)
	}
	cmd := exec.CommandContext(ctx, args[0], args[1:]...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		removeLog()
		return baselines{}, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		removeLog()
		return baselines{}, nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		removeLog()
		return baselines{}, nil, err
	}
	stop := func() { stdin.Close(); _ = cmd.Wait(); removeLog() }
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addrs, ok := strings.CutPrefix(strings.TrimSpace(line), "listening ")
	base, durable, two := strings.Cut(addrs, " ")
	if err != nil || !ok || !two {
		stop()
		return baselines{}, nil, fmt.Errorf("baseline server: %q: %v", line, err)
	}
	return baselines{"http://" + base, "http://" + durable}, stop, nil
}
