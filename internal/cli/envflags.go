package cli

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"
)

// envFlags defines flags that may also come from an environment variable,
// named at the end of the flag's usage. A flag given on the command line
// wins; a variable holding a value the flag refuses stops the command
// with an error naming the variable (see applyEnv).
type envFlags struct {
	*pflag.FlagSet
}

// envAnnotation is the pflag annotation holding a flag's variable.
const envAnnotation = "hookd_env"

func (f envFlags) bind(name, env string) {
	_ = f.SetAnnotation(name, envAnnotation, []string{env})
}

func (f envFlags) str(p *string, name, env, def, usage string) {
	f.StringVar(p, name, def, usage+" ($"+env+")")
	f.bind(name, env)
}

// secret is str for secrets: no default is shown, and a refused value is
// never repeated in an error.
func (f envFlags) secret(p *string, name, env, usage string) {
	f.str(p, name, env, "", usage)
}

func (f envFlags) duration(p *time.Duration, name, env string, def time.Duration, usage string) {
	f.DurationVar(p, name, def, usage+" ($"+env+")")
	f.bind(name, env)
}

func (f envFlags) integer(p *int, name, env string, def int, usage string) {
	f.IntVar(p, name, def, usage+" ($"+env+")")
	f.bind(name, env)
}

func (f envFlags) boolean(p *bool, name, env string, def bool, usage string) {
	f.BoolVar(p, name, def, usage+" ($"+env+")")
	f.bind(name, env)
}

func (f envFlags) level(p *slog.Level, name, env string, def slog.Level, usage string) {
	*p = def
	f.Var(levelValue{p}, name, usage+" ($"+env+")")
	f.bind(name, env)
}

// offSwitch defines an on/off flag whose off state sets *off
// (--payload-encryption=off).
func (f envFlags) offSwitch(off *bool, name, env string, usage string) {
	f.Var(offSwitchValue{off}, name, usage+" ($"+env+")")
	f.bind(name, env)
}

// offSwitchValue is a flag taking on or off; off sets *off.
type offSwitchValue struct{ off *bool }

func (v offSwitchValue) String() string {
	if v.off != nil && *v.off {
		return "off"
	}
	return "on"
}

func (v offSwitchValue) Set(s string) error {
	switch s {
	case "on", "off":
		*v.off = s == "off"
		return nil
	}
	return fmt.Errorf("want on or off, not %q", s)
}

func (v offSwitchValue) Type() string { return "on|off" }

// levelValue is a slog.Level as a flag: debug, info, warn or error.
type levelValue struct{ l *slog.Level }

func (v levelValue) String() string     { return strings.ToLower(v.l.String()) }
func (v levelValue) Set(s string) error { return v.l.UnmarshalText([]byte(s)) }
func (v levelValue) Type() string       { return "level" }

// applyEnv sets every flag of fs not given on the command line from its
// environment variable, if that is set. An empty variable counts as unset,
// except for text flags, where empty is a value (HOOKD_UI_ADDR= turns the
// Web UI off).
func applyEnv(fs *pflag.FlagSet) error {
	var errs []error
	fs.VisitAll(func(f *pflag.Flag) {
		names := f.Annotations[envAnnotation]
		if len(names) == 0 || f.Changed {
			return
		}
		v, ok := os.LookupEnv(names[0])
		if !ok || (v == "" && f.Value.Type() != "string") {
			return
		}
		if err := f.Value.Set(v); err != nil {
			if f.Value.Type() == "profile" { // no secret: the field is worth naming
				errs = append(errs, fmt.Errorf("$%s: %w", names[0], err))
				return
			}
			errs = append(errs, fmt.Errorf("$%s: want a %s for --%s", names[0], kindOf(f), f.Name))
		}
	})
	if len(errs) > 0 {
		return usageError{errs[0]}
	}
	return nil
}

// kindOf names what a flag takes, for errors.
func kindOf(f *pflag.Flag) string {
	switch f.Value.Type() {
	case "duration":
		return "duration such as 30s or 2h"
	case "int":
		return "whole number"
	case "bool":
		return "boolean (true or false)"
	case "level":
		return "log level (debug, info, warn or error)"
	case "float64":
		return "number"
	case "on|off":
		return "switch (on or off)"
	}
	return f.Value.Type()
}

// usageError is a mistake in how a command was called: a flag, an
// argument or an environment variable. hookd exits with status 2.
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usagef returns a usageError.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// isUsage reports whether err is a usage error.
func isUsage(err error) bool {
	var u usageError
	return errors.As(err, &u)
}
