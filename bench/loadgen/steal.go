package main

import (
	"errors"
	"os"
	"strconv"
	"strings"
)

// A virtual machine's CPUs are shared with other guests: time the
// hypervisor gives to them is "stolen" from this one (the steal column of
// /proc/stat, as top and vmstat show it). On a shared 2-core machine a few
// percent of it stalls any server for milliseconds, so each phase reports
// its share beside its latencies.

// cpuTimes are the machine's CPU times, all CPUs summed, in clock ticks.
type cpuTimes struct{ total, steal uint64 }

// readCPUTimes reads the first line of /proc/stat.
func readCPUTimes() (cpuTimes, error) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuTimes{}, err
	}
	return parseCPUTimes(string(b))
}

func parseCPUTimes(stat string) (cpuTimes, error) {
	line, _, _ := strings.Cut(stat, "\n")
	f := strings.Fields(line)
	// cpu user nice system idle iowait irq softirq steal [guest guest_nice]:
	// guest time is already counted in user and nice.
	if len(f) < 9 || f[0] != "cpu" {
		return cpuTimes{}, errors.New("/proc/stat: no cpu line with a steal column")
	}
	var t cpuTimes
	for i, s := range f[1:9] {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			return cpuTimes{}, errors.New("/proc/stat: " + err.Error())
		}
		t.total += n
		if i == 7 {
			t.steal = n
		}
	}
	return t, nil
}

// stolenShare is the share of CPU time stolen from a to b; negative
// (unknown) if a counter went backwards, as some kernels' steal has.
func stolenShare(a, b cpuTimes) float64 {
	if b.total <= a.total || b.steal < a.steal {
		return -1
	}
	return float64(b.steal-a.steal) / float64(b.total-a.total)
}
