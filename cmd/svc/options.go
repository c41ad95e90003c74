package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/svc-project/svc"
)

// option is one setting of a command: a flag and an SVC_ environment
// variable, with a default and a parser that validates. A flag wins over
// the environment, which wins over the default.
type option struct {
	name  string // the flag, without dashes
	env   string // the environment variable
	def   string // the default, as text; "" sets nothing
	usage string
	// list options repeat as flags and are comma-separated in the
	// environment; set appends one value.
	list    bool
	boolean bool
	// set parses one value and stores it; its error says what is wanted,
	// and is prefixed with the option's name and the value.
	set func(string) error
}

// rawValues records what a flag was given; options are applied after
// parsing, so that the source of each value is known.
type rawValues struct {
	vals    []string
	boolean bool
}

func (r *rawValues) String() string     { return strings.Join(r.vals, ",") }
func (r *rawValues) Set(v string) error { r.vals = append(r.vals, v); return nil }
func (r *rawValues) IsBoolFlag() bool   { return r.boolean }

// parseOptions registers opts on fs beside its own flags, parses args and
// applies, for each option, its flags, else its environment variable, else
// its default. Errors name the option and the bad value.
func parseOptions(fs *flag.FlagSet, env environment, opts []option, args []string) error {
	raws := make([]*rawValues, len(opts))
	for i, o := range opts {
		raws[i] = &rawValues{boolean: o.boolean}
		fs.Var(raws[i], o.name, o.usage)
	}
	fs.Usage = func() { printHelp(env.stdout, fs, opts) }
	if err := parse(fs, args); err != nil {
		return err
	}
	for i, o := range opts {
		var vals []string
		var source string
		switch ev := env.getenv(o.env); {
		case len(raws[i].vals) > 0:
			vals, source = raws[i].vals, "--"+o.name
		case ev != "" && o.list:
			vals, source = strings.Split(ev, ","), o.env
		case ev != "":
			vals, source = []string{ev}, o.env
		case o.def != "":
			vals, source = []string{o.def}, "the default of --"+o.name
		}
		for _, v := range vals {
			if o.list && strings.TrimSpace(v) == "" {
				continue // "a, b," in the environment
			}
			if err := o.set(strings.TrimSpace(v)); err != nil {
				if strings.HasPrefix(source, "SVC_") {
					return usageError{fmt.Sprintf("%s=%q (--%s): %v", source, v, o.name, err)}
				}
				return usageError{fmt.Sprintf("%s %q: %v", source, v, err)}
			}
		}
	}
	return nil
}

// printOptions lists, for a command's --help, every flag with its
// environment variable, default and meaning.
func printOptions(fs *flag.FlagSet, opts []option, w io.Writer) {
	byName := map[string]option{}
	for _, o := range opts {
		byName[o.name] = o
	}
	fs.VisitAll(func(f *flag.Flag) {
		o, ok := byName[f.Name]
		if !ok { // a flag of newFlags: its usage names its variable
			o = option{name: f.Name, def: f.DefValue, usage: f.Usage}
			if o.def == "false" || o.def == "0" {
				o.def = "" // a switch, or no default worth saying
			}
		}
		line := "  --" + o.name
		if o.env != "" {
			line += " (" + o.env + ")"
		}
		switch {
		case o.def != "":
			line += "  default " + o.def
		case o.list:
			line += "  repeatable; comma-separated in the environment"
		}
		fmt.Fprintf(w, "%s\n      %s\n", line, o.usage)
	})
}

// Parsers of option values. Each returns what it wants when the value is bad.

func boolOpt(p *bool) func(string) error {
	return func(v string) error {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return errors.New("want true or false")
		}
		*p = b
		return nil
	}
}

func durationOpt(p *time.Duration, least time.Duration, what string) func(string) error {
	return func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			return errors.New("want a duration such as 15s or 840h")
		}
		if d < least {
			return fmt.Errorf("must be at least %s%s", svc.FormatDuration(least), what)
		}
		*p = d
		return nil
	}
}

// nowWindowOpt reads --now-window: whole minutes, up to svc.MaxNowWindow.
func nowWindowOpt(p *time.Duration) func(string) error {
	return func(v string) error {
		d, err := time.ParseDuration(v)
		if err != nil || d < time.Minute || d > svc.MaxNowWindow || d%time.Minute != 0 {
			return fmt.Errorf("want whole minutes from 1m to %s, such as 5m", svc.FormatDuration(svc.MaxNowWindow))
		}
		*p = d
		return nil
	}
}

func floatOpt(p *float64, least float64) func(string) error {
	return func(v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || f < least {
			return fmt.Errorf("want a number from %g", least)
		}
		*p = f
		return nil
	}
}

func intOpt(p *int, least int) func(string) error {
	return func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < least {
			return fmt.Errorf("want a whole number from %d", least)
		}
		*p = n
		return nil
	}
}

func choiceOpt(p *string, choices ...string) func(string) error {
	return func(v string) error {
		for _, c := range choices {
			if v == c {
				*p = v
				return nil
			}
		}
		return fmt.Errorf("want %s", strings.Join(choices, " or "))
	}
}

// addrOpt takes host:port, the host possibly empty (every interface).
func addrOpt(p *string, optional bool) func(string) error {
	return func(v string) error {
		if v == "" && optional {
			*p = ""
			return nil
		}
		_, port, err := net.SplitHostPort(v)
		if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 0 || n > 65535 {
			return errors.New("want HOST:PORT such as 127.0.0.1:8080 or 0.0.0.0:8080 (port 0 picks a free one)")
		}
		*p = v
		return nil
	}
}

func stringOpt(p *string) func(string) error {
	return func(v string) error { *p = v; return nil }
}

func urlOpt(p *string) func(string) error {
	return func(v string) error {
		if v == "" {
			*p = ""
			return nil
		}
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return errors.New("want an absolute http or https URL such as https://proof.example.com")
		}
		*p = strings.TrimSuffix(v, "/")
		return nil
	}
}

// prefixOpt appends an IP address or a CIDR.
func prefixOpt(p *[]netip.Prefix) func(string) error {
	return func(v string) error {
		if addr, err := netip.ParseAddr(v); err == nil {
			*p = append(*p, netip.PrefixFrom(addr, addr.BitLen()))
			return nil
		}
		prefix, err := netip.ParsePrefix(v)
		if err != nil {
			return errors.New("want an IP address or a CIDR such as 10.0.0.0/8")
		}
		*p = append(*p, prefix.Masked())
		return nil
	}
}

// retentionWhy explains the least retention.
var retentionWhy = fmt.Sprintf(" (%d days, the largest window)", svc.MaxPurchaseWindow/(24*time.Hour))
