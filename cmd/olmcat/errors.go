package main

import (
	"errors"
	"strings"
)

// Exit codes shared by every subcommand.
const (
	exitOK       = 0
	exitFindings = 1 // validation failed, catalogs differ, findings at the --fail-on level
	exitUsage    = 2 // bad flags or arguments, unreadable input
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

// usageError marks errors in how the command was called.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func exitCode(err error) int {
	var exit exitError
	if errors.As(err, &exit) {
		return exit.code
	}
	var usage usageError
	if errors.As(err, &usage) {
		return exitUsage
	}
	// cobra's own argument errors ("accepts 2 arg(s)", "unknown command") are usage errors too.
	msg := err.Error()
	if strings.Contains(msg, "arg(s)") || strings.HasPrefix(msg, "unknown command") || strings.HasPrefix(msg, "unknown flag") {
		return exitUsage
	}
	return exitFindings
}
