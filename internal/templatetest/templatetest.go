// Package templatetest reads the catalog-template conformance corpus (../shared/conformance/templates:
// what opm printed for render-template and convert-template) for tests: its cases, the opm
// command line of each output, an offline BundleRenderer over the cases' bundle directories, and
// the bundle images pushed to a loopback registry.
package templatetest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	yamlnode "go.yaml.in/yaml/v3"

	"github.com/olmcat/olmcat/fbc"
	"github.com/olmcat/olmcat/fbc/bundledir"
	"github.com/olmcat/olmcat/fbc/template"
	"github.com/olmcat/olmcat/internal/imagetest"
)

// Host is the registry host written in the corpus files.
const Host = "127.0.0.1:5000"

// Case is one case directory of the corpus.
type Case struct {
	ID     string
	Kind   string // render, convert or errors
	Dir    string
	Runs   []Run
	Images map[string]Image // by reference, as written in the case's files
}

// Run is one recorded opm command of a case.
type Run struct {
	Args         []string // opm's arguments after "alpha"
	Type         string   // the TYPE argument, "" when auto-detected
	File         string   // the input file, relative to the case directory
	Output       string   // -o
	MigrateLevel string   // --migrate-level, "" when not given
	Expected     string   // the file holding opm's stdout (stderr for errors)
	ExitCode     int
}

// Image is an images.json entry: the bundle directory behind a reference (Bundle "" for images
// that must not exist) and the image's labels.
type Image struct {
	Bundle string            `json:"bundle"`
	Labels map[string]string `json:"labels"`
}

// Root is the corpus directory seen from a package directory: it walks up to the module root.
func Root(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatal("no go.mod above the test's directory")
		}
		dir = parent
	}
	root := filepath.Join(dir, "..", "shared", "conformance", "templates")
	if _, err := os.Stat(filepath.Join(root, "INDEX.json")); err != nil {
		t.Skipf("template conformance corpus not found at %s (%v); it lives in /work/shared/conformance/templates", root, err)
	}
	return root
}

// Cases are the corpus cases of one kind (render, convert or errors), sorted by ID.
func Cases(t testing.TB, kind string) []Case {
	t.Helper()
	root := Root(t)
	dirs, err := filepath.Glob(filepath.Join(root, kind, "*", "CASE.json"))
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	var out []Case
	for _, f := range dirs {
		out = append(out, readCase(t, filepath.Dir(f), kind))
	}
	if len(out) == 0 {
		t.Fatalf("no %s cases in %s", kind, root)
	}
	return out
}

// CaseByID is the corpus case of that kind and id; the test is skipped when the corpus does not
// have it.
func CaseByID(t testing.TB, kind, id string) Case {
	t.Helper()
	for _, c := range Cases(t, kind) {
		if c.ID == id {
			return c
		}
	}
	t.Skipf("corpus case %s/%s not found", kind, id)
	return Case{}
}

func readCase(t testing.TB, dir, kind string) Case {
	t.Helper()
	var c struct {
		ID  string `json:"id"`
		Opm struct {
			Runs []struct {
				Argv     []string `json:"argv"`
				Output   string   `json:"output"`
				ExitCode int      `json:"exit_code"`
			} `json:"runs"`
		} `json:"opm"`
	}
	readJSON(t, filepath.Join(dir, "CASE.json"), &c)
	out := Case{ID: c.ID, Kind: kind, Dir: dir, Images: map[string]Image{}}
	for _, r := range c.Opm.Runs {
		out.Runs = append(out.Runs, parseArgv(t, r.Argv, r.Output, r.ExitCode))
	}
	if _, err := os.Stat(filepath.Join(dir, "images.json")); err == nil {
		readJSON(t, filepath.Join(dir, "images.json"), &out.Images)
	}
	return out
}

// parseArgv reads "opm alpha render-template [TYPE] FILE -o F [--migrate-level L] [--use-http]"
// and "opm alpha convert-template basic FILE -o F".
func parseArgv(t testing.TB, argv []string, expected string, code int) Run {
	t.Helper()
	if len(argv) < 3 || argv[0] != "opm" || argv[1] != "alpha" {
		t.Fatalf("unexpected opm command line %q", argv)
	}
	r := Run{Args: argv[2:], Expected: expected, ExitCode: code, Output: "json"}
	var positional []string
	for i := 3; i < len(argv); i++ {
		switch argv[i] {
		case "-o", "--output":
			i++
			r.Output = argv[i]
		case "--migrate-level":
			i++
			r.MigrateLevel = argv[i]
		case "--use-http":
		default:
			positional = append(positional, argv[i])
		}
	}
	switch len(positional) {
	case 1:
		r.File = positional[0]
	case 2:
		r.Type, r.File = positional[0], positional[1]
	default:
		t.Fatalf("unexpected opm command line %q", argv)
	}
	return r
}

func readJSON(t testing.TB, path string, into any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, into); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// Read reads a file of the case.
func (c Case) Read(t testing.TB, name string) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(c.Dir, name))
	if err != nil {
		t.Fatal(err)
	}
	return data
}

// ErrorMessage is opm's error message of an error case: the first line of expected.txt without
// "Error: ".
func (c Case) ErrorMessage(t testing.TB) string {
	t.Helper()
	first, _, _ := strings.Cut(string(c.Read(t, "expected.txt")), "\n")
	msg, ok := strings.CutPrefix(first, "Error: ")
	if !ok {
		t.Fatalf("%s: expected.txt does not start with \"Error: \"", c.ID)
	}
	return msg
}

// ComparableError cuts an error message after `failed to pull image "REF"`: what follows is the
// registry's wording, which differs between registry implementations (see the corpus README).
func ComparableError(msg string) string {
	const marker = "failed to pull image "
	i := strings.Index(msg, marker)
	if i < 0 {
		return msg
	}
	rest := msg[i+len(marker):]
	if j := strings.Index(rest, `": `); j >= 0 {
		return msg[:i+len(marker)+j+1]
	}
	return msg
}

// DirRenderer renders a case's bundle images from its bundle directories, offline, as opm renders
// the images built from them.
type DirRenderer struct {
	Case  Case
	Calls [][]string // the refs of each RenderBundles call
}

func (r *DirRenderer) RenderBundles(_ context.Context, refs []string) ([]fbc.Bundle, error) {
	r.Calls = append(r.Calls, refs)
	out := make([]fbc.Bundle, 0, len(refs))
	for _, ref := range refs {
		img, ok := r.Case.Images[ref]
		if !ok || img.Bundle == "" {
			return nil, &template.ImageError{Ref: ref, Registry: Host, Err: errors.New("name unknown: Unknown name")}
		}
		b, err := bundledir.Parse(filepath.Join(r.Case.Dir, "bundles", img.Bundle))
		if err != nil {
			return nil, &template.ImageError{Ref: ref, Registry: Host, Err: err}
		}
		rendered, err := b.Render(ref)
		if err != nil {
			return nil, &template.ImageError{Ref: ref, Registry: Host, Err: err}
		}
		out = append(out, rendered)
	}
	return out, nil
}

// PushImages builds every bundle image of the case from its bundle directory and labels, pushes
// it to a new loopback registry under the same repository and tag, and returns the registry host
// (127.0.0.1:PORT, which sorts among related images as 127.0.0.1:5000 does).
func PushImages(t testing.TB, c Case) string {
	t.Helper()
	host := imagetest.Registry(t)
	if !strings.HasPrefix(host, "127.0.0.1:") {
		t.Fatalf("registry host %s: the corpus needs 127.0.0.1:PORT", host)
	}
	for ref, img := range c.Images {
		if img.Bundle == "" {
			continue
		}
		dir := filepath.Join(c.Dir, "bundles", img.Bundle)
		imagetest.Push(t, ToHost(ref, host), imagetest.LabelledBundleImage(t, dir, img.Labels))
	}
	return host
}

// ToHost rewrites the corpus host to host in s.
func ToHost(s, host string) string { return strings.ReplaceAll(s, Host+"/", host+"/") }

// FromHost rewrites host back to the corpus host in s.
func FromHost(s, host string) string { return strings.ReplaceAll(s, host, Host) }

// FlowStyle re-encodes a YAML document as one flow-style line: `{schema: ..., entries: [...]}`,
// YAML that is not JSON.
func FlowStyle(t testing.TB, data []byte) []byte {
	t.Helper()
	var doc yamlnode.Node
	if err := yamlnode.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	var setFlow func(n *yamlnode.Node)
	setFlow = func(n *yamlnode.Node) {
		n.Style |= yamlnode.FlowStyle
		n.HeadComment, n.LineComment, n.FootComment = "", "", ""
		for _, c := range n.Content {
			setFlow(c)
		}
	}
	setFlow(&doc)
	var out bytes.Buffer
	enc := yamlnode.NewEncoder(&out)
	if err := enc.Encode(&doc); err != nil {
		t.Fatal(err)
	}
	if out.Bytes()[0] != '{' {
		t.Fatalf("not flow style: %.80s", out.Bytes())
	}
	return out.Bytes()
}
