// Package shardfile is the envelope every shard file of the sweep, fleet,
// fleet-map and chain commands shares: its kind, the settings of the run it
// is a slice of (flag values, never a command line), and which slice of how
// many it is, with one check of each and one limit on the count. What a
// shard holds of its slice is each kind's, checked by the kind's merge.
package shardfile

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/retrysim/retrysim/internal/sim"
)

// MaxBytes bounds a shard file merge reads.
const MaxBytes = 256 << 20

// MaxSettings bounds the settings a shard carries: more than any command
// has flags, with room for a flag given repeatedly.
const MaxSettings = 1000

// Setting is one flag's value as the run was given it: the flag's name
// without its dash, and its value.
type Setting struct {
	Flag  string `json:"flag"`
	Value string `json:"value"`
}

// Header is what every shard starts with: its kind (with its format's
// version), the run's settings in the order given, and which slice of how
// many it is.
type Header struct {
	Kind     string    `json:"kind"`
	Settings []Setting `json:"settings"`
	Index    int       `json:"index"`
	Count    int       `json:"count"`
}

// flagName is what a flag's name may be: a settings entry that is not one
// (a dash, an "=", a space) cannot pass for another flag.
var flagName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// Check reports why h is not a slice of a run: an index and count that are
// no slice i/n with n at most sim.MaxShards, too many settings, or a
// setting's flag that is no flag's name.
func (h Header) Check() error {
	if err := (sim.Shard{Index: h.Index, Count: h.Count}).Check(); err != nil {
		return fmt.Errorf("index, count: %w", err)
	}
	if len(h.Settings) > MaxSettings {
		return fmt.Errorf("settings: %d, more than %d", len(h.Settings), MaxSettings)
	}
	for i, s := range h.Settings {
		if !flagName.MatchString(s.Flag) {
			return fmt.Errorf("settings[%d].flag: %q is not a flag's name (lower-case letters, digits and -)", i, s.Flag)
		}
	}
	return nil
}

// Is reports whether the file at path is a regular file that starts as a
// shard of kind does.
func Is(path, kind string) bool {
	f, err := Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	return bytes.Contains(head[:n], []byte(`"kind": "`+kind+`"`))
}

// Open opens the shard file at path, refusing at once anything but a
// regular file: a FIFO would block, a device never end. It opens without
// blocking, so a FIFO with no writer is seen as such rather than waited on.
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file (%s), which a shard is", path, fileKind(info.Mode()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// fileKind names what a file that is not a regular one is.
func fileKind(m os.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&os.ModeNamedPipe != 0:
		return "a FIFO"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// Read decodes the shard file at path, of kind, into v strictly (no unknown
// field, nothing after the object), refusing a file larger than MaxBytes.
func Read(path, kind string, v any) error {
	f, err := Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	switch {
	case err != nil:
		return fmt.Errorf("%s: %w", path, err)
	case len(data) > MaxBytes:
		return fmt.Errorf("%s: larger than %d MiB", path, MaxBytes>>20)
	case !bytes.Contains(data[:min(len(data), 64)], []byte(`"kind": "`+kind+`"`)):
		return fmt.Errorf("%s is not a %s", path, kind)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return fmt.Errorf("%s: data after the shard's object", path)
	}
	return nil
}

// Slices checks that shards are the slices 0 to n-1 of one run, each once:
// each header is checked and compared with the first one's.
type Slices struct {
	first     Header
	firstName string
	seen      []string // name by index, "" for none yet
}

// Add checks the header of the shard called name: a slice, of the same
// kind, settings and count as the first one added, not given before.
func (s *Slices) Add(name string, h Header) error {
	if err := h.Check(); err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if s.seen == nil {
		s.first, s.firstName, s.seen = h, name, make([]string, h.Count)
	}
	switch {
	case h.Kind != s.first.Kind:
		return fmt.Errorf("%s is a %s, but %s is a %s", name, h.Kind, s.firstName, s.first.Kind)
	case h.Count != s.first.Count:
		return fmt.Errorf("%s is a shard of another run than %s (%d shards; want %d)", name, s.firstName, h.Count, s.first.Count)
	}
	if d := settingsDiff(h.Settings, s.first.Settings); d != "" {
		return fmt.Errorf("%s is a shard of another run than %s (%s)", name, s.firstName, d)
	}
	if s.seen[h.Index] != "" {
		return fmt.Errorf("%s repeats shard %d/%d", name, h.Index, h.Count)
	}
	s.seen[h.Index] = name
	return nil
}

// settingsDiff names the first setting in which got differs from want, ""
// when none does.
func settingsDiff(got, want []Setting) string {
	for i := range max(len(got), len(want)) {
		switch {
		case i >= len(got):
			return fmt.Sprintf("no -%s=%q", want[i].Flag, want[i].Value)
		case i >= len(want):
			return fmt.Sprintf("-%s=%q; want no more settings", got[i].Flag, got[i].Value)
		case got[i] != want[i]:
			return fmt.Sprintf("-%s=%q; want -%s=%q", got[i].Flag, got[i].Value, want[i].Flag, want[i].Value)
		}
	}
	return ""
}

// Missing reports the first slice not added, if any, with the task that
// runs it (Tasks).
func (s *Slices) Missing() error {
	for i, name := range s.seen {
		if name == "" {
			return fmt.Errorf("shard %d/%d is missing (%s)", i, len(s.seen), Tasks([]int{i}, len(s.seen), false))
		}
	}
	return nil
}

// Tasks names the tasks that run slices idx of count in the terms of their
// launcher, for a merge to say what is missing: the flag -shard i/n, and
// what -shard auto reads, a Slurm array's task MIN+i*STEP (with two
// examples, --array=0-(n-1) and --array=0-(2n-2):2), a Kubernetes Indexed
// Job's completion index i and GNU parallel's job i+1; more says that idx
// lists only the first of them. A shard carries settings, not the command
// line or environment it ran under, so the Slurm ids are given for any MIN
// and STEP.
func Tasks(idx []int, count int, more bool) string {
	list := func(f func(i int) string) string {
		s := make([]string, len(idx))
		for k, i := range idx {
			s[k] = f(i)
		}
		if more {
			s = append(s, "...")
		}
		return strings.Join(s, ", ")
	}
	itoa := func(d int) func(int) string { return func(i int) string { return strconv.Itoa(i + d) } }
	step := list(func(i int) string { return strconv.Itoa(2 * i) })
	if len(idx) == 1 && !more {
		return fmt.Sprintf("run by -shard %d/%d, or by -shard auto as the Slurm array's task MIN+%d*STEP (%d of --array=0-%d, %s of --array=0-%d:2), the Kubernetes completion index %d or GNU parallel's job %d",
			idx[0], count, idx[0], idx[0], count-1, step, 2*count-2, idx[0], idx[0]+1)
	}
	return fmt.Sprintf("run by -shard %s, or by -shard auto as the Slurm array's tasks MIN+i*STEP for i %s (%s of --array=0-%d; %s of --array=0-%d:2), the Kubernetes completion indexes %s or GNU parallel's jobs %s",
		list(func(i int) string { return fmt.Sprintf("%d/%d", i, count) }), list(itoa(0)), list(itoa(0)), count-1, step, 2*count-2, list(itoa(0)), list(itoa(1)))
}
