package main

// Every example in README.md runs. TestReadmeExamples reads the README's sh blocks and runs each
// `olmcat ...` line in-process, in a fresh sandbox that holds every file the examples name, with
// the network replaced by loopback peers: a registry for quay.io references and the README's own
// serve examples for its grpc:// servers.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	"github.com/google/go-containerregistry/pkg/registry"
	"github.com/google/go-containerregistry/pkg/v1/remote"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/olmcat/olmcat/internal/imagetest"
)

const (
	readmeFile = "../../README.md"
	// readmeRegistry is the registry the README's image references name; the test serves them from
	// a loopback registry instead.
	readmeRegistry = "quay.io"
	// readmeIndexImage is the index image the README reads; the loopback registry holds
	// fixtures/index.db under this name.
	readmeIndexImage = "ns/index:v4.12"
	// readmeTemplateIndexImage is the index image the README compares a template with: the same
	// index.db.
	readmeTemplateIndexImage = "ns/index:v4.18"
	// readmeBundleImage is the bundle image the README reads: testdata/readme/bundle-dir.
	readmeBundleImage = "ns/operator-000-bundle:v1.0.4"
	// readmeCatalogImage is the catalog image generate kube reads: fixtures/catalog served by olmcat.
	readmeCatalogImage = "me/catalog:v1"
	// readmeOPMBase is the opm base image build builds on: a fake multi-arch opm image.
	readmeOPMBase = "operator-framework/opm:v1.50.0"
)

// readmeExample is one `olmcat ...` line of a sh block of the README.
type readmeExample struct {
	line   int      // line number in README.md
	text   string   // the command as written, without its comment
	args   []string // the words after "olmcat"
	stdout string   // "> FILE": where standard output goes ("" discards it)
	head   int      // "| head": lines the reader takes before it goes away (0: no pipe)
	want   int      // exit code: 0, or the one its comment documents ("# ... exit 1 ...")
}

func (ex readmeExample) String() string { return fmt.Sprintf("README.md:%d: %s", ex.line, ex.text) }

var (
	inlineOlmcat   = regexp.MustCompile("`olmcat ([^`]+)`")
	documentedExit = regexp.MustCompile(`\bexit (\d+)\b`)
)

// readmeExamples returns the README's example lines and, for the command check, the words of every
// `olmcat ...` the README names, in prose or in a code block.
func readmeExamples(t *testing.T) (examples []readmeExample, mentions [][]string) {
	t.Helper()
	data, err := os.ReadFile(readmeFile)
	if err != nil {
		t.Fatal(err)
	}
	inBlock, isSh := false, false
	pending, pendingLine := "", 0 // a line continued with a trailing backslash
	for i, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			inBlock, isSh = !inBlock, !inBlock && trimmed == "```sh"
			continue
		}
		if !inBlock {
			for _, m := range inlineOlmcat.FindAllStringSubmatch(line, -1) {
				mentions = append(mentions, strings.Fields(m[1]))
			}
			continue
		}
		if !isSh {
			continue
		}
		if pending == "" {
			pendingLine = i + 1
		}
		if s, ok := strings.CutSuffix(line, "\\"); ok {
			pending += s + " "
			continue
		}
		line, pending = pending+line, ""
		if !strings.HasPrefix(line, "olmcat ") {
			continue
		}
		ex, err := parseExample(line)
		if err != nil {
			t.Errorf("README.md:%d: %s: %v", pendingLine, line, err)
			continue
		}
		ex.line = pendingLine
		examples = append(examples, ex)
		mentions = append(mentions, ex.args)
	}
	if len(examples) < 10 {
		t.Fatalf("found only %d olmcat examples in %s's sh blocks", len(examples), readmeFile)
	}
	return examples, mentions
}

// parseExample reads one shell line: the olmcat command, its comment (which may document the exit
// code), a "> FILE" redirection and a "| head" pipe.
func parseExample(line string) (readmeExample, error) {
	words, commentAt, err := shellWords(line)
	if err != nil {
		return readmeExample{}, err
	}
	ex := readmeExample{text: strings.TrimSpace(line[:commentAt])}
	comment := line[commentAt:]
	if m := documentedExit.FindStringSubmatch(comment); m != nil {
		ex.want, _ = strconv.Atoi(m[1])
	}
	for i := 1; i < len(words); i++ {
		w := words[i]
		if !w.op {
			if ex.stdout != "" || ex.head != 0 {
				return ex, fmt.Errorf("word %q after a redirection or pipe", w.text)
			}
			ex.args = append(ex.args, w.text)
			continue
		}
		switch {
		case w.text == ">" && i+1 < len(words) && !words[i+1].op:
			ex.stdout = words[i+1].text
			i++
		case w.text == "|":
			n, ok := headLines(words[i+1:])
			if !ok {
				return ex, errors.New("the only pipe the test runs is | head [-n N]")
			}
			ex.head, i = n, len(words)
		default:
			return ex, fmt.Errorf("shell operator %q is not supported by the README test", w.text)
		}
	}
	return ex, nil
}

// headLines reads `head`, `head -n N` or `head -N`.
func headLines(words []shellWord) (int, bool) {
	var s []string
	for _, w := range words {
		if w.op {
			return 0, false
		}
		s = append(s, w.text)
	}
	switch {
	case len(s) == 1 && s[0] == "head":
		return 10, true
	case len(s) == 3 && s[0] == "head" && s[1] == "-n":
		n, err := strconv.Atoi(s[2])
		return n, err == nil && n > 0
	case len(s) == 2 && s[0] == "head" && strings.HasPrefix(s[1], "-"):
		n, err := strconv.Atoi(s[1][1:])
		return n, err == nil && n > 0
	}
	return 0, false
}

type shellWord struct {
	text string
	op   bool // an unquoted shell operator: | > < ; &
}

// shellWords splits a line as sh does for the plain commands of a README: quotes, backslashes,
// operators and a trailing # comment, which starts at commentAt (len(s) when there is none);
// expansions are refused.
func shellWords(s string) (words []shellWord, commentAt int, err error) {
	var cur strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, shellWord{text: cur.String()})
			cur.Reset()
			inWord = false
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !inWord:
			return words, i, nil
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, 0, errors.New("unterminated single quote")
			}
			cur.WriteString(s[i+1 : i+1+j])
			inWord, i = true, i+1+j
		case c == '"':
			inWord = true
			for i++; ; i++ {
				if i >= len(s) {
					return nil, 0, errors.New("unterminated double quote")
				}
				if s[i] == '"' {
					break
				}
				if s[i] == '$' || s[i] == '`' {
					return nil, 0, fmt.Errorf("expansion %q is not supported by the README test", s[i:])
				}
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\", s[i+1]) >= 0 {
					i++
				}
				cur.WriteByte(s[i])
			}
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			inWord = true
		case strings.IndexByte("|><;&", c) >= 0:
			flush()
			words = append(words, shellWord{text: string(c), op: true})
		case strings.IndexByte("$`*?", c) >= 0 || c == '~' && !inWord:
			return nil, 0, fmt.Errorf("expansion %q is not supported by the README test", s[i:])
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	flush()
	return words, len(s), nil
}

// findCommand resolves the words after "olmcat" to a command, as cobra will when it runs them, and
// returns how many of the words name it.
func findCommand(args []string) (*cobra.Command, int, error) {
	root := newRootCmd()
	cmd, rest, err := root.Find(args)
	if err != nil {
		return nil, 0, err
	}
	if cmd == root {
		return nil, 0, errors.New("names no subcommand")
	}
	if !cmd.Runnable() && len(rest) > 0 && !strings.HasPrefix(rest[0], "-") {
		return nil, 0, fmt.Errorf("%q has no subcommand %q", cmd.CommandPath(), rest[0])
	}
	depth := len(strings.Fields(cmd.CommandPath())) - 1
	for i := range depth {
		if i >= len(args) || strings.HasPrefix(args[i], "-") {
			return nil, 0, errors.New("flags before the subcommand are not supported by the README test")
		}
	}
	return cmd, depth, nil
}

// lookupFlag finds the flag a word ("--name", "--name=value", "-n") names on cmd.
func lookupFlag(cmd *cobra.Command, word string) (f *pflag.Flag, value string, hasValue bool) {
	cmd.InitDefaultHelpFlag()
	name, value, hasValue := strings.Cut(strings.TrimLeft(word, "-"), "=")
	for _, fs := range []*pflag.FlagSet{cmd.Flags(), cmd.InheritedFlags()} {
		// health-probe takes grpc_health_probe's single-dash long flags (-addr=:50051).
		if strings.HasPrefix(word, "--") || cmd.DisableFlagParsing && len(name) > 1 {
			f = fs.Lookup(name)
		} else if len(name) == 1 {
			f = fs.ShorthandLookup(name)
		}
		if f != nil {
			return f, value, hasValue
		}
	}
	return nil, "", false
}

// readmeSandbox builds the directory every example starts from (each gets its own copy):
//
//	index.db, old.db fixtures/index.db
//	catalog/         what `olmcat migrate index.db catalog/` writes, as in the README: the FBC that
//	                 answers like index.db (fixtures/catalog holds more than an index.db can)
//	templates/       what `olmcat migrate index.db templates/ --to semver-template` writes
//	old/             fixtures/catalog
//	bundle-dir/      operator-000 v1.0.4 for the stable channel (testdata/readme/bundle-dir)
//	new/             old/ with operator-000.v1.0.4 added to stable and operator-001.v1.0.3, the
//	                 head of its channels, pulled: a pull request that strands users
//	catalogs/        a git work tree holding new/, whose origin/main holds old/
//
// git is false when git is not installed (the examples that need it are then skipped).
func readmeSandbox(t *testing.T) (dir string, git bool) {
	t.Helper()
	dir = t.TempDir()
	at := func(n string) string { return filepath.Join(dir, n) }
	copyDir(t, "../../fixtures/catalog", at("old"))
	copyDir(t, "testdata/readme/bundle-dir", at("bundle-dir"))
	isc, err := os.ReadFile("testdata/readme/imageset-config.yaml") // the README's "Mirroring a subset"
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(at("imageset-config.yaml"), isc, 0o644); err != nil {
		t.Fatal(err)
	}
	db, err := os.ReadFile("../../fixtures/index.db")
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"index.db", "old.db"} {
		if err := os.WriteFile(at(n), db, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, "migrate", at("index.db"), at("catalog"))
	mustRun(t, "migrate", at("index.db"), at("templates"), "--to", "semver-template")
	// fbc-layout: the FBC index image of the catalog as an OCI layout (the README pushes it).
	copyDir(t, strings.TrimPrefix(imagetest.OCILayout(t, imagetest.FBCImage(t, at("catalog"))), "oci-layout:"), at("fbc-layout"))
	// olmcat-base: an olmcat base index for four platforms, as make image writes it (build uses it).
	copyDir(t, strings.TrimPrefix(imagetest.OCILayoutIndex(t, imagetest.BaseIndex(t, "bin/olmcat", []string{"/bin/olmcat"},
		[]string{"serve", "/configs", "--cache-dir=/tmp/cache"}, "linux/amd64", "linux/arm64", "linux/ppc64le", "linux/s390x")), "oci-layout:"), at("olmcat-base"))
	mid := filepath.Join(t.TempDir(), "mid")
	mustRun(t, "add", at("old"), at("bundle-dir"), "--image", "quay.io/ns/operator-000-bundle:v1.0.4", "--output-dir", mid)
	mustRun(t, "rm", mid, "operator-001.v1.0.3", "--output-dir", at("new"))

	if _, err := exec.LookPath("git"); err != nil {
		return dir, false
	}
	copyDir(t, at("old"), at("catalogs"))
	gitIn(t, dir, "init", "-q")
	gitIn(t, dir, "add", "catalogs")
	gitIn(t, dir, "commit", "-q", "-m", "catalogs as merged")
	gitIn(t, dir, "update-ref", "refs/remotes/origin/main", "HEAD")
	if err := os.RemoveAll(at("catalogs")); err != nil {
		t.Fatal(err)
	}
	copyDir(t, at("new"), at("catalogs"))
	return dir, true
}

func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
}

// gitIn runs git in dir, isolated from the user's configuration, with fixed dates.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=olmcat", "GIT_AUTHOR_EMAIL=olmcat@example.com", "GIT_AUTHOR_DATE=2024-01-01T00:00:00Z",
		"GIT_COMMITTER_NAME=olmcat", "GIT_COMMITTER_EMAIL=olmcat@example.com", "GIT_COMMITTER_DATE=2024-01-01T00:00:00Z")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// readmeRegistryHost serves a loopback registry holding readmeIndexImage, an index image of
// fixtures/index.db, and readmeBundleImage, and returns its host.
func readmeRegistryHost(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(registry.New(registry.Logger(log.New(io.Discard, "", 0))))
	t.Cleanup(srv.Close)
	host := strings.TrimPrefix(srv.URL, "http://")
	index := imagetest.DBImage(t, "../../fixtures/index.db")
	for _, tag := range []string{readmeIndexImage, readmeTemplateIndexImage} {
		ref, err := name.ParseReference(host + "/" + tag)
		if err != nil {
			t.Fatal(err)
		}
		if err := remote.Write(ref, index); err != nil {
			t.Fatal(err)
		}
	}
	imagetest.Push(t, host+"/"+readmeBundleImage, imagetest.BundleImage(t, "testdata/readme/bundle-dir"))
	// generate kube reads what serves its image: an olmcat catalog image.
	imagetest.Push(t, host+"/"+readmeCatalogImage, olmcatImage(t))
	// build's base: opm's image for four platforms (its entrypoint /bin/opm).
	imagetest.PushIndex(t, host+"/"+readmeOPMBase, imagetest.BaseIndex(t, "bin/opm", []string{"/bin/opm"}, []string{"--help"},
		"linux/amd64", "linux/arm64", "linux/ppc64le", "linux/s390x"))
	return host
}

// readmeExec runs olmcat with args until it exits or ctx ends (a server stops as on SIGTERM):
// in-process (execute) for TestReadmeExamples, the built binary for TestNewcomer.
type readmeExec func(ctx context.Context, args []string, stdout, stderr io.Writer) int

func inProcess(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return execute(ctx, args, bytes.NewReader(nil), stdout, stderr)
}

// readmeRunner runs examples in sandboxes.
type readmeRunner struct {
	exec readmeExec
	// allowRegistry: the stand-in registry is on loopback, which templates may not name; the
	// test process allows it (TestMain), a binary is told with --allow-registry, as the README's
	// public registry needs no flag.
	allowRegistry bool
	template      string
	registry      string                   // loopback host standing in for readmeRegistry
	servers       map[string]readmeExample // README port -> the serve example listening on it
}

// readmeRun is one example, rewritten to run in its sandbox.
type readmeRun struct {
	sandbox string
	args    []string
	outputs []string // what the example writes: removed from the sandbox first, as a reader has no output yet
	listen  string   // for a serve example, the loopback address it listens on
	peers   []func() // servers started for the example (grpc://): stopped, and checked, after it
}

// pathFlags name a file or directory; outputFlags among them name what the command writes.
var (
	pathFlags   = map[string]bool{"report": true, "output-dir": true, "output-db": true, "cache-dir": true, "oci-layout": true, "labels": true, "plan": true, "save-plan": true, "ca-file": true, "termination-log": true, "config": true, "images": true}
	outputFlags = map[string]bool{"report": true, "output-dir": true, "output-db": true, "oci-layout": true, "save-plan": true, "images": true}
	refFlags    = map[string]bool{"diff": true, "to-image": true, "bundles-from": true, "base": true}
	bareAddr    = regexp.MustCompile(`^(localhost|127\.0\.0\.1|\[::1\]):\d+$`)
)

// prepare rewrites the example's arguments for its sandbox: relative and absolute paths into the
// sandbox, quay.io references to the loopback registry, grpc://localhost:PORT to the README's
// serve example for PORT (started here), a serve example's port to a free loopback one.
func (r *readmeRunner) prepare(t *testing.T, sandbox string, ex readmeExample) (_ *readmeRun, err error) {
	cmd, depth, err := findCommand(ex.args)
	if err != nil {
		return nil, err
	}
	run := &readmeRun{sandbox: sandbox, args: append([]string(nil), ex.args[:depth]...)}
	defer func() {
		if err != nil { // stop the servers started for it
			for _, stop := range run.peers {
				stop()
			}
		}
	}()
	path := func(p string, output bool) string {
		if p == "-" {
			return p
		}
		abs := filepath.Join(sandbox, p) // an absolute path (/tmp/cache) lands inside the sandbox too
		if filepath.IsAbs(p) {
			os.MkdirAll(filepath.Dir(abs), 0o755) // as /tmp exists for a reader
		}
		if strings.HasSuffix(p, "/") {
			abs += "/"
		}
		if output {
			run.outputs = append(run.outputs, abs)
		}
		return abs
	}
	ref := func(a string, output bool) (string, error) {
		switch {
		case a == "-":
			return a, nil
		case strings.HasPrefix(a, "grpc://") || bareAddr.MatchString(a) && cmd.Name() == "compat":
			addr, err := r.peer(t, run, strings.TrimPrefix(a, "grpc://"))
			if err != nil {
				return "", err
			}
			return "grpc://" + addr, nil
		case strings.HasPrefix(a, readmeRegistry+"/"):
			return r.registry + strings.TrimPrefix(a, readmeRegistry), nil
		case strings.HasPrefix(a, "docker://"+readmeRegistry+"/"):
			return "docker://" + r.registry + strings.TrimPrefix(a, "docker://"+readmeRegistry), nil
		case strings.HasPrefix(a, "git:"):
			rev, p, ok := strings.Cut(strings.TrimPrefix(a, "git:"), ":")
			if !ok {
				return a, nil
			}
			return "git:" + rev + ":" + path(p, false), nil
		case strings.HasPrefix(a, "oci-layout:"), strings.HasPrefix(a, "docker-archive:"):
			scheme, p, _ := strings.Cut(a, ":")
			return scheme + ":" + path(p, output), nil
		}
		if _, err := os.Lstat(filepath.Join(sandbox, a)); err == nil || output || filepath.IsAbs(a) || strings.HasSuffix(a, "/") {
			return path(a, output), nil
		}
		return a, nil // a name: a package, a bundle, ...
	}

	positional, port, hasTermLog := 0, "", false
	isServe, cacheOnly := cmd.CommandPath() == "olmcat serve", false
	for i := depth; i < len(ex.args); i++ {
		a := ex.args[i]
		if len(a) < 2 || a[0] != '-' {
			// The second argument of migrate, unpack and filter is what they write.
			output := positional == 1 && (cmd.CommandPath() == "olmcat migrate" || cmd.CommandPath() == "olmcat unpack" || cmd.CommandPath() == "olmcat filter")
			a, err := ref(a, output)
			if err != nil {
				return nil, err
			}
			run.args = append(run.args, a)
			positional++
			continue
		}
		f, value, hasValue := lookupFlag(cmd, a)
		if f == nil || f.NoOptDefVal != "" {
			run.args = append(run.args, a) // a boolean, or unknown: the command says so
			cacheOnly = cacheOnly || f != nil && f.Name == "cache-only"
			continue
		}
		flag := a
		if !hasValue {
			if i+1 == len(ex.args) {
				return nil, fmt.Errorf("flag %s has no value", a)
			}
			i++
			value = ex.args[i]
		} else {
			flag, _, _ = strings.Cut(a, "=")
		}
		switch {
		case pathFlags[f.Name] && value != "-":
			value = path(value, outputFlags[f.Name])
			hasTermLog = hasTermLog || f.Name == "termination-log"
		case refFlags[f.Name]:
			if value, err = ref(value, false); err != nil {
				return nil, err
			}
		case isServe && f.Name == "port":
			port = value
			continue // added below
		case isServe && (f.Name == "http-addr" || f.Name == "metrics-addr"):
			value = freeAddr(t)
		case cmd.Name() == "health-probe" && f.Name == "addr":
			if value, err = r.peer(t, run, value); err != nil {
				return nil, err
			}
		}
		run.args = append(run.args, flag, value)
	}
	if r.allowRegistry && cmd.Flags().Lookup("allow-registry") != nil {
		run.args = append(run.args, "--allow-registry", r.registry)
	}
	if isServe {
		if !cacheOnly {
			run.listen = freeAddr(t)
			port = run.listen
		}
		if port != "" {
			run.args = append(run.args, "--port", port)
		}
		if !hasTermLog { // not /dev/termination-log
			run.args = append(run.args, "--termination-log", filepath.Join(sandbox, "termination-log"))
		}
	}
	return run, nil
}

// peer starts, in the run's sandbox, the README's serve example that listens on the port of addr,
// and returns its loopback address.
func (r *readmeRunner) peer(t *testing.T, run *readmeRun, addr string) (string, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", err
	}
	ex, ok := r.servers[port]
	if !ok {
		return "", fmt.Errorf("no serve example of the README listens on port %s", port)
	}
	serve, err := r.prepare(t, run.sandbox, ex)
	if err != nil {
		return "", err
	}
	stop, err := startServer(serve, r.exec)
	if err != nil {
		return "", fmt.Errorf("%s: %v", ex, err)
	}
	run.peers = append(run.peers, func() {
		if code, stderr := stop(); code != exitOK {
			t.Errorf("%s, serving for the example: exit %d after stop\n%s", ex, code, stderr)
		}
	})
	return serve.listen, nil
}

// startServer runs a serve example until its health service reports SERVING; stop cancels it and
// returns its exit code and standard error.
func startServer(run *readmeRun, exec readmeExec) (stop func() (int, string), err error) {
	ctx, cancel := context.WithCancel(context.Background())
	var stderr bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- exec(ctx, run.args, io.Discard, &stderr) }()
	stop = func() (int, string) {
		cancel()
		code := <-done
		return code, stderr.String()
	}
	// Reconnect quickly: the first attempts come before the server listens.
	fast := grpc.ConnectParams{Backoff: backoff.Config{BaseDelay: 10 * time.Millisecond, Multiplier: 1.6, MaxDelay: 100 * time.Millisecond}, MinConnectTimeout: time.Second}
	conn, err := grpc.NewClient(run.listen, grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithConnectParams(fast))
	if err != nil {
		stop()
		return nil, err
	}
	defer conn.Close()
	health := healthpb.NewHealthClient(conn)
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		select {
		case code := <-done:
			cancel()
			return nil, fmt.Errorf("exit %d before serving\n%s", code, stderr.String())
		default:
		}
		r, err := health.Check(ctx, &healthpb.HealthCheckRequest{})
		if err == nil && r.Status == healthpb.HealthCheckResponse_SERVING {
			return stop, nil
		}
		if time.Now().After(deadline) {
			code, errs := stop()
			return nil, fmt.Errorf("not SERVING after 30 s (%v); exit %d\n%s", err, code, errs)
		}
	}
}

// headWriter is the reader of `| head -n N`: it passes N lines on to w, then goes away.
type headWriter struct {
	lines int
	w     io.Writer
}

func (h *headWriter) Write(p []byte) (int, error) {
	for i, c := range p {
		if h.lines <= 0 {
			h.w.Write(p[:i])
			return i, syscall.EPIPE
		}
		if c == '\n' {
			h.lines--
		}
	}
	return h.w.Write(p)
}

// TestReadmeExamples runs every `olmcat ...` line of README.md's sh blocks, each in its own copy of
// readmeSandbox; it must exit 0, or with the code its comment documents. Outputs the example
// writes are not in its sandbox beforehand (a reader has none yet); a serve example must reach
// SERVING and stop with exit 0; a compat example on grpc://localhost:PORT runs against the serve
// example for PORT.
func TestReadmeExamples(t *testing.T) { runReadmeExamples(t, inProcess, false) }

// runReadmeExamples is TestReadmeExamples with olmcat run by exec; allowRegistry: see readmeRunner.
func runReadmeExamples(t *testing.T, exec readmeExec, allowRegistry bool) {
	examples, mentions := readmeExamples(t)

	t.Run("commands and flags", func(t *testing.T) {
		helped := map[string]bool{}
		for _, words := range mentions {
			cmd, _, err := findCommand(words)
			if err != nil {
				t.Errorf("README names `olmcat %s`: %v", strings.Join(words, " "), err)
				continue
			}
			path := strings.Fields(cmd.CommandPath())[1:]
			if key := strings.Join(path, " "); !helped[key] {
				helped[key] = true
				var out, errb bytes.Buffer
				if code := execute(context.Background(), append(path, "--help"), bytes.NewReader(nil), &out, &errb); code != exitOK || out.Len() == 0 {
					t.Errorf("olmcat %s --help: exit %d, %d bytes of help\n%s", key, code, out.Len(), errb.String())
				}
			}
		}
		for _, ex := range examples {
			cmd, depth, err := findCommand(ex.args)
			if err != nil {
				continue // reported above
			}
			for i := depth; i < len(ex.args); i++ {
				a := ex.args[i]
				if len(a) < 2 || a[0] != '-' {
					continue
				}
				f, _, hasValue := lookupFlag(cmd, a)
				if f == nil {
					t.Errorf("%s: %s is not a flag of %q", ex, a, cmd.CommandPath())
					continue
				}
				if f.NoOptDefVal == "" && !hasValue {
					i++ // its value
				}
			}
		}
	})

	// Examples that read git revisions get git's environment of the sandbox, not the caller's.
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR"} {
		if v, ok := os.LookupEnv(k); ok {
			t.Setenv(k, v) // restored at the end
			os.Unsetenv(k)
		}
	}
	template, haveGit := readmeSandbox(t)
	r := &readmeRunner{exec: exec, allowRegistry: allowRegistry, template: template, registry: readmeRegistryHost(t), servers: map[string]readmeExample{}}
	writeReadmeTemplates(t, template, r.registry, haveGit)
	for _, ex := range examples {
		if cmd, depth, err := findCommand(ex.args); err == nil && cmd.CommandPath() == "olmcat serve" {
			for i := depth; i < len(ex.args); i++ {
				if f, p, hasValue := lookupFlag(cmd, ex.args[i]); f != nil && f.Name == "port" && (hasValue || i+1 < len(ex.args)) {
					if !hasValue {
						p = ex.args[i+1]
					}
					if _, port, err := net.SplitHostPort(p); err == nil {
						p = port
					}
					r.servers[p] = ex
				}
			}
		}
	}

	for _, ex := range examples {
		t.Run(fmt.Sprintf("%d %s", ex.line, ex.text), func(t *testing.T) {
			if !haveGit && readsGit(ex.args) {
				t.Skipf("%s: git is not installed", ex)
			}
			sandbox := t.TempDir()
			copyDir(t, r.template, sandbox)
			run, err := r.prepare(t, sandbox, ex)
			if err != nil {
				t.Fatalf("%s: %v", ex, err)
			}
			if strings.Contains(strings.Join(ex.args, " "), readmeRegistry+"/") {
				t.Logf("%s: %s served by the loopback stand-in registry %s", ex, readmeRegistry, r.registry)
			}
			defer func() {
				for _, stop := range run.peers {
					stop()
				}
			}()
			for _, out := range run.outputs {
				if err := os.RemoveAll(out); err != nil {
					t.Fatal(err)
				}
			}

			var out bytes.Buffer
			var stdout io.Writer = &out
			if ex.head > 0 {
				stdout = &headWriter{lines: ex.head, w: &out}
			}
			if ex.stdout != "" {
				f, err := os.Create(filepath.Join(sandbox, ex.stdout))
				if err != nil {
					t.Fatal(err)
				}
				defer f.Close()
				stdout = f
			}

			var code int
			var stderr string
			if run.listen != "" {
				stop, err := startServer(run, r.exec)
				if err != nil {
					t.Fatalf("%s\n  ran: olmcat %s\n  %v", ex, strings.Join(run.args, " "), err)
				}
				code, stderr = stop()
			} else {
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				var errb bytes.Buffer
				code = r.exec(ctx, run.args, stdout, &errb)
				stderr = errb.String()
			}
			if code != ex.want && !(ex.head > 0 && code == exitBrokenPipe) {
				tail := out.String()
				if len(tail) > 2000 {
					tail = "..." + tail[len(tail)-2000:]
				}
				t.Errorf("%s\n  ran: olmcat %s\n  exit %d, want %d\n  stderr:\n%s\n  stdout:\n%s", ex, strings.Join(run.args, " "), code, ex.want, stderr, tail)
			}
		})
	}
}

// readsGit reports whether an example reads a git revision (--git REV, git:REV:PATH).
func readsGit(args []string) bool {
	for _, a := range args {
		if strings.HasPrefix(a, "--git") || strings.HasPrefix(a, "git:") {
			return true
		}
	}
	return false
}

// writeReadmeTemplates adds the catalog templates the README renders to the sandbox:
// catalog-templates/basic.yaml and semver.yaml, naming the README's bundle image on the loopback
// registry (references inside files are not rewritten as arguments are); and, where git is,
// operators/P/catalog-templates/v4.18.yaml, the review case: committed at origin/main with the
// channel stable, changed in the work tree to add the channel fast.
func writeReadmeTemplates(t *testing.T, sandbox, registry string, git bool) {
	t.Helper()
	image := registry + "/" + readmeBundleImage
	basic := func(channels ...string) string {
		text := "schema: olm.template.basic\nentries:\n- schema: olm.package\n  name: operator-000\n  defaultChannel: stable\n"
		for _, ch := range channels {
			text += "- schema: olm.channel\n  package: operator-000\n  name: " + ch + "\n  entries:\n  - name: operator-000.v1.0.4\n"
		}
		return text + "- schema: olm.bundle\n  image: " + image + "\n"
	}
	write := func(path, text string) {
		path = filepath.Join(sandbox, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("catalog-templates/basic.yaml", basic("stable"))
	write("catalog-templates/semver.yaml", "Schema: olm.semver\nGenerateMajorChannels: true\nStable:\n  Bundles:\n  - Image: "+image+"\n")
	if !git {
		return
	}
	const reviewed = "operators/P/catalog-templates/v4.18.yaml"
	write(reviewed, basic("stable"))
	gitIn(t, sandbox, "add", reviewed)
	gitIn(t, sandbox, "commit", "-q", "-m", "template as merged")
	gitIn(t, sandbox, "update-ref", "refs/remotes/origin/main", "HEAD")
	write(reviewed, basic("fast", "stable"))
}
