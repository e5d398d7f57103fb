package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// emit writes out to stdout, or to path when one is given. A file is written
// whole to a temporary name beside it and then renamed, so an interrupted or
// failed run never leaves half a file behind.
func emit(stdout io.Writer, path string, out []byte) error {
	if path == "" {
		_, err := stdout.Write(out)
		return err
	}
	return writeAtomic(path, out)
}

func writeAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return fmt.Errorf("-o: %w", err)
	}
	defer os.Remove(tmp.Name()) // no-op after a successful rename
	if _, err := io.Copy(tmp, bytes.NewReader(data)); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
