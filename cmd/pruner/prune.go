package main

import (
	"context"
	"errors"
	"io"
)

// runPrune is written next; see the lead's work in progress.
func runPrune(_ context.Context, _ []string, _ io.Reader, _, _ io.Writer) error {
	return errors.New("prune: not built yet")
}
