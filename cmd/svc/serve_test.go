package main

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/svc-project/svc/internal/sqlite/sqlitetest"
)

func TestServesOpenAPIDocument(t *testing.T) {
	t.Parallel()
	s := startServer(t, "--data", sqlitetest.Dir(t))
	res, err := http.Get(s.url + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var doc struct {
		OpenAPI string         `json:"openapi"`
		Paths   map[string]any `json:"paths"`
	}
	if err := json.NewDecoder(res.Body).Decode(&doc); err != nil || res.StatusCode != 200 || res.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("/openapi.json: %d %s %v", res.StatusCode, res.Header.Get("Content-Type"), err)
	}
	if doc.OpenAPI != "3.1.0" || doc.Paths["/api/svc/product-proof"] == nil {
		t.Fatalf("/openapi.json is not the document: %+v", doc)
	}
}

// On one CPU, serve runs with two Ps: with one, the group commit's fsync
// stops every request and batches shrink to one event.
func TestServeOnOneCPURaisesGOMAXPROCS(t *testing.T) {
	t.Parallel()
	taskset, err := exec.LookPath("taskset") // util-linux: on every Debian
	if err != nil {
		t.Fatal("taskset is needed: apt-get install util-linux")
	}
	cmd := exec.Command(taskset, "-c", "0", os.Args[0], "serve", "--addr", "127.0.0.1:0", "--data", sqlitetest.Dir(t))
	cmd.Env = append(slices.DeleteFunc(os.Environ(), func(e string) bool { return strings.HasPrefix(e, "GOMAXPROCS=") }), "SVC_TEST_RUN_MAIN=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	url := readURL(t, bufio.NewReader(out))
	res, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	body, _ := io.ReadAll(res.Body)
	if !strings.Contains(string(body), "\ngo_sched_gomaxprocs_threads 2\n") {
		t.Fatalf("GOMAXPROCS on one CPU is not 2:\n%s", body)
	}
}
