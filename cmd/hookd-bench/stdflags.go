package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strings"
)

// flagSet is the standard library's flag.FlagSet with hookd's level flag
// and a parse that refuses positional arguments: hookd-bench keeps the
// single-dash flags (-n 3000) the benchmark's make target and documents
// use.
type flagSet struct {
	*flag.FlagSet
}

func newFlagSet(name string, out interface{ Write([]byte) (int, error) }) flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	return flagSet{fs}
}

func (f flagSet) level(p *slog.Level, name, env string, def slog.Level, usage string) {
	*p = def
	if v, ok := os.LookupEnv(env); ok {
		_ = p.UnmarshalText([]byte(v))
	}
	f.TextVar(p, name, *p, usage+" ($"+env+")")
}

// parse parses args and refuses positional arguments.
func (f flagSet) parse(args []string) error {
	if err := f.Parse(args); err != nil {
		return err
	}
	if f.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %s", strings.Join(f.Args(), " "))
	}
	return nil
}
