package main

import (
	"errors"
	"strings"

	"github.com/olmcat/olmcat/grpccompat/fbcbackend"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/internal/atomicout"
	"github.com/olmcat/olmcat/internal/outpath"
	"github.com/olmcat/olmcat/internal/scratch"
	"github.com/olmcat/olmcat/internal/source"
)

// Exit codes shared by every subcommand.
const (
	exitOK       = 0
	exitFindings = 1 // validation failed, catalogs differ, findings at the --fail-on level
	exitUsage    = 2 // bad flags or arguments, an input that cannot be used, an output that cannot be written
	// exitBrokenPipe is what a shell reports for a process ended by SIGPIPE: the reader of
	// standard output went away.
	exitBrokenPipe = 128 + 13
)

// exitError ends the command with a given code; with a nil err nothing more is printed (the command
// has already reported, e.g. a diff or a validation report).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}

func (e exitError) Unwrap() error { return e.err }

// outputError marks an output that could not be written (a full disk, a bad path).
type outputError struct{ err error }

func (e outputError) Error() string { return e.err.Error() }
func (e outputError) Unwrap() error { return e.err }

// usageError marks errors in how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func exitCode(err error) int {
	var exit exitError
	if errors.As(err, &exit) {
		return exit.code
	}
	var (
		usage  usageError
		output outputError
		exists *atomicout.ExistsError
		large  *fbc.BlobTooLargeError
		cache  *fbcbackend.CacheError
		write  *atomicout.WriteError
		name   *outpath.NameError
		temp   *scratch.CreateError
	)
	if errors.As(err, &usage) || source.IsInputError(err) || errors.As(err, &exists) || errors.As(err, &output) ||
		errors.As(err, &large) || errors.As(err, &cache) || errors.As(err, &write) || errors.As(err, &name) || errors.As(err, &temp) {
		return exitUsage
	}
	// cobra's own argument errors ("accepts 2 arg(s)", "unknown command") are usage errors too.
	msg := err.Error()
	if strings.Contains(msg, "arg(s)") || strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown flag") {
		return exitUsage
	}
	return exitFindings
}

var errTwoStdin = errors.New("standard input (-) can be read only once: give it for one input at most")
