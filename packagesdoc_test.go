package retrysim_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestLibraryDocListsEveryPackage holds docs/library.md's "Packages" section to the tree: every
// public package and every internal one is named there, and nothing named is missing.
func TestLibraryDocListsEveryPackage(t *testing.T) {
	data, err := os.ReadFile("docs/library.md")
	if err != nil {
		t.Fatal(err)
	}
	section, _, _ := strings.Cut(string(data)[strings.Index(string(data), "## Packages"):], "\n`cmd/retrysim` is")
	public, internal, found := strings.Cut(section, "Under `internal/`")
	if !found {
		t.Fatal("docs/library.md: no \"Under `internal/`\" list in ## Packages")
	}
	listed := func(text string) []string { // each bullet's leading `name`s, up to the colon
		var names []string
		for _, m := range regexp.MustCompile("(?m)^- ([^:]*)").FindAllStringSubmatch(text, -1) {
			for _, n := range regexp.MustCompile("`([a-z]+)`").FindAllStringSubmatch(m[1], -1) {
				names = append(names, n[1])
			}
		}
		slices.Sort(names)
		return names
	}
	var wantPublic, wantInternal []string
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || !d.IsDir() {
			return err
		}
		if path != "." && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" || d.Name() == "cmd" || d.Name() == "docs") {
			return filepath.SkipDir
		}
		files, _ := filepath.Glob(filepath.Join(path, "*.go"))
		if !slices.ContainsFunc(files, func(f string) bool { return !strings.HasSuffix(f, "_test.go") }) {
			return nil
		}
		switch {
		case path == ".":
			wantPublic = append(wantPublic, "retrysim")
		case strings.HasPrefix(path, "internal/"):
			wantInternal = append(wantInternal, strings.TrimPrefix(path, "internal/"))
		default:
			wantPublic = append(wantPublic, path)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(wantPublic)
	slices.Sort(wantInternal)
	if got := listed(public); !slices.Equal(got, wantPublic) {
		t.Errorf("docs/library.md lists the public packages %v; the tree has %v", got, wantPublic)
	}
	if got := listed(internal); !slices.Equal(got, wantInternal) {
		t.Errorf("docs/library.md lists the internal packages %v; the tree has %v", got, wantInternal)
	}
}
