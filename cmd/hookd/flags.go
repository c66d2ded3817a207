package main

import (
	"flag"
	"fmt"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"time"
)

// flagSet wraps flag.FlagSet so every flag may also come from an
// environment variable, named in its usage.
type flagSet struct {
	*flag.FlagSet
}

func newFlagSet(name string, out interface{ Write([]byte) (int, error) }) flagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	return flagSet{fs}
}

func (f flagSet) str(p *string, name, env, def, usage string) {
	if v, ok := os.LookupEnv(env); ok {
		def = v
	}
	f.StringVar(p, name, def, usage+" ($"+env+")")
}

func (f flagSet) duration(p *time.Duration, name, env string, def time.Duration, usage string) {
	if v, ok := os.LookupEnv(env); ok {
		if d, err := time.ParseDuration(v); err == nil {
			def = d
		}
	}
	f.DurationVar(p, name, def, usage+" ($"+env+")")
}

func (f flagSet) integer(p *int, name, env string, def int, usage string) {
	if v, ok := os.LookupEnv(env); ok {
		if n, err := strconv.Atoi(v); err == nil {
			def = n
		}
	}
	f.IntVar(p, name, def, usage+" ($"+env+")")
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
