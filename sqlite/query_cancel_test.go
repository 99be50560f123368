package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/fixtures/generate"
	"github.com/olmcat/olmcat/grpccompat/api"
	"github.com/olmcat/olmcat/sqlite"
)

// cancelCatalog writes a generated catalog as an index.db.
func cancelCatalog(t *testing.T, o generate.Options) string {
	t.Helper()
	db := filepath.Join(t.TempDir(), "index.db")
	if _, err := convert.ToSQLite(context.Background(), generate.Catalog(o), db, convert.ToSQLiteOptions{}); err != nil {
		t.Fatal(err)
	}
	return db
}

func listBundles(t *testing.T, q *sqlite.Querier) []*api.Bundle {
	t.Helper()
	var out []*api.Bundle
	if err := q.ListBundles(context.Background(), func(b *api.Bundle) error {
		out = append(out, b)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

// While the first ListBundles reads the stream from the database, a caller whose client has gone
// away (its context cancelled before or while it waits) gives up with context.Canceled without
// waiting for the read; the first caller's own client going away does not stop the read, which is
// done once and serves a later caller the whole stream.
func TestListBundlesWaiterGivesUpWhenCancelled(t *testing.T) {
	o := generate.Options{Packages: 6, BundlesPerPackage: 8, SkipEvery: 3, Seed: 5}
	db := cancelCatalog(t, o)
	ref, err := sqlite.NewQuerier(db)
	if err != nil {
		t.Fatal(err)
	}
	want := listBundles(t, ref)
	if err := ref.Close(); err != nil {
		t.Fatal(err)
	}
	if len(want) < o.Packages*o.BundlesPerPackage {
		t.Fatalf("%d bundles listed from %d packages of %d bundles", len(want), o.Packages, o.BundlesPerPackage)
	}

	started, release := make(chan struct{}), make(chan struct{})
	var reads atomic.Int32
	defer sqlite.SetListReadStarted(func() {
		if reads.Add(1) == 1 {
			close(started)
			<-release // the first read is held until the waiters have been tried
		}
	})()
	q, err := sqlite.NewQuerier(db)
	if err != nil {
		t.Fatal(err)
	}
	defer q.Close()

	// waitFor is a guard against a hang, not a measure: the read stays held until it returns.
	waitFor := func(what string, got <-chan error) error {
		t.Helper()
		select {
		case err := <-got:
			return err
		case <-time.After(time.Minute):
			close(release)
			t.Fatalf("%s is still waiting for the held first read", what)
			return nil
		}
	}
	call := func(ctx context.Context) <-chan error {
		got := make(chan error, 1)
		go func() {
			got <- q.ListBundles(ctx, func(*api.Bundle) error { return errors.New("a bundle was sent") })
		}()
		return got
	}

	firstCtx, cancelFirst := context.WithCancel(context.Background())
	first := call(firstCtx)
	<-started

	before, cancelBefore := context.WithCancel(context.Background())
	cancelBefore()
	if err := waitFor("a caller cancelled before it called", call(before)); !errors.Is(err, context.Canceled) {
		t.Fatalf("caller cancelled before it called: %v, want context.Canceled", err)
	}
	during, cancelDuring := context.WithCancel(context.Background())
	got := call(during)
	cancelDuring()
	if err := waitFor("a caller cancelled while it waited", got); !errors.Is(err, context.Canceled) {
		t.Fatalf("caller cancelled while it waited: %v, want context.Canceled", err)
	}
	cancelFirst()
	if err := waitFor("the first caller, cancelled", first); !errors.Is(err, context.Canceled) {
		t.Fatalf("first caller, cancelled: %v, want context.Canceled", err)
	}

	close(release)
	out := listBundles(t, q)
	if len(out) != len(want) {
		t.Fatalf("after the held read: %d bundles, want %d", len(out), len(want))
	}
	for i := range want {
		if !proto.Equal(out[i], want[i]) {
			t.Fatalf("after the held read, bundle %d is %v, want %v", i, out[i], want[i])
		}
	}
	if n := reads.Load(); n != 1 {
		t.Fatalf("the stream was read %d times, want once (the first caller's read went on without it)", n)
	}
}

// Closing the querier while the stream is being read (its first caller gone) waits for the read
// and gives back what it held; ListBundles then fails with a message, never a panic.
func TestListBundlesCloseDuringRead(t *testing.T) {
	db := cancelCatalog(t, generate.Options{Packages: 3, BundlesPerPackage: 4, Seed: 9})
	started, release := make(chan struct{}), make(chan struct{})
	defer sqlite.SetListReadStarted(func() {
		close(started)
		<-release
	})()
	q, err := sqlite.NewQuerier(db)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	first := make(chan error, 1)
	go func() { first <- q.ListBundles(ctx, func(*api.Bundle) error { return nil }) }()
	<-started
	cancel()
	if err := <-first; !errors.Is(err, context.Canceled) {
		t.Fatalf("first caller, cancelled: %v, want context.Canceled", err)
	}
	closed := make(chan error, 1)
	go func() { closed <- q.Close() }()
	close(release)
	if err := <-closed; err != nil {
		t.Fatalf("Close during the read: %v", err)
	}
	err = q.ListBundles(context.Background(), func(*api.Bundle) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("ListBundles after Close: %v, want an error saying the index is closed", err)
	}
}
