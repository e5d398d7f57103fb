// Package shardfile is the one envelope of every kind's shard file but the
// table's: kind, format, the run's settings (flag values, never a command
// line), an echo of what they made, index, count, item count and the slice's
// items, gob encoded with the digest of the rest, so spliced items are
// refused. Every count, length and index is checked here; an item's content
// is checked by its kind.
package shardfile

import (
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/gob"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"regexp"
	"strconv"
	"strings"
	"syscall"

	"github.com/retrysim/retrysim/internal/outfile"
	"github.com/retrysim/retrysim/internal/reportjson"
	"github.com/retrysim/retrysim/internal/sim"
)

// MaxBytes bounds a shard file merge reads.
const MaxBytes = 256 << 20

// MaxSettings bounds the settings a shard carries, above any command's flags.
const MaxSettings = 1000

// MaxItems bounds a run's items, above any kind's limits.
const MaxItems = 1 << 20

// Format is the envelope's version, the same for every kind.
const Format = 4

// Setting is one flag's value as the run was given it, Flag without its dash.
type Setting struct {
	Flag  string `json:"flag"`
	Value string `json:"value"`
}

// Header is what every shard starts with; Settings are in the order given.
type Header struct {
	Kind     string          `json:"kind"`
	Format   int             `json:"format"`
	Settings []Setting       `json:"settings"`
	Echo     json.RawMessage `json:"echo"`
	Index    int             `json:"index"`
	Count    int             `json:"count"`
	Items    int             `json:"items"`
}

// Shard is a shard file: its header and its slice's items, encoded.
type Shard struct {
	Header
	Data []byte `json:"data"`
}

// data is what a shard's Data holds: the digest of the rest, and the items.
type data[T any] struct {
	Header [sha256.Size]byte
	Items  []T
}

// flagName is what a setting's flag may be, so it cannot pass for another flag.
var flagName = regexp.MustCompile(`^[a-z][a-z0-9-]{0,39}$`)

// Check reports why h is no slice of a run: its format, index and count,
// items or settings out of bounds.
func (h Header) Check() error {
	if h.Format != Format {
		return fmt.Errorf("format: %d; this retrysim reads format %d (run the shards again with it)", h.Format, Format)
	}
	if err := (sim.Shard{Index: h.Index, Count: h.Count}).Check(); err != nil {
		return fmt.Errorf("index, count: %w", err)
	}
	if h.Items < 0 || h.Items > MaxItems {
		return fmt.Errorf("items: %d, not from 0 to %d", h.Items, MaxItems)
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

// Slice is the items [lo, hi) of n that shard index of count holds.
func Slice(n, index, count int) (lo, hi int) {
	return n * index / count, n * (index + 1) / count
}

// digest is the sha256 of sh without its data, as json.
func digest(sh Shard) ([sha256.Size]byte, error) {
	sh.Data = nil
	b, err := json.Marshal(sh)
	return sha256.Sum256(b), err
}

// Encode is the shard file of header h holding items, indented json.
func Encode[T any](h Header, items []T) ([]byte, error) {
	h.Format = Format
	if h.Echo == nil {
		h.Echo = json.RawMessage("null")
	}
	sh := Shard{Header: h}
	d := data[T]{Items: items}
	var err error
	if d.Header, err = digest(sh); err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := gob.NewEncoder(&b).Encode(d); err != nil {
		return nil, err
	}
	sh.Data = b.Bytes()
	var out bytes.Buffer
	err = reportjson.WriteIndented(&out, sh)
	return out.Bytes(), err
}

// Decode is the items sh holds, refusing data not of its header's slice.
func Decode[T any](name string, sh Shard, noun string) ([]T, error) {
	var d data[T]
	if err := gob.NewDecoder(bytes.NewReader(sh.Data)).Decode(&d); err != nil {
		return nil, fmt.Errorf("%s: its %s: %w", name, noun, err)
	}
	if dg, err := digest(sh); err != nil || dg != d.Header {
		return nil, fmt.Errorf("%s: its data is not of the run and slice its header names", name)
	}
	lo, hi := Slice(sh.Items, sh.Index, sh.Count)
	if len(d.Items) != hi-lo {
		return nil, fmt.Errorf("%s holds %d %s; shard %d/%d has %d", name, len(d.Items), noun, sh.Index, sh.Count, hi-lo)
	}
	return d.Items, nil
}

// Is reports whether the file at path is a regular file that starts as an envelope.
func Is(path string) bool {
	f, err := Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 64)
	n, _ := io.ReadFull(f, head)
	return bytes.HasPrefix(head[:n], []byte("{\n  \"kind\": \""))
}

// Open opens the shard file at path without blocking, refusing anything but a
// regular file (a FIFO would block, a device never end).
func Open(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err == nil && !info.Mode().IsRegular() {
		err = fmt.Errorf("%s: not a regular file (%s), which a shard is", path, cmp.Or(outfile.Kind(info.Mode()), info.Mode().Type().String()))
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// Read reads the shard file at path strictly, at most MaxBytes, its header checked.
func Read(path string) (Shard, error) {
	var sh Shard
	f, err := Open(path)
	if err != nil {
		return sh, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxBytes+1))
	switch {
	case err != nil:
		return sh, fmt.Errorf("%s: %w", path, err)
	case len(b) > MaxBytes:
		return sh, fmt.Errorf("%s: larger than %d MiB", path, MaxBytes>>20)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&sh); err != nil {
		return sh, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		return sh, fmt.Errorf("%s: data after the shard's object", path)
	}
	if err := sh.Check(); err != nil {
		return sh, fmt.Errorf("%s: %w", path, err)
	}
	return sh, nil
}

// ReadAll reads the shard files at paths, the slices 0 to n-1 of one run
// once each, each header compared with the first's.
func ReadAll(paths []string) ([]Shard, error) {
	shards := make([]Shard, len(paths))
	var seen []string // name by index, "" for none yet
	for i, path := range paths {
		sh, err := Read(path)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			seen = make([]string, sh.Count)
		} else if err := sameRun(path, sh.Header, paths[0], shards[0].Header); err != nil {
			return nil, err
		}
		if seen[sh.Index] != "" {
			return nil, fmt.Errorf("%s repeats shard %d/%d", path, sh.Index, sh.Count)
		}
		shards[i], seen[sh.Index] = sh, path
	}
	for i, name := range seen {
		if name == "" {
			return shards, fmt.Errorf("shard %d/%d is missing (%s)", i, len(seen), Tasks([]int{i}, len(seen), false))
		}
	}
	return shards, nil
}

// Gather is the n items of a run, each checked by check, from its shards,
// named by names, each of n items (as ReadAll holds them to the first, and
// merge the first to the run).
func Gather[T any](n int, noun string, names []string, shards []Shard, check func(k int, item *T) error) ([]T, error) {
	all := make([]T, n)
	for i, sh := range shards {
		slice, err := Decode[T](names[i], sh, noun)
		if err != nil {
			return nil, err
		}
		lo, _ := Slice(n, sh.Index, sh.Count)
		for k := range slice {
			if err := check(lo+k, &slice[k]); err != nil {
				return nil, fmt.Errorf("%s: %s[%d]: %w", names[i], noun, lo+k, err)
			}
			all[lo+k] = slice[k]
		}
	}
	return all, nil
}

// sameRun refuses h, of the shard called name, unless it is of the run of
// first, the header of the shard called firstName.
func sameRun(name string, h Header, firstName string, first Header) error {
	switch {
	case h.Kind != first.Kind:
		return fmt.Errorf("%s is a %s, but %s is a %s", name, h.Kind, firstName, first.Kind)
	case h.Count != first.Count:
		return fmt.Errorf("%s is a shard of another run than %s (%d shards; want %d)", name, firstName, h.Count, first.Count)
	}
	if d := settingsDiff(h.Settings, first.Settings); d != "" {
		return fmt.Errorf("%s is a shard of another run than %s (%s)", name, firstName, d)
	}
	switch {
	case h.Items != first.Items:
		return fmt.Errorf("%s is a shard of another run than %s (%d items; want %d)", name, firstName, h.Items, first.Items)
	case !SameEcho(h.Echo, first.Echo):
		return fmt.Errorf("%s is a shard of another run than %s: its settings differ (a scenario file changed between them?)", name, firstName)
	}
	return nil
}

// SameEcho reports whether a and b are the same json value, however spaced.
func SameEcho(a, b json.RawMessage) bool { return bytes.Equal(Compact(a), Compact(b)) }

// Compact is the json value v on one line; v itself if it is no json.
func Compact(v json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}

// settingsDiff names the first setting in which got differs from want, or "".
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

// Tasks names the tasks that run slices idx of count in their launchers'
// terms (-shard, Slurm, Kubernetes, GNU parallel); more says idx lists only
// the first of them.
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
