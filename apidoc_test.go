package retrysim_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"io/fs"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// publicPackages are the directories of the packages a Go program may
// import: their go doc is the library's API.
var publicPackages = []string{".", "provider", "strategy", "backoff", "delivery", "scenario",
	"fleet", "fleet/chain", "stats", "schema", "report"}

// TestExportedIdentifiersDocumented fails naming each exported constant,
// variable, type, function and method of a public package that has no doc
// comment (a constant or variable in a documented group, or with a comment
// on its line, counts as documented).
func TestExportedIdentifiersDocumented(t *testing.T) {
	for _, dir := range publicPackages {
		for _, name := range undocumented(t, dir) {
			t.Errorf("%s: %s has no doc comment", dir, name)
		}
	}
}

// undocumented lists the exported identifiers of the package in dir
// (test files left out) without a doc comment.
func undocumented(t *testing.T, dir string) []string {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, pkg := range pkgs {
		d := doc.New(pkg, "./"+dir, 0)
		if strings.TrimSpace(d.Doc) == "" {
			missing = append(missing, "package "+d.Name)
		}
		values := func(vs []*doc.Value) {
			for _, v := range vs {
				for _, spec := range v.Decl.Specs {
					vs := spec.(*ast.ValueSpec)
					for _, n := range vs.Names {
						if n.IsExported() && v.Doc == "" && vs.Doc == nil && vs.Comment == nil {
							missing = append(missing, n.Name)
						}
					}
				}
			}
		}
		funcs := func(recv string, fs []*doc.Func) {
			for _, f := range fs {
				if f.Doc == "" {
					missing = append(missing, recv+f.Name)
				}
			}
		}
		values(d.Consts)
		values(d.Vars)
		funcs("", d.Funcs)
		for _, ty := range d.Types {
			if ty.Doc == "" {
				missing = append(missing, "type "+ty.Name)
			}
			values(ty.Consts)
			values(ty.Vars)
			funcs("", ty.Funcs)
			funcs(ty.Name+".", ty.Methods)
		}
	}
	return missing
}

// flagWord is a word that reads as a command-line flag: a hyphen after a
// space, a bracket or a quote, then a lower-case word (-attempts, -store,
// -p-fail).
var flagWord = regexp.MustCompile("(?:^|[\\s(\\[`\"'])(-[a-z][a-z0-9]*(?:-[a-z0-9]+)*)")

// flagWordsAllowed are flag-looking words a package's go doc may hold
// because they are no flags.
var flagWordsAllowed = map[string]bool{}

// TestDocNamesNoFlags runs go doc -all over every public package and fails
// naming each line with a word that reads as a command-line flag: the
// library names settings by their Go fields or paths, and only the command
// maps them to flags.
func TestDocNamesNoFlags(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	for _, dir := range publicPackages {
		out, err := exec.Command("go", "doc", "-all", "./"+dir).Output()
		if err != nil {
			t.Fatalf("go doc -all ./%s: %v", dir, err)
		}
		for i, line := range strings.Split(string(out), "\n") {
			for _, m := range flagWord.FindAllStringSubmatch(line, -1) {
				if !flagWordsAllowed[m[1]] {
					t.Errorf("go doc -all ./%s line %d names %s: %s", dir, i+1, m[1], strings.TrimSpace(line))
				}
			}
		}
	}
}
