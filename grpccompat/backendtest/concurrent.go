package backendtest

import (
	"sync"
	"testing"

	"github.com/olmcat/olmcat/grpccompat/api"
)

// concurrentUse runs lookups and listings from several goroutines at once (run with -race) and
// checks that they agree with the sequential answers.
func concurrentUse(t *testing.T, s *snapshot) {
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i, r := range s.rows {
				if (i+w)%4 != 0 {
					continue
				}
				got, err := s.b.GetBundle(s.ctx, r.PackageName, r.ChannelName, r.CsvName)
				if err != nil || got.CsvName != r.CsvName {
					errs <- "concurrent GetBundle(" + r.CsvName + ") failed or disagreed"
					return
				}
			}
			n := 0
			if err := s.b.ListBundles(s.ctx, func(*api.Bundle) error { n++; return nil }); err != nil || n != len(s.rows) {
				errs <- "concurrent ListBundles failed or sent a different number of bundles"
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
