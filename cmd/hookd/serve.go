package main

import (
	"context"
	"errors"
	"io"
)

// runServe runs `hookd worker`, `hookd api` or `hookd serve`.
func runServe(ctx context.Context, mode string, args []string, stdout, stderr io.Writer) error {
	return errors.New("hookd " + mode + ": not implemented yet")
}
