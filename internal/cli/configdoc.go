package cli

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// configDocCommands are the long-running commands whose flags
// docs/configuration.md lists, in its order.
var configDocCommands = []string{"dev", "serve", "worker", "api", "receiver"}

// The markers around the generated part of docs/configuration.md; the
// prose outside them is kept as written.
const (
	configDocBegin = "<!-- BEGIN GENERATED: go test ./internal/cli -run TestConfigurationDoc -update -->"
	configDocEnd   = "<!-- END GENERATED -->"
)

// renderConfigDoc returns doc (the text of docs/configuration.md) with the
// part between its markers replaced by configTables.
func renderConfigDoc(doc string) (string, error) {
	before, rest, ok := strings.Cut(doc, configDocBegin)
	if !ok {
		return "", fmt.Errorf("no %q line", configDocBegin)
	}
	_, after, ok := strings.Cut(rest, configDocEnd)
	if !ok {
		return "", fmt.Errorf("no %q line", configDocEnd)
	}
	tables, err := configTables()
	if err != nil {
		return "", err
	}
	return before + configDocBegin + "\n\n" + tables + "\n" + configDocEnd + after, nil
}

// configTables renders, for each of configDocCommands, a Markdown table of
// its flags as the command tree defines them: flag, environment variable,
// default and description.
func configTables() (string, error) {
	root := newEnv(nil, io.Discard, io.Discard).rootCommand()
	var b strings.Builder
	for i, name := range configDocCommands {
		cmd, _, err := root.Find([]string{name})
		if err != nil || cmd == root {
			return "", errors.Join(fmt.Errorf("no command %q", name), err)
		}
		if i > 0 {
			b.WriteString("\n")
		}
		writeFlagTable(&b, cmd)
	}
	return b.String(), nil
}

// writeFlagTable writes the heading and flag table of cmd.
func writeFlagTable(b *strings.Builder, cmd *cobra.Command) {
	short := cmd.Short
	if short != "" {
		short = strings.ToUpper(short[:1]) + short[1:] + "."
	}
	fmt.Fprintf(b, "## `hookd %s`\n\n%s\n\n", cmd.Name(), short)
	b.WriteString("| flag | environment | default | description |\n|---|---|---|---|\n")
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Hidden || f.Name == "help" {
			return
		}
		env := ""
		if names := f.Annotations[envAnnotation]; len(names) > 0 {
			env = "`" + names[0] + "`"
		}
		usage := strings.TrimSuffix(f.Usage, " ($"+strings.Trim(env, "`")+")")
		fmt.Fprintf(b, "| `--%s` | %s | %s | %s |\n", f.Name, env, flagDefault(f), cell(usage))
	})
}

// flagDefault is f's default as the table shows it: empty when there is
// none.
func flagDefault(f *pflag.Flag) string {
	if f.DefValue == "" {
		return ""
	}
	return "`" + f.DefValue + "`"
}

// cell escapes s for a Markdown table cell: pipes, line breaks, and the
// angle brackets of placeholders such as <data-dir>, which Markdown would
// take for HTML.
func cell(s string) string {
	return strings.NewReplacer("|", `\|`, "\n", " ", "<", "&lt;", ">", "&gt;").Replace(s)
}
