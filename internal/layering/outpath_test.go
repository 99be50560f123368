package layering

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// pathCalls are the calls that turn strings into file system paths or create files there.
var pathCalls = map[string]bool{
	"filepath.Join": true, "path.Join": true,
	"os.Mkdir": true, "os.MkdirAll": true, "os.Create": true, "os.OpenFile": true, "os.WriteFile": true,
	"os.MkdirTemp": true, "os.CreateTemp": true, "os.Symlink": true, "os.Rename": true,
}

// catalogNames are the fields and variables that hold a name read from a catalog. A writer that
// hands one to a path call has bypassed internal/outpath, the one place that turns such a name
// into a path component (issue 19: `migrate` wrote ../../../victim/catalog.json that way).
var (
	catalogNameFields = map[string]bool{"Package": true, "PackageName": true, "Bundle": true, "BundleName": true, "Channel": true, "ChannelName": true}
	catalogNameVars   = map[string]bool{"pkg": true, "pkgName": true, "packageName": true, "bundleName": true, "channelName": true}
)

// TestCatalogNamesBecomePathsThroughOutpath fails when a package that writes outputs (one that
// imports internal/atomicout, the one door out) passes a catalog name to a path call. Such a name
// goes through outpath.Names.Join (or outpath.Join), which refuses separators, "..", NUL and
// collisions. The check is by name (a .Package field, a pkg variable);
// TestCatalogNameCheckCatchesIssue19 proves it catches the code issue 19 found.
func TestCatalogNamesBecomePathsThroughOutpath(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH")
	}
	out, err := exec.Command("go", "list", "-f", `{{.Dir}}{{range .Imports}} {{.}}{{end}}`, module+"...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	writers := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		dir, imports := fields[0], fields[1:]
		writes := false
		for _, imp := range imports {
			if imp == module+"internal/atomicout" {
				writes = true
			}
		}
		if !writes {
			continue
		}
		writers++
		files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			src, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for _, bad := range namesIntoPaths(t, f, src) {
				t.Errorf("%s: a catalog name reaches a path without internal/outpath: %s", bad.pos, bad.call)
			}
		}
	}
	if writers < 5 {
		t.Fatalf("found %d packages importing internal/atomicout; the check looks at nothing", writers)
	}
}

type finding struct{ pos, call string }

// namesIntoPaths lists the path calls of one Go file that take a catalog name.
func namesIntoPaths(t *testing.T, name string, src []byte) []finding {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, name, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []finding
	ast.Inspect(file, func(n ast.Node) bool {
		call, ok := n.(*ast.CallExpr)
		if !ok {
			return true
		}
		sel, ok := call.Fun.(*ast.SelectorExpr)
		if !ok {
			return true
		}
		pkg, ok := sel.X.(*ast.Ident)
		if !ok || !pathCalls[pkg.Name+"."+sel.Sel.Name] {
			return true
		}
		for _, arg := range call.Args {
			if mentionsCatalogName(arg) {
				found = append(found, finding{fset.Position(call.Pos()).String(), string(src[fset.Position(call.Pos()).Offset:fset.Position(call.End()).Offset])})
				break
			}
		}
		return true
	})
	return found
}

func mentionsCatalogName(e ast.Expr) bool {
	hit := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch x := n.(type) {
		case *ast.CallExpr:
			// A call's result is what the callee made of its arguments: outpath's, or a helper's
			// that the check reaches in its own file.
			return false
		case *ast.SelectorExpr:
			if catalogNameFields[x.Sel.Name] {
				hit = true
			}
		case *ast.Ident:
			if catalogNameVars[x.Name] {
				hit = true
			}
		}
		return !hit
	})
	return hit
}

// The check finds the joins issue 19 reported, as they were written.
func TestCatalogNameCheckCatchesIssue19(t *testing.T) {
	for _, src := range []string{
		"package p\nfunc f() { writePackageFile(filepath.Join(root, pkg), c, opts.Format) }\n",
		"package p\nfunc f() { sub = filepath.Join(sub, part.Package) }\n",
		"package p\nfunc f() { os.MkdirAll(root+\"/\"+b.Package, 0o755) }\n",
	} {
		if got := namesIntoPaths(t, "issue19.go", []byte(src)); len(got) != 1 {
			t.Errorf("%q: found %v, want the one join", src, got)
		}
	}
	if got := namesIntoPaths(t, "ok.go", []byte("package p\nfunc f() { filepath.Join(root, \"catalog.json\") }\n")); len(got) != 0 {
		t.Errorf("a constant file name flagged: %v", got)
	}
}
