//go:build unix

package indeximage_test

import (
	"archive/tar"
	"bufio"
	"compress/gzip"
	"context"
	"io"
	"log"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

	"github.com/olmcat/olmcat/convert"
	"github.com/olmcat/olmcat/internal/indeximage"
	"github.com/olmcat/olmcat/internal/source"
)

const s5kBench = "../../../shared/bench/s5k/index.db.gz"

// s5kDB gunzips the 5,000-bundle benchmark index into dir.
func s5kDB(dir string) (string, error) {
	src, err := os.Open(s5kBench)
	if err != nil {
		return "", err
	}
	defer src.Close()
	zr, err := gzip.NewReader(src)
	if err != nil {
		return "", err
	}
	db := filepath.Join(dir, "index.db")
	f, err := os.Create(db)
	if err != nil {
		return "", err
	}
	if _, err := io.Copy(f, zr); err != nil {
		f.Close()
		return "", err
	}
	return db, f.Close()
}

// databaseLayer streams db as a layer holding /database/index.db.
func databaseLayer(db string) (v1.Layer, error) {
	fi, err := os.Stat(db)
	if err != nil {
		return nil, err
	}
	return tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		pr, pw := io.Pipe()
		go func() {
			tw := tar.NewWriter(pw)
			f, err := os.Open(db)
			if err == nil {
				defer f.Close()
				err = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: "database/", Mode: 0o755})
			}
			if err == nil {
				err = tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "database/index.db", Mode: 0o644, Size: fi.Size()})
			}
			if err == nil {
				_, err = io.Copy(tw, f)
			}
			if err == nil {
				err = tw.Close()
			}
			pw.CloseWithError(err)
		}()
		return pr, nil
	}, tarball.WithCompressedCaching)
}

// serveS5KImage pushes an index image holding the s5k index.db to a loopback registry in this
// process and returns its reference. The benchmarks run it in a child process
// (startRegistryProcess) so that the registry's memory is not counted in the client's peak RSS.
func serveS5KImage(dir string) (string, func(), error) {
	db, err := s5kDB(dir)
	if err != nil {
		return "", nil, err
	}
	defer os.Remove(db)
	layer, err := databaseLayer(db)
	if err != nil {
		return "", nil, err
	}
	img, err := mutate.AppendLayers(empty.Image, layer)
	if err != nil {
		return "", nil, err
	}
	if img, err = mutate.Config(img, indexConfig()); err != nil {
		return "", nil, err
	}
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	ref := strings.TrimPrefix(srv.URL, "http://") + "/bench/s5k-index:v1"
	r, _ := name.ParseReference(ref)
	if err := remote.Write(r, img); err != nil {
		srv.Close()
		return "", nil, err
	}
	return ref, srv.Close, nil
}

func peakRSSMB() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Maxrss) / 1024
}

func migrate(b *testing.B, db, out string) {
	sum, err := convert.MigratePath(context.Background(), db, out, convert.MigrateOptions{Force: true}, source.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if sum.Bundles != 5000 {
		b.Fatalf("converted %d bundles, want 5000", sum.Bundles)
	}
}

// BenchmarkMigrateS5KFromFile is the baseline: index.db on disk -> FBC. Run each benchmark in its
// own process (-bench with one name) for a meaningful peak-RSS-MB.
func BenchmarkMigrateS5KFromFile(b *testing.B) {
	dir := b.TempDir()
	db, err := s5kDB(dir)
	if err != nil {
		b.Skipf("benchmark index %s: %v", s5kBench, err)
	}
	b.ResetTimer()
	for b.Loop() {
		migrate(b, db, filepath.Join(dir, "out"))
	}
	b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
}

// BenchmarkMigrateS5KFromImage is the same index pulled from a loopback registry first: resolve,
// stream the database layer into a temp file, verify it, migrate, clean up.
func BenchmarkMigrateS5KFromImage(b *testing.B) {
	dir := b.TempDir()
	ref := startRegistryProcess(b)
	b.ResetTimer()
	for b.Loop() {
		cat, err := indeximage.Fetch(context.Background(), ref, indeximage.Options{TempDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		migrate(b, cat.Path, filepath.Join(dir, "out"))
		cat.Cleanup()
	}
	b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
}

// BenchmarkFetchS5K is the image part alone.
func BenchmarkFetchS5K(b *testing.B) {
	dir := b.TempDir()
	ref := startRegistryProcess(b)
	b.ResetTimer()
	for b.Loop() {
		cat, err := indeximage.Fetch(context.Background(), ref, indeximage.Options{TempDir: dir})
		if err != nil {
			b.Fatal(err)
		}
		cat.Cleanup()
	}
	b.ReportMetric(peakRSSMB(), "peak-RSS-MB")
}

func indexConfig() v1.Config {
	return v1.Config{
		Labels:     map[string]string{indeximage.DatabaseLabel: "/database/index.db"},
		Entrypoint: []string{"/bin/opm"},
		Cmd:        []string{"registry", "serve", "--database", "/database/index.db"},
	}
}

const registryChildEnv = "OLMCAT_BENCH_REGISTRY_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(registryChildEnv) != "" {
		serveRegistryChild()
		return
	}
	os.Exit(m.Run())
}

// serveRegistryChild runs in a child process: it pushes the s5k image to a loopback registry,
// prints the reference, and serves until its stdin closes.
func serveRegistryChild() {
	dir, err := os.MkdirTemp("", "olmcat-bench-registry-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ref, stop, err := serveS5KImage(dir)
	if err != nil {
		log.Fatal(err)
	}
	defer stop()
	os.Stdout.WriteString(ref + "\n")
	io.Copy(io.Discard, os.Stdin)
}

// startRegistryProcess starts the registry child and returns the image reference it serves.
func startRegistryProcess(b *testing.B) string {
	if _, err := os.Stat(s5kBench); err != nil {
		b.Skipf("benchmark index not found at %s: %v", s5kBench, err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), registryChildEnv+"=1")
	cmd.Stderr = os.Stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		stdin.Close()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		b.Fatalf("registry child: %v", err)
	}
	return strings.TrimSpace(line)
}
