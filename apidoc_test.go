package retrysim_test

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// publicPackages are the directories of the packages a Go program may
// import: their go doc is the library's API.
var publicPackages = []string{".", "provider", "strategy", "backoff", "delivery",
	"fleet", "schema", "report", "tune"}

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
	fset, files := parseSources(t, dir, parser.ParseComments)
	d, err := doc.NewFromFiles(fset, slices.Collect(maps.Values(files)), "./"+dir)
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
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

// internalPath matches a path of one of this module's internal packages
// (internal/render, internal/sweep), not an upstream one's
// (balancer/rls/internal/adaptive).
func internalPath(t *testing.T) *regexp.Regexp {
	t.Helper()
	entries, err := os.ReadDir("internal")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, regexp.QuoteMeta(e.Name()))
		}
	}
	return regexp.MustCompile(`(?:^|[^\w/.-])internal/(?:` + strings.Join(names, "|") + `)\b`)
}

// TestDocNamesNoInternalPackage runs go doc -all over every public package
// and fails naming each line that names one of the module's internal
// packages, which a program using the library cannot import.
func TestDocNamesNoInternalPackage(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	re := internalPath(t)
	for _, dir := range publicPackages {
		out, err := exec.Command("go", "doc", "-all", "./"+dir).Output()
		if err != nil {
			t.Fatalf("go doc -all ./%s: %v", dir, err)
		}
		for i, line := range strings.Split(string(out), "\n") {
			if re.MatchString(line) {
				t.Errorf("go doc -all ./%s line %d names an internal package: %s", dir, i+1, strings.TrimSpace(line))
			}
		}
	}
}

// TestExportedAPIUsesNoInternalType fails naming each exported function,
// method, type, field, variable or constant of a public package whose
// declared type mentions a type of one of the module's internal packages.
func TestExportedAPIUsesNoInternalType(t *testing.T) {
	for _, dir := range publicPackages {
		for _, use := range internalTypeUses(t, dir) {
			t.Errorf("%s: %s", dir, use)
		}
	}
}

// internalTypeUses lists the exported declarations of the package in dir
// (test files left out) whose types name a type of an internal package
// of the module, each as "Name uses pkg.Type".
func internalTypeUses(t *testing.T, dir string) []string {
	t.Helper()
	_, files := parseSources(t, dir, 0)
	var uses []string
	for _, file := range files {
		internal := map[string]bool{} // local names of the file's internal imports
		for _, imp := range file.Imports {
			path := strings.Trim(imp.Path.Value, `"`)
			if !strings.HasPrefix(path, "github.com/retrysim/retrysim/internal/") {
				continue
			}
			name := path[strings.LastIndex(path, "/")+1:]
			if imp.Name != nil {
				name = imp.Name.Name
			}
			internal[name] = true
		}
		check := func(what string, n ast.Node) {
			if n == nil {
				return
			}
			ast.Inspect(n, func(n ast.Node) bool {
				if sel, ok := n.(*ast.SelectorExpr); ok {
					if id, ok := sel.X.(*ast.Ident); ok && internal[id.Name] {
						uses = append(uses, what+" uses "+id.Name+"."+sel.Sel.Name)
					}
				}
				return true
			})
		}
		for _, decl := range file.Decls {
			switch d := decl.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				name := d.Name.Name
				if d.Recv != nil {
					recv := receiverName(d.Recv.List[0].Type)
					if !token.IsExported(recv) {
						continue
					}
					name = recv + "." + name
				}
				check(name, d.Type)
			case *ast.GenDecl:
				for _, spec := range d.Specs {
					switch s := spec.(type) {
					case *ast.TypeSpec:
						if !s.Name.IsExported() {
							continue
						}
						if s.TypeParams != nil {
							check(s.Name.Name, s.TypeParams)
						}
						switch ty := s.Type.(type) {
						case *ast.StructType:
							for _, f := range ty.Fields.List {
								for _, n := range f.Names {
									if n.IsExported() {
										check(s.Name.Name+"."+n.Name, f.Type)
									}
								}
								if len(f.Names) == 0 && token.IsExported(receiverName(f.Type)) {
									check(s.Name.Name+" (embedded)", f.Type)
								}
							}
						case *ast.InterfaceType:
							for _, m := range ty.Methods.List {
								if len(m.Names) == 0 || m.Names[0].IsExported() {
									check(s.Name.Name+" (method)", m.Type)
								}
							}
						default:
							check(s.Name.Name, s.Type)
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								check(n.Name, s.Type)
							}
						}
					}
				}
			}
		}
	}
	return uses
}

// receiverName is the name of the type a receiver or embedded field
// names, its pointer, package and type arguments left off.
func receiverName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return receiverName(x.X)
	case *ast.IndexExpr:
		return receiverName(x.X)
	case *ast.IndexListExpr:
		return receiverName(x.X)
	case *ast.SelectorExpr:
		return x.Sel.Name
	case *ast.Ident:
		return x.Name
	}
	return ""
}

// TestLiteralsNameNoFlags fails naming each string literal of a public
// package (test files left out) with a word that reads as a command-line
// flag: the library's errors and help texts name settings by their Go
// names and paths, and only the command maps them to flags. No file is
// excepted; the settings tables whose help texts the command prints as its
// flags' (delivery/settings.go, internal/scenario/keys.go, fleet/params.go,
// internal/fleetpreset/preset.go) must be among those scanned, internal/scenario's
// and internal/fleetpreset's too.
func TestLiteralsNameNoFlags(t *testing.T) {
	scanned := map[string]bool{}
	for _, dir := range append(slices.Clone(publicPackages), "internal/scenario", "internal/fleetpreset") {
		fset, files := parseSources(t, dir, 0)
		for path, file := range files {
			scanned[filepath.ToSlash(filepath.Clean(path))] = true
			ast.Inspect(file, func(n ast.Node) bool {
				lit, ok := n.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					return true
				}
				s, err := strconv.Unquote(lit.Value)
				if err != nil {
					t.Fatal(err)
				}
				pos := fset.Position(lit.Pos())
				name := filepath.ToSlash(filepath.Clean(pos.Filename))
				for _, m := range flagWord.FindAllStringSubmatch(s, -1) {
					t.Errorf("%s:%d names %s: %q", name, pos.Line, m[1], s)
				}
				return true
			})
		}
	}
	for _, f := range []string{"delivery/settings.go", "internal/scenario/keys.go", "fleet/params.go", "internal/fleetpreset/preset.go", "retrysim.go", "strategy/strategy.go"} {
		if !scanned[f] {
			t.Errorf("%s was not scanned", f)
		}
	}
}

// parseSources parses the Go files of the package in dir, test files left
// out, by path.
func parseSources(t *testing.T, dir string, mode parser.Mode) (*token.FileSet, map[string]*ast.File) {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset, files := token.NewFileSet(), map[string]*ast.File{}
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		if files[path], err = parser.ParseFile(fset, path, nil, mode); err != nil {
			t.Fatal(err)
		}
	}
	return fset, files
}
