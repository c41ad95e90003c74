// Command svc is the social-proof service: the server and its admin commands.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"strings"
	"syscall"

	"github.com/svc-project/svc"
	"github.com/svc-project/svc/internal/postgres"
	"github.com/svc-project/svc/internal/sqlite"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	var usage usageError
	switch {
	case errors.As(err, &usage):
		fmt.Fprintln(os.Stderr, "svc:", err)
		os.Exit(2)
	case errors.Is(err, flag.ErrHelp):
		os.Exit(0)
	case err != nil:
		fmt.Fprintln(os.Stderr, "svc:", err)
		os.Exit(1)
	}
}

const usageText = `svc: social proof for e-commerce, counted honestly.

Usage:
  svc serve        [--addr 127.0.0.1:8080] [--data ./svc-data | --store URL] [--demo]
  svc brands add   --name NAME [--domain HOST]... [--require-key] [--closed-catalog] [--json]
  svc brands list  [--json]
  svc brands set   --brand ID [--name NAME] [--domain HOST]... [--require-key=BOOL] [--closed-catalog=BOOL]
                   [--min-viewers N] [--min-purchases N] [--json]
  svc keys create  --brand ID [--json]
  svc keys revoke  --brand ID --key KEY_OR_PREFIX
  svc backup       --to FILE
  svc export       --brand ID [--out FILE]
  svc forget       --brand ID --session SESSION_ID
  svc version

Every command takes --data and --store, or SVC_DATA and SVC_STORE.
Run 'svc COMMAND --help' for a command's flags.
`

type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

// run is the whole program, with its environment passed in so that tests
// can run it in-process.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return usageError{"no command given"}
	}
	env := environment{getenv: getenv, stdout: stdout, stderr: stderr}
	switch cmd, rest := args[0], args[1:]; cmd {
	case "serve":
		return serve(ctx, env, rest)
	case "brands", "keys":
		if len(rest) == 0 {
			return usageError{fmt.Sprintf("%s needs a subcommand", cmd)}
		}
		sub := cmd + " " + rest[0]
		fn, ok := map[string]func(context.Context, environment, []string) error{
			"brands add":  brandsAdd,
			"brands list": brandsList,
			"brands set":  brandsSet,
			"keys create": keysCreate,
			"keys revoke": keysRevoke,
		}[sub]
		if !ok {
			return usageError{fmt.Sprintf("unknown command %q", sub)}
		}
		return fn(ctx, env, rest[1:])
	case "backup":
		return backup(ctx, env, rest)
	case "export":
		return export(ctx, env, rest)
	case "forget":
		return forget(ctx, env, rest)
	case "version", "--version":
		fmt.Fprintln(stdout, version())
		return nil
	case "help", "-h", "--help":
		fmt.Fprint(stdout, usageText)
		return nil
	default:
		fmt.Fprint(stderr, usageText)
		return usageError{fmt.Sprintf("unknown command %q", cmd)}
	}
}

type environment struct {
	getenv         func(string) string
	stdout, stderr io.Writer
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
}

func (e environment) newFlags(name string) (*flag.FlagSet, *storeFlags) {
	fs := flag.NewFlagSet("svc "+name, flag.ContinueOnError)
	fs.SetOutput(e.stderr)
	sf := &storeFlags{}
	fs.StringVar(&sf.data, "data", e.env("SVC_DATA", "./svc-data"), "folder of the embedded store (env SVC_DATA)")
	fs.StringVar(&sf.store, "store", e.env("SVC_STORE", ""), "store URL instead of --data, such as postgres://host/db (env SVC_STORE)")
	return fs, sf
}

func parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err.Error()}
	}
	if fs.NArg() > 0 {
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
	log        svc.EventLog                       // the embedded store's: its counts can be saved
	feed       svc.ChangeFeed                     // a shared store's: other nodes' events
	lockServer func() (release func(), err error) // claims the data folder for one server
}

// openStore opens the store the flags name.
func (sf *storeFlags) openStore(ctx context.Context) (*openedStore, error) {
	if sf.store == "" {
		s, err := sqlite.Open(ctx, sf.data)
		if err != nil {
			return nil, err
		}
		return &openedStore{Store: s, log: s, lockServer: s.LockServer}, nil
	}
	switch scheme, _, _ := strings.Cut(sf.store, "://"); scheme {
	case "postgres", "postgresql":
		s, err := postgres.Open(ctx, sf.store)
		if err != nil {
			return nil, err
		}
		return &openedStore{Store: s, feed: s}, nil
	default:
		return nil, usageError{fmt.Sprintf("--store %s://...: unknown store; want postgres://user@host/db, or --data for the embedded store", scheme)}
	}
}

// version describes the binary from the build information Go embeds: the
// module version (set by go install) or the VCS revision of a local build.
func version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "svc (unknown version)"
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
	return fmt.Sprintf("svc %s %s %s/%s", v, info.GoVersion, runtime.GOOS, runtime.GOARCH)
}
