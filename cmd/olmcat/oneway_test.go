package main

// One way in: every command reads every reference form of a catalog as the same catalog, and
// meets every bad input with the same exit code and the same first line.

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	_ "modernc.org/sqlite"

	"github.com/olmcat/olmcat/internal/imagetest"
)

// runWithStdin runs olmcat in-process with stdin.
func runWithStdin(t *testing.T, stdin []byte, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = execute(context.Background(), args, bytes.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

// referenceForm is one way to name the catalog under test.
type referenceForm struct {
	ref   string
	stdin []byte
}

// referenceForms names the kube-green catalog (opm's migrate output of its index.db) in every form
// a command accepts.
func referenceForms(t *testing.T) (dir string, forms map[string]referenceForm) {
	t.Helper()
	caseDir := corpus(t, "sqlite/kube-green-replaces")
	dir = filepath.Join(caseDir, "migrate")
	tmp := t.TempDir()
	file := filepath.Join(tmp, "catalog.json")
	data, err := os.ReadFile(filepath.Join(dir, "kube-green", "catalog.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, data, 0o644); err != nil {
		t.Fatal(err)
	}
	unpacked := filepath.Join(tmp, "unpacked")
	mustRun(t, "unpack", dir, unpacked)
	img := imagetest.FBCImage(t, dir)
	return dir, map[string]referenceForm{
		"dir":            {ref: dir},
		"file":           {ref: file},
		"stdin":          {ref: "-", stdin: data},
		"unpacked":       {ref: unpacked},
		"index.db":       {ref: filepath.Join(caseDir, "input.db")},
		"oci-layout":     {ref: imagetest.OCILayout(t, img)},
		"docker-archive": {ref: imagetest.DockerArchive(t, img)},
	}
}

// readingCommands run a command on a reference and return what must be the same for every form of
// the same catalog.
var readingCommands = map[string]func(t *testing.T, dir string, f referenceForm) string{
	"render": func(t *testing.T, _ string, f referenceForm) string {
		return mustRunWith(t, f.stdin, "render", f.ref)
	},
	"validate": func(t *testing.T, _ string, f referenceForm) string {
		var r struct {
			Passed bool `json:"passed"`
			Issues []struct{ Rule, Package, Channel, Bundle, Message string }
		}
		decode(t, mustRunWith(t, f.stdin, "validate", f.ref, "-o", "json"), &r)
		return fmt.Sprint(r.Passed, r.Issues)
	},
	"diff": func(t *testing.T, dir string, f referenceForm) string {
		var r struct{ Findings []json.RawMessage }
		decode(t, mustRunWith(t, f.stdin, "diff", dir, f.ref, "-o", "json", "--fail-on", "any"), &r)
		return fmt.Sprintf("%d findings", len(r.Findings))
	},
	"compat": func(t *testing.T, dir string, f referenceForm) string {
		code, out, errs := runWithStdin(t, f.stdin, "compat", dir, f.ref, "-o", "json")
		var r struct{ Verdict string }
		decode(t, out, &r)
		return fmt.Sprintf("exit %d, %s%s", code, r.Verdict, errs)
	},
	"migrate": func(t *testing.T, _ string, f referenceForm) string {
		out := filepath.Join(t.TempDir(), "out")
		mustRunWith(t, f.stdin, "migrate", f.ref, out)
		return mustRun(t, "render", out)
	},
	"migrate --to sqlite": func(t *testing.T, _ string, f referenceForm) string {
		out := filepath.Join(t.TempDir(), "index.db")
		mustRunWith(t, f.stdin, "migrate", f.ref, out, "--to", "sqlite")
		return mustRun(t, "render", out)
	},
	"serve": func(t *testing.T, dir string, f referenceForm) string {
		addr, stop := serveInProcess(t, f)
		defer stop()
		code, out, errs := runCLI(t, "compat", addr, dir, "-o", "json") // a bare HOST:PORT, as grpcurl users type it
		var r struct{ Verdict string }
		decode(t, out, &r)
		return fmt.Sprintf("exit %d, %s%s", code, r.Verdict, errs)
	},
	"inspect": func(t *testing.T, _ string, f referenceForm) string {
		return mustRunWith(t, f.stdin, "inspect", "package", f.ref, "kube-green", "-o", "json")
	},
	"graph": func(t *testing.T, _ string, f referenceForm) string {
		return mustRunWith(t, f.stdin, "graph", f.ref, "--package", "kube-green")
	},
}

func mustRunWith(t *testing.T, stdin []byte, args ...string) string {
	t.Helper()
	code, out, errs := runWithStdin(t, stdin, args...)
	if code != 0 {
		t.Fatalf("olmcat %s: exit %d\n%s", strings.Join(args, " "), code, errs)
	}
	return out
}

func decode(t *testing.T, s string, v any) {
	t.Helper()
	if err := json.Unmarshal([]byte(s), v); err != nil {
		t.Fatalf("not JSON (%v):\n%.500s", err, s)
	}
}

// serveInProcess runs `olmcat serve` on the form until stop, and returns its address once health
// reports SERVING.
func serveInProcess(t *testing.T, f referenceForm) (addr string, stop func()) {
	t.Helper()
	addr = freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan string, 1)
	go func() {
		var out, errb bytes.Buffer
		code := execute(ctx, []string{"serve", f.ref, "-p", addr, "-t", ""}, bytes.NewReader(f.stdin), &out, &errb)
		done <- fmt.Sprintf("exit %d: %s", code, errb.String())
	}()
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	for deadline := time.Now().Add(30 * time.Second); ; {
		select {
		case msg := <-done:
			t.Fatalf("serve %s ended before serving: %s", f.ref, msg)
		default:
		}
		r, err := healthpb.NewHealthClient(conn).Check(ctx, &healthpb.HealthCheckRequest{})
		if err == nil && r.Status == healthpb.HealthCheckResponse_SERVING {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve %s: not SERVING after 30 s (%v)", f.ref, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return addr, func() {
		cancel()
		if msg := <-done; !strings.HasPrefix(msg, "exit 0") {
			t.Errorf("serve %s after SIGTERM-like stop: %s", f.ref, msg)
		}
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	return lis.Addr().String()
}

func TestEveryCommandReadsEveryFormAlike(t *testing.T) {
	dir, forms := referenceForms(t)
	names := make([]string, 0, len(forms))
	for n := range forms {
		names = append(names, n)
	}
	sort.Strings(names)
	for cmdName, run := range readingCommands {
		t.Run(cmdName, func(t *testing.T) {
			want := run(t, dir, forms["dir"])
			if cmdName == "diff" && want != "0 findings" || (cmdName == "compat" || cmdName == "serve") && !strings.HasPrefix(want, "exit 0, equal") {
				t.Fatalf("the catalog against itself: %s", want)
			}
			for _, name := range names {
				if got := run(t, dir, forms[name]); got != want {
					t.Errorf("%s reads the %s form differently:\n got: %.300s\nwant: %.300s", cmdName, name, got, want)
				}
			}
		})
	}
}

// badInputs builds every kind of bad input.
func badInputs(t *testing.T) map[string]string {
	t.Helper()
	tmp := t.TempDir()
	db := corpus(t, "sqlite/real-foo-index-v0.2.0/input.db")
	full, err := os.ReadFile(db)
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		p := filepath.Join(tmp, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	sqlExec := func(path, stmt string) string {
		h, err := sql.Open("sqlite", path)
		if err != nil {
			t.Fatal(err)
		}
		defer h.Close()
		if _, err := h.Exec(stmt); err != nil {
			t.Fatal(err)
		}
		return path
	}
	empty := filepath.Join(tmp, "empty")
	if err := os.Mkdir(empty, 0o755); err != nil {
		t.Fatal(err)
	}
	return map[string]string{
		"missing path":            filepath.Join(tmp, "no-such-catalog"),
		"empty dir":               empty,
		"README-only dir":         filepath.Dir(write("readme/README.md", []byte("# Catalog\n\nThe operators we ship.\n"))),
		"text file as db":         write("text/index.db", []byte("this is not a database\n")),
		"truncated db":            write("truncated.db", full[:len(full)/3]),
		"db with a dropped table": sqlExec(write("dropped.db", full), `DROP TABLE channel_entry`),
		"unknown schema version":  sqlExec(write("future.db", full), `UPDATE schema_migrations SET version = 99`),
		"image without the catalog label": imagetest.OCILayout(t, imagetest.Image(t,
			map[string][]byte{"configs/foo/catalog.json": []byte(`{"schema":"olm.package","name":"foo"}`)}, nil)),
		"corrupt layer": imagetest.OCILayout(t, imagetest.CorruptLayerImage(t)),
	}
}

// commandsOn are the reading commands, each given one catalog reference.
func commandsOn(t *testing.T, good, ref string) map[string][]string {
	out := func(name string) string { return filepath.Join(t.TempDir(), name) }
	return map[string][]string{
		"render":              {"render", ref},
		"validate":            {"validate", ref},
		"diff (new side)":     {"diff", good, ref},
		"diff (old side)":     {"diff", ref, good},
		"compat":              {"compat", ref, good},
		"migrate":             {"migrate", ref, out("fbc")},
		"migrate --to sqlite": {"migrate", ref, out("index.db"), "--to", "sqlite"},
		"serve":               {"serve", ref, "-p", freeAddr(t), "-t", ""},
		"inspect":             {"inspect", "packages", ref},
		"graph":               {"graph", ref, "--package", "foo"},
		"unpack":              {"unpack", ref, out("unpacked")},
		"deprecate":           {"deprecate", ref, "--package", "foo", "--message", "m", "--output-dir", out("edited")},
	}
}

func TestEveryCommandMeetsBadInputsAlike(t *testing.T) {
	good := filepath.Join(corpus(t, "sqlite/real-foo-index-v0.2.0"), "migrate")
	for name, ref := range badInputs(t) {
		t.Run(name, func(t *testing.T) {
			firstLines := map[string][]string{}
			for cmdName, args := range commandsOn(t, good, ref) {
				code, stdout, stderr := runCLI(t, args...)
				if strings.Contains(stdout+stderr, "panic") || strings.Contains(stdout+stderr, "goroutine ") {
					t.Errorf("%s: panicked:\n%s%s", cmdName, stdout, stderr)
				}
				if code != exitUsage {
					t.Errorf("%s: exit %d, want %d\n%s", cmdName, code, exitUsage, stderr)
				}
				first, _, _ := strings.Cut(stderr, "\n")
				firstLines[first] = append(firstLines[first], cmdName)
			}
			if len(firstLines) != 1 {
				t.Errorf("the same input gets %d different first lines:\n%s", len(firstLines), describe(firstLines))
			}
			for line := range firstLines {
				if !strings.HasPrefix(line, "olmcat: "+ref+": ") {
					t.Errorf("first line does not name the input: %q", line)
				}
			}
		})
	}
}

func describe(lines map[string][]string) string {
	var b strings.Builder
	for l, cmds := range lines {
		sort.Strings(cmds)
		fmt.Fprintf(&b, "  %q from %s\n", l, strings.Join(cmds, ", "))
	}
	return b.String()
}

// No command writes over its input, --force or not, and all say so alike.
func TestNoOutputOverAnInput(t *testing.T) {
	src := corpus(t, "sqlite/real-foo-index-v0.2.0")
	tmp := t.TempDir()
	db := filepath.Join(tmp, "same.db")
	data, err := os.ReadFile(filepath.Join(src, "input.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(db, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cat := copyTree(t, filepath.Join(src, "migrate"))
	cases := map[string][]string{
		"migrate db db":               {"migrate", db, db, "--force"},
		"migrate dir dir --to sqlite": {"migrate", cat, cat, "--to", "sqlite", "--force"},
		"migrate dir dir/index.db":    {"migrate", cat, filepath.Join(cat, "index.db"), "--to", "sqlite"},
		"migrate --report over input": {"migrate", db, filepath.Join(tmp, "out"), "--report", db},
		"unpack dir dir":              {"unpack", cat, cat, "--force"},
		"deprecate --output-dir dir":  {"deprecate", cat, "--package", "foo", "--message", "m", "--output-dir", cat, "--force"},
		"rm --output-db db":           {"rm", db, "foo.v0.2.0", "--output-db", db, "--force"},
	}
	for name, args := range cases {
		code, _, stderr := runCLI(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "output overlaps an input") || !strings.Contains(stderr, "--force never lets olmcat overwrite an input") {
			t.Errorf("%s: exit %d, stderr %q", name, code, stderr)
		}
	}
	if now, _ := os.ReadFile(db); !bytes.Equal(now, data) {
		t.Error("the input index.db changed")
	}
	if a, b := concatenated(t, filepath.Join(src, "migrate"), ".json"), concatenated(t, cat, ".json"); a != b {
		t.Error("the input catalog changed")
	}
}

func TestServeRefusesAPortInUse(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer lis.Close()
	good := filepath.Join(corpus(t, "sqlite/real-foo-index-v0.2.0"), "migrate")
	code, _, stderr := runCLI(t, "serve", good, "-p", lis.Addr().String(), "-t", "")
	if code != exitUsage || !strings.Contains(stderr, "address already in use") || !strings.Contains(stderr, "choose another port with -p") {
		t.Errorf("port in use: exit %d, stderr %q", code, stderr)
	}
}

// An unpacked catalog reads back as the catalog it was unpacked from in every command: render
// prints the same stream, diff finds nothing, compat finds every answer equal, and migrate --to
// sqlite loses exactly what it loses from the original (no olm.bundle.object ref lost).
func TestUnpackedCatalogRoundTrips(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(corpus(t, "fbc"), "*", "catalog"))
	dirs = append(dirs, filepath.Join(corpus(t, "sqlite/kube-green-replaces"), "migrate"))
	for _, dir := range dirs {
		t.Run(filepath.Base(filepath.Dir(dir)), func(t *testing.T) {
			tmp := t.TempDir()
			unpacked := filepath.Join(tmp, "unpacked")
			mustRun(t, "unpack", dir, unpacked)
			if a, b := mustRun(t, "render", dir), mustRun(t, "render", unpacked); a != b {
				t.Errorf("render differs")
			}
			var d struct{ Findings []json.RawMessage }
			decode(t, mustRun(t, "diff", dir, unpacked, "-o", "json", "--fail-on", "any"), &d)
			if len(d.Findings) != 0 {
				t.Errorf("diff: %d findings", len(d.Findings))
			}
			code, out, errs := runCLI(t, "compat", dir, unpacked)
			if code != 0 || !strings.Contains(out, "EQUAL") {
				t.Errorf("compat: exit %d\n%s%s", code, out, errs)
			}
			losses := func(catalog, name string) string {
				report := filepath.Join(tmp, name+".json")
				runCLI(t, "migrate", catalog, filepath.Join(tmp, name+".db"), "--to", "sqlite", "--report", report, "--permissive")
				var r struct {
					Losses []struct{ Kind, Package, Channel, Bundle string }
				}
				decode(t, string(mustReadFile(t, report)), &r)
				return fmt.Sprint(r.Losses)
			}
			if a, b := losses(dir, "original"), losses(unpacked, "unpacked"); a != b {
				t.Errorf("migrate --to sqlite loses different things from the unpacked catalog:\n original: %.400s\n unpacked: %.400s", a, b)
			}
		})
	}
}

func mustReadFile(t *testing.T, p string) []byte {
	t.Helper()
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
