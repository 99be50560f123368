package bundlefetch

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/template"
)

// RenderEach gives the bundles RenderBundles gives, in the order of refs, pulls with at most
// Parallel requests in flight, and counts them as RenderBundles does; a bundle an earlier call
// rendered is not pulled again.
func TestRenderEachInOrderAndBounded(t *testing.T) {
	reg, images := corpusRegistry(t)
	reg.Delay = 10 * time.Millisecond
	refs := refsOf(images)
	want, err := newFetcher(t, Options{}).RenderBundles(context.Background(), refs)
	if err != nil {
		t.Fatal(err)
	}
	for _, parallel := range []int{1, 3} {
		reg.Reset()
		f := newFetcher(t, Options{Parallel: parallel})
		if _, err := f.RenderBundles(context.Background(), refs[:1]); err != nil {
			t.Fatal(err)
		}
		var got []fbc.Bundle
		err := f.RenderEach(context.Background(), refs, func(i int, b fbc.Bundle) error {
			if i != len(got) {
				t.Errorf("parallel %d: bundle %d given after %d bundles", parallel, i, len(got))
			}
			got = append(got, b)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("parallel %d: RenderEach's bundles differ from RenderBundles'", parallel)
		}
		if max := reg.MaxInFlight(); max > parallel {
			t.Errorf("parallel %d: %d requests in flight at once", parallel, max)
		}
		if n := reg.Count("GET", "manifests"); n != len(refs) {
			t.Errorf("parallel %d: %d manifest GETs for %d refs, one of them rendered before", parallel, n, len(refs))
		}
		if s := f.Stats(); s.Pulled != len(refs) || s.Reused != 1 {
			t.Errorf("parallel %d: stats %+v, want %d pulled and 1 reused", parallel, s, len(refs))
		}
	}
}

// The first error in the order of refs stops RenderEach: the bundles before it have been given,
// none after; an error of fn stops it too.
func TestRenderEachStopsAtFirstError(t *testing.T) {
	reg, images := corpusRegistry(t)
	refs := refsOf(images)
	missing := reg.Host + "/no-such-bundle:v1"
	withMissing := append(append(refs[:2:2], missing), refs[2:]...)
	var given []int
	err := newFetcher(t, Options{Parallel: 4}).RenderEach(context.Background(), withMissing, func(i int, _ fbc.Bundle) error {
		given = append(given, i)
		return nil
	})
	var ie *template.ImageError
	if !errors.As(err, &ie) || ie.Ref != missing {
		t.Fatalf("error %v, want an ImageError for %s", err, missing)
	}
	if !reflect.DeepEqual(given, []int{0, 1}) {
		t.Errorf("bundles %v given, want 0 and 1", given)
	}
	stop := errors.New("stop")
	calls := 0
	err = newFetcher(t, Options{}).RenderEach(context.Background(), refs, func(int, fbc.Bundle) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("fn's error: %v after %d calls", err, calls)
	}
}
