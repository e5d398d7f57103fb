package outfile

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// Render writes what the renderer wrote, once it has finished; a renderer
// that fails leaves the file as it was, even after writing part of its
// output.
func TestRenderWritesOnlyAFinishedRendering(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.txt")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	f := File{Flag: "o", Path: path}
	boom := errors.New("boom")
	err := f.Render(context.Background(), io.Discard, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if got, _ := os.ReadFile(path); !errors.Is(err, boom) || string(got) != "old" {
		t.Errorf("a failed rendering: %v, file %q; want boom and %q", err, got, "old")
	}
	err = f.Render(context.Background(), io.Discard, func(w io.Writer) error {
		_, err := io.WriteString(w, "new")
		return err
	})
	if got, _ := os.ReadFile(path); err != nil || string(got) != "new" {
		t.Errorf("a rendering: %v, file %q; want %q", err, got, "new")
	}
	var stdout bytes.Buffer
	if err := (File{Flag: "o"}).Render(context.Background(), &stdout, func(w io.Writer) error {
		_, err := io.WriteString(w, "to stdout")
		return err
	}); err != nil || stdout.String() != "to stdout" {
		t.Errorf("no -o: %v, stdout %q", err, stdout.String())
	}
}
