package main

import (
	"errors"
	"fmt"
	"sync"

	"github.com/spf13/cobra"

	"github.com/olmcat/olmcat/grpccompat/compat"
)

// runCompatHTTP is `olmcat compat --http`: the two sides' catalogd APIs, blob for blob.
func runCompatHTTP(cmd *cobra.Command, leftSpec, rightSpec string, f compatFlags) error {
	if f.planFile != "" || f.savePlan != "" || f.sample > 0 {
		return usageError{errors.New("--plan, --save-plan and --sample are for the gRPC comparison, not --http")}
	}
	if leftSpec == "-" && rightSpec == "-" {
		return usageError{errTwoStdin}
	}
	p := startProgress(cmd)
	p.Phase("opening both sides")
	open := compat.OpenOptions{
		Dial:   compat.DialOptions{Timeout: f.timeout},
		Source: f.sourceOptions(cmd),
	}
	ctx := cmd.Context()
	var (
		wg    sync.WaitGroup
		sides [2]compat.HTTPTarget
		errs  [2]error
	)
	for i, spec := range []string{leftSpec, rightSpec} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sides[i], errs[i] = compat.OpenHTTPTarget(ctx, spec, open)
		}()
	}
	wg.Wait()
	for _, s := range sides {
		if s != nil {
			defer s.Close()
		}
	}
	if err := errors.Join(errs[0], errs[1]); err != nil {
		return usageError{err}
	}
	p.Phase("comparing")
	report, err := compat.CheckHTTP(ctx, sides[0], sides[1], compat.HTTPOptions{
		Concurrency: f.concurrency, MaxDetails: f.maxDetails, Timeout: f.timeout})
	p.Close()
	if err != nil {
		return exitError{code: exitUsage, err: fmt.Errorf("the comparison could not be completed: %w", err)}
	}
	if err := report.Write(cmd.OutOrStdout(), f.output); err != nil {
		return err
	}
	switch {
	case len(report.Failed) > 0:
		return exitError{code: exitUsage, err: fmt.Errorf("%d metas queries could not be compared (see the report)", len(report.Failed))}
	case !report.Equal():
		return exitError{code: exitFindings}
	}
	return nil
}
