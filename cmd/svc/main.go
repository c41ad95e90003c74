// Command svc is the social-proof service: the server and its admin commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"path/filepath"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres"
	"github.com/svc-project/svc/internal/sqlite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	exe, _ := os.Executable() // "" when unknown: the hints say svc
	env := environment{getenv: os.Getenv, stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin, self: selfCommand(os.Args[0], exe)}
	err := runIn(ctx, os.Args[1:], env)
	stop()
	var usage usageError
	switch {
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case errors.As(err, &usage):
		fmt.Fprintln(os.Stderr, "svc:", errorText(err))
		os.Exit(2)
	case err != nil:
		fmt.Fprintln(os.Stderr, "svc:", errorText(err))
		os.Exit(1)
	}
}

// errorText is an error as the command line prints it: an *svc.Error by
// its message and fields, without the "svc CODE:" prefix that main's own
// "svc:" would double.
func errorText(err error) string {
	text := err.Error()
	var e *svc.Error
	if errors.As(err, &e) {
		plain := e.Message
		for _, f := range e.Fields {
			plain += "; " + f.Field + " " + f.Message
		}
		if e.Err != nil {
			plain += ": " + e.Err.Error()
		}
		text = strings.Replace(text, e.Error(), plain, 1)
	}
	return text
}

// command is one command of svc: how it is called, what it does in one
// line, and the function that runs it. Help and usage are made from here.
type command struct {
	name     string   // "serve", "brands add"
	synopsis []string // its flags, in lines of the usage
	summary  string
	run      func(context.Context, environment, []string) error
}

// commands is every command, in the order the usage lists them. It is a
// function, not a variable, because the commands' help reads it.
func commands() []command {
	return []command{
		{"serve", []string{"[--addr HOST:PORT] [--public-url URL] [--demo] [options]"},
			"run the service: the API, the client script and its widget", serve},
		{"brands add", []string{"--name NAME [--domain HOST]... [--require-key] [--closed-catalog]",
			"[--min-viewers N] [--min-purchases N] [--holdout PERCENT] [--recent-delay D] [--recent-window D] [--recent-max N] [--recent-k N]",
			"[--widget-position start|end] [--languages en,de,fr,es] [--widget-variant PARTS] [--widget-font inherit] [--widget-accent #rrggbb] [--min-carts N]",
			"[--public-url URL] [--json]"},
			"create a brand and its first API key, and print the snippet to embed", brandsAdd},
		{"brands list", []string{"[--json]"},
			"list the brands and the prefixes of their keys", brandsList},
		{"brands set", []string{"--brand ID [--name NAME] [--domain HOST]... [--add-domain HOST]... [--remove-domain HOST]... [--require-key=BOOL]",
			"[--closed-catalog=BOOL] [--min-viewers N] [--min-purchases N] [--holdout PERCENT] [--recent-delay D] [--recent-window D]",
			"[--recent-max N] [--recent-k N] [--shopify-secret SECRET|-] [--woocommerce-secret SECRET|-]",
			"[--widget-position start|end] [--languages en,de,fr,es] [--widget-variant PARTS] [--widget-font inherit] [--widget-accent #rrggbb] [--min-carts N]",
			"[--public-url URL] [--json]"},
			"change a brand's name, domains, key and catalog rules, thresholds, holdout, widget, feed rules or webhook secrets", brandsSet},
		{"brands members add", []string{"--brand ID --email ADDRESS --role owner|viewer [--json]"},
			"let someone into a brand's dashboard, or change their role", brandsMembersAdd},
		{"brands members remove", []string{"--brand ID --email ADDRESS"},
			"take someone out of a brand's dashboard (the last owner stays)", brandsMembersRemove},
		{"brands members list", []string{"[--brand ID] [--json]"},
			"list a brand's members, or every brand's", brandsMembersList},
		{"keys create", []string{"--brand ID [--label TEXT] [--json]"},
			"add an API key to a brand", keysCreate},
		{"keys revoke", []string{"--brand ID --key KEY_OR_PREFIX"},
			"revoke one of a brand's API keys", keysRevoke},
		{"keys signing rotate", []string{"[--grace DURATION] [--json]"},
			"add a signing key; the one it replaces stays published for --grace (7 days)", keysSigningRotate},
		{"keys signing list", []string{"[--json]"},
			"list the published signing keys", keysSigningList},
		{"verify", []string{"--url URL [--method M] [--data JSON | --data-file FILE]",
			"[--answer FILE [--request FILE]] [--keys URL_OR_FILE] [--max-age D]"},
			"check the signature of an answer; exit 0 verified, 1 not, 2 usage", verify},
		{"extension pack", []string{"[--out FILE] [--base-url URL]"},
			"write the browser extension as a zip for a store upload", extensionPack},
		{"dashboard link", []string{"(--brand ID | --operator) [--public-url URL] [--json]"},
			"print a one-time sign-in link to the dashboard, valid 15 minutes", dashboardLink},
		{"rollups rebuild", nil,
			"build the dashboard's rollups again from the stored events", rollupsRebuild},
		{"backup", []string{"--to FILE"},
			"copy the embedded store into a new file, while a server runs", backup},
		{"export", []string{"--brand ID [--out FILE]"},
			"write a brand's events as JSON Lines", export},
		{"forget", []string{"--brand ID --session SESSION_ID"},
			"erase the events of one shopper's session", forget},
		{"products names", []string{"--brand ID --product ID_OR_NAME [--json]"},
			"list the names a product is known by: variant ids, SKUs, page ids", productsNames},
		{"products unalias", []string{"--brand ID --name NAME"},
			"remove a name from the product it names", productsUnalias},
		{"products merge", []string{"--brand ID --into ID_OR_NAME --from ID_OR_NAME"},
			"make two products one: the second's events and names become the first's", productsMerge},
		{"import", []string{"--brand ID --file FILE [--format jsonl|shopify-csv] [--retention D] [--progress]"},
			"load a brand's past orders: svc export's JSON Lines or Shopify's order export", importCmd},
		{"version", nil,
			"print the version of this binary", versionCmd},
	}
}

// lookup returns the command called name.
func lookup(name string) (command, bool) {
	for _, c := range commands() {
		if c.name == name {
			return c, true
		}
	}
	return command{}, false
}

// usage is the help of svc itself: every command with what it does, then
// every command with its flags.
func usage(w io.Writer) {
	fmt.Fprint(w, "svc: social proof for e-commerce, counted honestly.\n\nUsage: svc COMMAND [flags]\n\nCommands:\n")
	var names, summaries []string
	for _, c := range commands() {
		names, summaries = append(names, c.name), append(summaries, c.summary)
	}
	columns(w, names, summaries)
	fmt.Fprint(w, "\nFlags:\n")
	for _, l := range synopses() {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprint(w, "\nEvery command but version, verify and extension pack takes --data DIR (SVC_DATA,\ndefault ./svc-data) or --store URL (SVC_STORE). Run 'svc COMMAND --help' for what each flag means;\n'svc serve --help' lists every option of the server.\n")
}

// synopses are the lines of the commands with their flags, as README.md's
// "The command line" shows them too (a test compares).
func synopses() []string {
	var out []string
	for _, c := range commands() {
		head := fmt.Sprintf("%-16s", "svc "+c.name)
		if len(c.synopsis) == 0 {
			out = append(out, strings.TrimSpace(head))
		}
		for i, l := range c.synopsis {
			if i > 0 {
				head = strings.Repeat(" ", len(head))
			}
			out = append(out, head+" "+l)
		}
	}
	return out
}

// groupUsage lists the subcommands of a group such as brands.
func groupUsage(w io.Writer, group string) {
	fmt.Fprintf(w, "Usage: svc %s SUBCOMMAND [flags]\n\nSubcommands:\n", group)
	var names, summaries []string
	for _, c := range commands() {
		if sub, ok := strings.CutPrefix(c.name, group+" "); ok {
			names, summaries = append(names, sub), append(summaries, c.summary)
		}
	}
	columns(w, names, summaries)
	fmt.Fprintf(w, "\nRun 'svc %s SUBCOMMAND --help' for its flags.\n", group)
}

// columns writes names and their summaries in two aligned columns, the
// summaries two spaces after the longest name.
func columns(w io.Writer, names, summaries []string) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	for i, n := range names {
		fmt.Fprintf(tw, "  %s\t%s\n", n, summaries[i])
	}
	_ = tw.Flush() // w's own errors are the caller's to see
}

// subcommands names a group's subcommands: "add, list or set".
func subcommands(group string) string {
	var subs []string
	for _, c := range commands() {
		if sub, ok := strings.CutPrefix(c.name, group+" "); ok {
			subs = append(subs, sub)
		}
	}
	if len(subs) == 1 {
		return subs[0]
	}
	return strings.Join(subs[:len(subs)-1], ", ") + " or " + subs[len(subs)-1]
}

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func isHelp(arg string) bool {
	return arg == "-h" || arg == "-help" || arg == "--help" || arg == "help"
}

// run is the whole program, with its environment passed in so that tests
// can run it in-process; its hints say svc.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	return runIn(ctx, args, environment{getenv: getenv, stdout: stdout, stderr: stderr, stdin: os.Stdin, self: "svc"})
}

// runIn is run in an environment.
func runIn(ctx context.Context, args []string, env environment) error {
	stdout, stderr := env.stdout, env.stderr
	if len(args) == 0 {
		usage(stderr)
		return usageError{"no command given"}
	}
	name, rest := args[0], args[1:]
	switch {
	case isHelp(name):
		usage(stdout)
		return nil
	case name == "--version":
		name = "version"
	case name == "brands" || name == "keys" || name == "extension" || name == "dashboard" || name == "rollups" || name == "products":
		switch {
		case len(rest) == 0:
			groupUsage(stderr, name)
			return usageError{fmt.Sprintf("%s needs a subcommand: %s", name, subcommands(name))}
		case isHelp(rest[0]):
			groupUsage(stdout, name)
			return nil
		}
		name, rest = name+" "+rest[0], rest[1:]
		if (name == "keys signing" || name == "brands members") && len(rest) > 0 && !isHelp(rest[0]) {
			name, rest = name+" "+rest[0], rest[1:]
		}
	}
	c, ok := lookup(name)
	if group, _, sub := strings.Cut(name, " "); !ok && sub {
		groupUsage(stderr, group)
		return usageError{fmt.Sprintf("unknown command %q: %s takes %s", name, group, subcommands(group))}
	} else if !ok {
		usage(stderr)
		return usageError{fmt.Sprintf("unknown command %q", name)}
	}
	return c.run(ctx, env, rest)
}

type environment struct {
	getenv         func(string) string
	stdout, stderr io.Writer
	stdin          io.Reader // where a secret given as - is read from
	// self is how the user runs svc, for the commands the hints print:
	// "svc", "./svc" or "go run ./cmd/svc" (selfCommand).
	self string
}

// selfCommand is how the user ran svc, from the program's first argument
// and its executable: "go run ./cmd/svc" for a binary go run built in its
// temporary folder, the name as typed for one run by its path ("./svc"),
// else "svc", found on the PATH.
func selfCommand(arg0, exe string) string {
	sep := string(filepath.Separator)
	switch {
	case strings.Contains(exe, sep+"go-build") && strings.Contains(exe, sep+"exe"+sep):
		return "go run ./cmd/svc"
	case strings.Contains(arg0, sep) && !strings.ContainsAny(arg0, " '\"$`"):
		return arg0
	}
	return "svc"
}

// cmd is a command line of svc for a hint, as the user runs svc.
func (e environment) cmd(format string, args ...any) string {
	self := e.self
	if self == "" {
		self = "svc"
	}
	return self + " " + fmt.Sprintf(format, args...)
}

func (e environment) env(name, def string) string {
	if v := e.getenv(name); v != "" {
		return v
	}
	return def
}

// storeFlags are the flags every command takes to find the store.
type storeFlags struct {
	data, store string
	// create lets the embedded store's folder be made: only serve does,
	// so that an admin command run from the wrong folder says so rather
	// than answering from an empty store of its own.
	create bool
}

// flagSet returns the flags of a command, whose --help prints to stdout.
func (e environment) flagSet(name string) *flag.FlagSet {
	fs := flag.NewFlagSet("svc "+name, flag.ContinueOnError)
	fs.SetOutput(io.Discard) // parse reports errors, and help goes to stdout
	fs.Usage = func() { printHelp(e.stdout, fs, nil) }
	return fs
}

func (e environment) newFlags(name string) (*flag.FlagSet, *storeFlags) {
	fs := e.flagSet(name)
	sf := &storeFlags{create: name == "serve"}
	fs.StringVar(&sf.data, "data", e.env("SVC_DATA", "./svc-data"), "folder of the embedded store (env SVC_DATA)")
	fs.StringVar(&sf.store, "store", e.env("SVC_STORE", ""), "store URL instead of --data, such as postgres://host/db (env SVC_STORE)")
	return fs, sf
}

// printHelp is every command's --help: how it is called, what it does, and
// every flag in one style.
func printHelp(w io.Writer, fs *flag.FlagSet, opts []option) {
	c, _ := lookup(strings.TrimPrefix(fs.Name(), "svc "))
	head := "Usage: " + fs.Name()
	fmt.Fprint(w, head)
	for i, l := range c.synopsis {
		if i > 0 {
			fmt.Fprint(w, "\n"+strings.Repeat(" ", len(head)))
		}
		fmt.Fprint(w, " "+l)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "\n%s.\n", strings.ToUpper(c.summary[:1])+c.summary[1:])
	if len(opts) > 0 {
		fmt.Fprint(w, "\nEvery option is a flag or an environment variable; a flag wins.\n")
	}
	n := 0
	fs.VisitAll(func(*flag.Flag) { n++ })
	if n > 0 {
		fmt.Fprint(w, "\nFlags:\n")
		printOptions(fs, opts, w)
	}
}

// singleDash matches the flag package's way of naming a flag in its errors.
var singleDash = regexp.MustCompile(`(^|\s)-([a-zA-Z])`)

// parse parses a command's flags. --help prints its help to stdout; a bad
// flag is a usage error that names it the way the help does, --name.
func parse(fs *flag.FlagSet, args []string) error {
	help := fs.Usage
	fs.Usage = func() {}
	err := fs.Parse(args)
	fs.Usage = help
	switch {
	case errors.Is(err, flag.ErrHelp):
		help()
		return err
	case err != nil:
		return usageError{fmt.Sprintf("%s (%s --help lists the flags)", singleDash.ReplaceAllString(err.Error(), "$1--$2"), fs.Name())}
	case fs.NArg() > 0:
		return usageError{fmt.Sprintf("unexpected argument %q", fs.Arg(0))}
	}
	return nil
}

// open opens the store the flags name.
func (sf *storeFlags) open(ctx context.Context) (svc.Store, error) {
	s, err := sf.openStore(ctx)
	if err != nil {
		return nil, err
	}
	return s.Store, nil
}

// openedStore is a store with what its kind offers beyond svc.Store, set
// here, where its kind is known, and handed to the core by serve.
type openedStore struct {
	svc.Store
	log        svc.EventLog                            // the embedded store's: its counts can be saved
	feed       svc.ChangeFeed                          // other nodes' or processes' events
	lockServer func() (release func(), err error)      // claims the data folder for one server
	tidy       func(context.Context) ([]string, error) // keeps the database's tables, each sweep
}

// openStore opens the store the flags name.
func (sf *storeFlags) openStore(ctx context.Context) (*openedStore, error) {
	if sf.store == "" {
		if !sf.create {
			if _, err := os.Stat(sf.data); errors.Is(err, fs.ErrNotExist) {
				where := sf.data
				if abs, err := filepath.Abs(sf.data); err == nil && abs != filepath.Clean(sf.data) {
					where += " (" + abs + ")"
				}
				return nil, fmt.Errorf("no data folder %s: give the folder svc serve uses, with --data or SVC_DATA (only svc serve creates one)", where)
			}
		}
		s, err := sqlite.Open(ctx, sf.data)
		if err != nil {
			return nil, err
		}
		return &openedStore{Store: s, log: s, feed: s, lockServer: s.LockServer}, nil
	}
	switch scheme, _, _ := strings.Cut(sf.store, "://"); scheme {
	case "postgres", "postgresql":
		s, err := postgres.Open(ctx, sf.store)
		if err != nil {
			return nil, err
		}
		return &openedStore{Store: s, feed: s, tidy: s.Tidy}, nil
	default:
		return nil, usageError{fmt.Sprintf("--store %s://...: unknown store; want postgres://user@host/db, or --data for the embedded store", scheme)}
	}
}

// versionCmd prints the version.
func versionCmd(_ context.Context, env environment, args []string) error {
	if err := parse(env.flagSet("version"), args); err != nil {
		return err
	}
	fmt.Fprintln(env.stdout, version())
	return nil
}

// version describes the binary from the build information Go embeds: the
// module version (set by go install) or the VCS revision of a local build.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "svc (unknown version)"
	}
	return fmt.Sprintf("svc %s %s %s/%s", moduleVersion(), info.GoVersion, runtime.GOOS, runtime.GOARCH)
}

// moduleVersion is the module version of the binary, or "devel" and the
// VCS revision of a local build; "unknown" without build information.
func moduleVersion() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	v := info.Main.Version
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			if s.Value == "true" {
				modified = "+dirty"
			}
		}
	}
	if (v == "" || v == "(devel)") && rev != "" {
		v = "devel " + rev[:min(12, len(rev))] + modified
	}
	return v
}
