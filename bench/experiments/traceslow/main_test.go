package main

import (
	"bytes"
	"context"
	"regexp"
	"runtime/trace"
	"strconv"
	"strings"
	"testing"
	"time"
)

// batcher stands in for the group commit: traceslow knows its writer and
// applier by these method names on their stacks.
type batcher struct{ stop chan struct{} }

// run sleeps in steps of 1 ms, as the writer waits in fsync.
func (b *batcher) run(done chan<- struct{}) {
	defer close(done)
	for {
		select {
		case <-b.stop:
			return
		default:
			time.Sleep(time.Millisecond)
		}
	}
}

// A real execution trace of tasks shaped as
// bench/experiments/trace-tasks.patch makes them: 1,000 fast requests and 20
// that wait 20 ms in "submit", while a writer sleeps.
func TestAnalyseRealTrace(t *testing.T) {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	writer, writerDone := &batcher{stop: make(chan struct{})}, make(chan struct{})
	go writer.run(writerDone)
	request := func(wait time.Duration) {
		ctx, task := trace.NewTask(context.Background(), "/api/collect/product-view")
		r := trace.StartRegion(ctx, "submit")
		time.Sleep(wait)
		r.End()
		task.End()
	}
	for i := range 1020 {
		if i%51 == 50 {
			request(20 * time.Millisecond)
		} else {
			request(0)
		}
	}
	_, task := trace.NewTask(context.Background(), "/api/svc/product-proof") // not a view: not counted
	task.End()
	close(writer.stop)
	<-writerDone
	trace.Stop()

	var out bytes.Buffer
	if err := analyse(&buf, &out); err != nil {
		t.Fatal(err)
	}
	got := out.String()
	if !strings.HasPrefix(got, "1020 view requests;") {
		t.Fatalf("want 1020 view requests:\n%s", got)
	}
	// The 10 slowest (1%) all slept 20 ms in submit.
	m := regexp.MustCompile(`slowest 1%: 10 requests, mean ([0-9.]+) ms, of which ([0-9.]+) ms in the group commit`).FindStringSubmatch(got)
	if m == nil {
		t.Fatalf("no line for the slowest 1%%:\n%s", got)
	}
	mean, _ := strconv.ParseFloat(m[1], 64)
	submit, _ := strconv.ParseFloat(m[2], 64)
	if mean < 20 || submit < 20 || submit > mean {
		t.Errorf("slowest 1%%: mean %v ms, %v ms in submit; want both at least 20, submit within the mean:\n%s", mean, submit, got)
	}
	// The p99 is one of the 20 ms requests (they are the top 2%), and the
	// slowest spent their time asleep: the goroutine states are counted.
	p99 := regexp.MustCompile(`p99 ([0-9.]+) ms\n`).FindStringSubmatch(got)
	if p99 == nil {
		t.Fatalf("no p99:\n%s", got)
	}
	if v, _ := strconv.ParseFloat(p99[1], 64); v < 20 || v > 100 {
		t.Errorf("p99 %v ms, want one of the 20 ms requests:\n%s", v, got)
	}
	slowest := got[strings.Index(got, "slowest 1%"):strings.Index(got, "middle 10%")]
	asleep := regexp.MustCompile(`Waiting \(sleep\) +([0-9.]+) ms`).FindStringSubmatch(slowest)
	if asleep == nil {
		t.Fatalf("the slowest 1%% have no time asleep:\n%s", got)
	}
	if v, _ := strconv.ParseFloat(asleep[1], 64); v < 19 {
		t.Errorf("the slowest slept %v ms on average, want about 20:\n%s", v, got)
	}
	// Meanwhile the writer slept too, nearly all of their wait.
	meanwhile := slowest[strings.Index(slowest, "meanwhile the writer"):strings.Index(slowest, "meanwhile the applier")]
	writerAsleep := regexp.MustCompile(`Waiting \(sleep\) +([0-9.]+) ms`).FindStringSubmatch(meanwhile)
	if writerAsleep == nil {
		t.Fatalf("no writer states during the slowest requests' waits:\n%s", got)
	}
	// It can sleep no longer than they waited; its wake-ups between sleeps take the rest.
	if v, _ := strconv.ParseFloat(writerAsleep[1], 64); v < 0.75*submit || v > submit+0.001 {
		t.Errorf("the writer slept %v ms during their waits of %v ms, want most of them:\n%s", v, submit, got)
	}
}

func TestAnalyseWithoutTasks(t *testing.T) {
	var buf bytes.Buffer
	if err := trace.Start(&buf); err != nil {
		t.Fatal(err)
	}
	time.Sleep(time.Millisecond)
	trace.Stop()
	if err := analyse(&buf, new(bytes.Buffer)); err == nil || !strings.Contains(err.Error(), "trace-tasks.patch") {
		t.Errorf("a trace without tasks: %v, want the hint to build with the patch", err)
	}
}
