package retrysim_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/internal/race"
	"github.com/retrysim/retrysim/internal/rng"
	"github.com/retrysim/retrysim/internal/stats"
	"github.com/retrysim/retrysim/strategy"
)

// computation are the packages that simulate and compute: the root
// package's API, the engines, the models, the strategies, the statistics,
// and the json writer of a report that Report.MarshalJSON uses. They must build without any
// presentation library, so that a program embedding the simulator does not
// pull in tables and plots, and so that no number can depend on a renderer.
var computation = []string{
	"github.com/retrysim/retrysim",
	"github.com/retrysim/retrysim/internal/reportjson",
	"github.com/retrysim/retrysim/internal/sim",
	"github.com/retrysim/retrysim/internal/rng",
	"github.com/retrysim/retrysim/delivery",
	"github.com/retrysim/retrysim/strategy",
	"github.com/retrysim/retrysim/fleet",
	"github.com/retrysim/retrysim/internal/chain",
	"github.com/retrysim/retrysim/internal/metastable",
	"github.com/retrysim/retrysim/internal/stats",
	"github.com/retrysim/retrysim/provider",
	"github.com/retrysim/retrysim/backoff",
	"github.com/retrysim/retrysim/internal/jobqueue",
}

// presentation are the import path prefixes only internal/render may reach.
var presentation = []string{
	"gonum.org/v1/plot",
	"github.com/retrysim/retrysim/internal/render",
}

// TestComputationImportsNoPresentation runs `go list -deps` over the
// computation packages and fails naming the import chain that reaches a
// presentation package, e.g. "internal/sim -> stats -> internal/render".
func TestComputationImportsNoPresentation(t *testing.T) {
	args := append([]string{"list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}"}, computation...)
	out, err := exec.Command("go", args...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list -deps: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list -deps: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	for _, root := range computation {
		if _, ok := imports[root]; !ok {
			t.Fatalf("go list -deps does not list %s", root)
		}
		if chain := pathTo(imports, root, isPresentation); chain != nil {
			t.Errorf("%s imports presentation: %s", root, strings.Join(chain, " -> "))
		}
	}
}

// TestRetrysimBuildsWithoutSQLite runs `go list -deps` over the two commands
// and fails naming the import chain by which retrysim reaches the SQLite
// driver or the race harness: they are most of the modules and of a first
// build's time and memory, and only retrysim-race, which retrysim race
// runs, needs them (issue 23, item 1).
func TestRetrysimBuildsWithoutSQLite(t *testing.T) {
	const retrysim, retrysimRace = "github.com/retrysim/retrysim/cmd/retrysim", "github.com/retrysim/retrysim/cmd/retrysim-race"
	imports := listImports(t, retrysim, retrysimRace)
	isSQLite := func(path string) bool {
		return path == "github.com/retrysim/retrysim/internal/race" || path == "modernc.org/sqlite" || strings.HasPrefix(path, "modernc.org/sqlite/")
	}
	if chain := pathTo(imports, retrysim, isSQLite); chain != nil {
		t.Errorf("retrysim builds the SQLite harness: %s", strings.Join(chain, " -> "))
	}
	// The check above finds what it looks for where it is.
	if chain := pathTo(imports, retrysimRace, func(p string) bool { return p == "modernc.org/sqlite" }); chain == nil {
		t.Errorf("go list -deps finds no modernc.org/sqlite under %s", retrysimRace)
	}
}

// TestRetrysimBuildsWithoutNetwork fails naming the import chain by which
// retrysim reaches the network stack (net, net/http, crypto/tls): a
// simulator opens no socket, and they were a third of a first build's time,
// brought in by a progress bar (issue 35, item 1).
func TestRetrysimBuildsWithoutNetwork(t *testing.T) {
	const retrysim = "github.com/retrysim/retrysim/cmd/retrysim"
	imports := listImports(t, retrysim)
	for _, pkg := range []string{"net", "net/http", "crypto/tls"} {
		if chain := pathTo(imports, retrysim, func(p string) bool { return p == pkg }); chain != nil {
			t.Errorf("retrysim builds %s: %s", pkg, strings.Join(chain, " -> "))
		}
	}
	// The check above finds what it looks for where it is: the go command
	// itself is built on the network stack.
	if chain := pathTo(listImports(t, "cmd/go"), "cmd/go", func(p string) bool { return p == "net/http" }); chain == nil {
		t.Error("go list -deps finds no net/http under cmd/go")
	}
}

// heavy are packages retrysim's build must not reach, by import path or
// path prefix, each with why: each was seconds of a cold build that a
// simulator does not need (issue 35, item 1: a cold build at most three
// times a hello world's).
var heavy = []struct{ path, why string }{
	{"github.com/olekukonko/", "tablewriter and its logger: render writes its tables (box.go)"},
	{"database/sql", "tablewriter's logger"},
	{"log/slog", "tablewriter's logger"},
	{"gonum.org/v1/gonum/stat", "distuv, stat, mat: internal/dist has the quantiles from mathext"},
	{"gonum.org/v1/gonum/mat", "with lapack and blas: internal/chain's dense.go solves the chain"},
	{"gonum.org/v1/gonum/lapack", "internal/chain's dense.go solves the chain"},
	{"gonum.org/v1/gonum/blas", "internal/chain's dense.go solves the chain"},
	{"golang.org/x/sys/", "with golang.org/x/term: internal/tty asks the terminal through syscall"},
}

// TestRetrysimBuildsLean fails naming the import chain by which retrysim
// reaches a heavy package.
func TestRetrysimBuildsLean(t *testing.T) {
	const retrysim = "github.com/retrysim/retrysim/cmd/retrysim"
	imports := listImports(t, retrysim)
	under := func(prefix string) func(string) bool {
		return func(p string) bool { return p == prefix || strings.HasPrefix(p, strings.TrimSuffix(prefix, "/")+"/") }
	}
	for _, h := range heavy {
		if chain := pathTo(imports, retrysim, under(h.path)); chain != nil {
			t.Errorf("retrysim builds %s (%s): %s", h.path, h.why, strings.Join(chain, " -> "))
		}
	}
	// The check above finds what it looks for where it is.
	if chain := pathTo(imports, retrysim, under("gonum.org/v1/plot/")); chain == nil {
		t.Error("go list -deps finds no gonum.org/v1/plot/... under retrysim")
	}
}

// listImports runs `go list -deps` over pkgs and returns what each package
// in their builds imports, by import path.
func listImports(t *testing.T, pkgs ...string) map[string][]string {
	t.Helper()
	out, err := exec.Command("go", append([]string{"list", "-deps", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}"}, pkgs...)...).Output()
	if err != nil {
		if ee, ok := err.(*exec.ExitError); ok {
			t.Fatalf("go list -deps: %v\n%s", err, ee.Stderr)
		}
		t.Fatalf("go list -deps: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(line)
		imports[f[0]] = f[1:]
	}
	return imports
}

func isPresentation(path string) bool {
	return slices.ContainsFunc(presentation, func(p string) bool { return path == p || strings.HasPrefix(path, p+"/") })
}

// pathTo is the shortest import chain from root to a package match accepts,
// or nil if there is none (breadth first over the import graph).
func pathTo(imports map[string][]string, root string, match func(string) bool) []string {
	from := map[string]string{root: ""}
	queue := []string{root}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if match(p) {
			var chain []string
			for ; p != ""; p = from[p] {
				chain = append(chain, p)
			}
			slices.Reverse(chain)
			return chain
		}
		for _, q := range imports[p] {
			if _, seen := from[q]; !seen {
				from[q] = p
				queue = append(queue, q)
			}
		}
	}
	return nil
}

// TestNoExportedVars fails on any exported package-level variable in the
// module's non-test code: an importer could assign to it (rng.Generators,
// stats.Metrics, delivery.Defaults were such) and change every later output.
// Registries and defaults are functions returning fresh copies, or constants.
// Error sentinels (var ErrX = errors.New(...)) are allowed: errors.Is needs
// one value to compare with, and assigning to one changes no output.
func TestNoExportedVars(t *testing.T) {
	eachGoFile(t, isSource, func(fset *token.FileSet, _ string, f *ast.File) {
		for _, decl := range f.Decls {
			g, ok := decl.(*ast.GenDecl)
			if !ok || g.Tok != token.VAR {
				continue
			}
			for _, spec := range g.Specs {
				v := spec.(*ast.ValueSpec)
				for i, n := range v.Names {
					if n.IsExported() && !errorSentinel(n.Name, v, i) {
						t.Errorf("%s: exported package variable %s: any importer can change it; make it a constant or a function returning a fresh copy",
							fset.Position(n.Pos()), n.Name)
					}
				}
			}
		}
	})
}

// isSource reports whether path is a Go file of the module's own code, not
// a test.
func isSource(path string) bool {
	return strings.HasSuffix(path, ".go") && !strings.HasSuffix(path, "_test.go")
}

// eachGoFile parses, with its comments, every file of the module that keep
// accepts (never one under testdata or a hidden folder) and hands it to fn.
func eachGoFile(t *testing.T, keep func(path string) bool, fn func(fset *token.FileSet, path string, f *ast.File)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !keep(path) {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		fn(fset, path, f)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// errorSentinel reports whether the i-th name of v is ErrX = errors.New(...)
// or fmt.Errorf(...).
func errorSentinel(name string, v *ast.ValueSpec, i int) bool {
	if !strings.HasPrefix(name, "Err") || i >= len(v.Values) {
		return false
	}
	call, ok := v.Values[i].(*ast.CallExpr)
	if !ok {
		return false
	}
	sel, ok := call.Fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && (pkg.Name == "errors" && sel.Sel.Name == "New" || pkg.Name == "fmt" && sel.Sel.Name == "Errorf")
}

// The registries that replaced exported variables hand out copies: what one
// caller does to its copy, the next caller does not see. (Defaults such as
// delivery.Defaults() and fleet.DefaultConfig() return structs by value, which
// the compiler already keeps apart.)
func TestRegistriesAreCopies(t *testing.T) {
	rng.Generators()[0].Name = "changed"
	stats.Metrics()[0].Name = "changed"
	stats.Axes()[0].Name = "changed"
	strategy.DefaultIDs()[0] = "changed"
	race.Modes()[0] = "changed"
	race.CrashPoints()[0] = "changed"
	for what, got := range map[string]string{
		"rng.Generators()[0].Name": rng.Generators()[0].Name, "stats.Metrics()[0].Name": stats.Metrics()[0].Name,
		"stats.Axes()[0].Name": stats.Axes()[0].Name, "strategy.DefaultIDs()[0]": strategy.DefaultIDs()[0],
		"race.Modes()[0]": string(race.Modes()[0]), "race.CrashPoints()[0]": string(race.CrashPoints()[0]),
	} {
		if got == "changed" {
			t.Errorf("%s kept a caller's change", what)
		}
	}
}
