package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/internal/atomicout"
)

// jsonReport is a conversion report that writes itself as JSON.
type jsonReport interface{ WriteJSON(io.Writer) error }

// reportOutput is a --report destination, prepared before the work starts (so that a report that
// cannot be written fails the command before anything is done), written before the command's
// output is committed, and moved into place after it.
type reportOutput struct {
	path   string
	stdout io.Writer
	target *atomicout.Target // a regular file, replaced atomically; nil otherwise
	device bool              // an existing special file (/dev/stdout, a pipe): written in place
}

func openReport(cmd *cobra.Command, path string, force bool) (*reportOutput, error) {
	r := &reportOutput{path: path, stdout: cmd.OutOrStdout()}
	if path == "" || path == "-" {
		return r, nil
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		r.device = true
		return r, nil
	}
	t, err := atomicout.File(path, true)
	if err != nil {
		return nil, outputError{fmt.Errorf("--report: %w", err)}
	}
	r.target = t
	return r, nil
}

// write writes the report: to standard output or a special file at once, else to the temporary
// file that commit moves into place.
func (r *reportOutput) write(rep jsonReport) error {
	switch {
	case r.path == "":
		return nil
	case r.path == "-":
		return rep.WriteJSON(r.stdout)
	case r.device:
		f, err := os.OpenFile(r.path, os.O_WRONLY, 0)
		if err != nil {
			return outputError{fmt.Errorf("write report %s: %w", r.path, err)}
		}
		err = rep.WriteJSON(f)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return outputError{fmt.Errorf("write report %s: %w", r.path, err)}
		}
		return nil
	}
	f, err := os.Create(r.target.Path())
	if err != nil {
		return outputError{fmt.Errorf("--report: %w", r.target.Err(err))}
	}
	err = rep.WriteJSON(f)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return outputError{fmt.Errorf("--report: %w", r.target.Err(err))}
	}
	return nil
}

func (r *reportOutput) commit() error {
	if r.target == nil {
		return nil
	}
	if err := r.target.Commit(); err != nil {
		return outputError{fmt.Errorf("--report: %w", err)}
	}
	return nil
}

func (r *reportOutput) abort() {
	if r.target != nil {
		r.target.Abort()
	}
}
