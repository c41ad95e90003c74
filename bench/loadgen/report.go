package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// WriteTable prints one row per endpoint that had traffic, and a total row
// when there were several.
func WriteTable(w io.Writer, results ...*Result) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "phase\tendpoint\trequests\treq/s\tp50\tp99\tp99.9\tmax\terrors\tCPU stolen\t")
	for _, r := range results {
		used := 0
		for e := range numEndpoints {
			if r.Endpoints[e].Count > 0 {
				used++
				row(tw, r.Phase.Name, e.String(), r.Endpoints[e], r.RPS(e), r.Stolen)
			}
		}
		if used > 1 {
			row(tw, r.Phase.Name, "all", r.Total(), r.RPS(-1), r.Stolen)
		}
		if r.Phase.Rate > 0 && r.Late > 0 {
			fmt.Fprintf(tw, "%s\t(open loop: %s requests waited for a free worker)\t\t\t\t\t\t\t\t\t\n", r.Phase.Name, thousands(float64(r.Late)))
		}
	}
	return tw.Flush()
}

func row(w io.Writer, phase, endpoint string, s *Stats, rps, stolen float64) {
	fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", phase, endpoint, thousands(float64(s.Count)), thousands(rps),
		ms(s.Latency.ValueAtQuantile(50)), ms(s.Latency.ValueAtQuantile(99)), ms(s.Latency.ValueAtQuantile(99.9)), ms(s.Latency.Max()),
		errorText(s), stolenText(stolen))
}

// stolenText is a share of stolen CPU time, or "-" when unknown.
func stolenText(x float64) string {
	if x < 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}

// errorText is the error count with its statuses, such as "3 (404×2, 500×1)".
func errorText(s *Stats) string {
	if s.Errors == 0 {
		return "0"
	}
	codes := make([]int, 0, len(s.Status))
	for c := range s.Status {
		codes = append(codes, c)
	}
	slices.Sort(codes)
	parts := make([]string, len(codes))
	for i, c := range codes {
		name := strconv.Itoa(c)
		switch c {
		case 0:
			name = "transport"
		case statusEventRefused:
			name = "event refused"
		case statusUnsigned:
			name = "unsigned"
		}
		parts[i] = fmt.Sprintf("%s×%d", name, s.Status[c])
	}
	return fmt.Sprintf("%d (%s)", s.Errors, strings.Join(parts, ", "))
}

// ms formats microseconds as milliseconds.
func ms(us int64) string {
	d := time.Duration(us) * time.Microsecond
	switch {
	case d < 10*time.Millisecond:
		return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond))
	case d < 100*time.Millisecond:
		return fmt.Sprintf("%.1f ms", float64(d)/float64(time.Millisecond))
	default:
		return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
	}
}

// thousands rounds x and groups its digits by three: 12345.6 is "12,346".
func thousands(x float64) string {
	s := strconv.FormatInt(int64(x+0.5), 10)
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Ratio is one of svc's figures as a share of a baseline's.
type Ratio struct {
	Name      string
	Svc, Base float64 // requests per second
	Target    float64 // the least share the target asks for (bench/RESULTS.md); 0: none, the ratio only informs
	BaseName  string  // "" is the baseline
	Events    bool    // Svc and Base are events per second, and the share is shown as a multiple
}

// Share is Svc / Base.
func (r Ratio) Share() float64 {
	if r.Base == 0 {
		return 0
	}
	return r.Svc / r.Base
}

// Met reports whether the share reaches the target.
func (r Ratio) Met() bool { return r.Share() >= r.Target }

// WriteRatios prints each ratio with its target, one line each.
func WriteRatios(w io.Writer, ratios []Ratio) {
	for _, r := range ratios {
		base, target := r.BaseName, ""
		if base == "" {
			base = "baseline"
		}
		if r.Events {
			if r.Target > 0 {
				target = fmt.Sprintf("  (target ≥ %g×: %s)", r.Target, verdict(r.Met()))
			}
			fmt.Fprintf(w, "%-34s svc %9s events/s = %5.2f× %s %9s events/s%s\n",
				r.Name, thousands(r.Svc), r.Share(), base, thousands(r.Base), target)
			continue
		}
		if r.Target > 0 {
			target = fmt.Sprintf("  (target ≥ %.0f%%: %s)", 100*r.Target, verdict(r.Met()))
		}
		fmt.Fprintf(w, "%-34s svc %9s req/s = %5.1f%% of %s %9s req/s%s\n",
			r.Name, thousands(r.Svc), 100*r.Share(), base, thousands(r.Base), target)
	}
}

// LatencyCheck is a latency percentile against its ceiling.
type LatencyCheck struct {
	Name     string
	Rate     float64 // requests per second sent
	P99      int64   // microseconds
	Ceiling  time.Duration
	Errors   int64
	Requests int64
	// BaseP99 is the baseline's p99 at the same rate, in microseconds; 0:
	// not measured. The baseline stores nothing, so what it takes is the
	// machine's and the load generator's share of every latency.
	BaseP99 int64
	// DurableP99 is the durable baseline's p99 at the same rate; 0: not
	// measured. It stores each body with an fsync before it answers, so what
	// it takes over the baseline is the disk's share of svc's latency.
	DurableP99 int64
	// Server is what svc's own handlers took, from its metrics; zero: not read.
	Server ServerLatency
	// Stolen is the share of CPU time stolen from the machine during svc's
	// phase; 0: none or not measured, negative: unknown.
	Stolen float64
}

// Met reports whether p99 is under the ceiling and nothing failed.
func (c LatencyCheck) Met() bool {
	return under(c.P99, c.Ceiling) && c.Errors == 0
}

// Showable reports whether this machine can show the target at all: false
// when the baseline, which stores nothing, is over the ceiling itself.
func (c LatencyCheck) Showable() bool { return c.BaseP99 == 0 || under(c.BaseP99, c.Ceiling) }

// ShowableDurably reports whether a server that stores each event durably
// can meet the target on this machine: false when the durable baseline,
// which does nothing else, is over the ceiling itself.
func (c LatencyCheck) ShowableDurably() bool {
	return c.DurableP99 == 0 || under(c.DurableP99, c.Ceiling)
}

func under(micros int64, d time.Duration) bool { return time.Duration(micros)*time.Microsecond < d }

// WriteLatencyChecks prints each check on one line.
func WriteLatencyChecks(w io.Writer, checks []LatencyCheck) {
	for _, c := range checks {
		base := ""
		if c.BaseP99 > 0 {
			base = fmt.Sprintf(", baseline %s", ms(c.BaseP99))
		}
		if c.DurableP99 > 0 {
			base += fmt.Sprintf(", durable baseline %s", ms(c.DurableP99))
		}
		if c.Server.Requests > 0 {
			base += fmt.Sprintf(", svc's handlers %s", c.Server)
		}
		if c.Stolen > 0 {
			base += fmt.Sprintf(", %s of the CPU stolen", stolenText(c.Stolen))
		}
		v := verdict(c.Met())
		switch {
		case c.Met():
		case !c.Showable():
			v += ", and the baseline is over it too"
		case !c.ShowableDurably():
			v += ", and the durable baseline is over it too"
		}
		fmt.Fprintf(w, "%-34s at %9s req/s: p99 %s%s  (target < %s, %d errors: %s)\n",
			c.Name, thousands(c.Rate), ms(c.P99), base, c.Ceiling, c.Errors, v)
	}
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}

// Spread summarises repeated measurements as "median (min to max)".
func Spread(xs []float64, format func(float64) string) string {
	if len(xs) == 0 {
		return "-"
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	med := s[len(s)/2]
	if len(s)%2 == 0 {
		med = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	if len(s) == 1 {
		return format(med)
	}
	return fmt.Sprintf("%s (%s to %s)", format(med), format(s[0]), format(s[len(s)-1]))
}
