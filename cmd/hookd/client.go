package main

import (
	"context"
	"errors"
	"io"
)

// runClient runs the API client subcommands.
func runClient(ctx context.Context, cmd string, args []string, stdout, stderr io.Writer) error {
	return errors.New("hookd " + cmd + ": not implemented yet")
}
