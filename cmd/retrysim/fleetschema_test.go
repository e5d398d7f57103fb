package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/retrysim/retrysim/fleet"
	"github.com/retrysim/retrysim/internal/cli"
	"github.com/retrysim/retrysim/internal/decl"
	"github.com/retrysim/retrysim/internal/pathtext"
	"github.com/retrysim/retrysim/internal/scenario"
)

// The fleet's settings are declared once, in decl.Params[fleet.Config], and every layer
// is derived from that table: a setting added there (a row with its path,
// key, usage and field) gets a flag named by its key with its usage in
// -help, a key in a scenario file's fleet section, a place in the json
// echo of the settings a run read, and errors naming its path are written
// with its flag. The test walks the table, so a row added to it is checked
// here without a line of this test changing.
func TestFleetSchemaReachesEveryLayer(t *testing.T) { checkFleetSchema(t) }

// checkFleetSchema checks that every decl.Params[fleet.Config] row reaches every layer.
func checkFleetSchema(t *testing.T) {
	t.Helper()
	help, _, code := retrysim(t, "fleet", "-help")
	help = unwrapHelp(help)
	if code != 0 {
		t.Fatalf("fleet -help: exit %d", code)
	}
	entries := helpEntries(help)
	var fileKeys []string
	for _, k := range scenario.Keys() {
		if rest, ok := strings.CutPrefix(k.Path, "fleet."); ok {
			fileKeys = append(fileKeys, rest)
		}
	}
	out, errOut, code := retrysim(t, "fleet", "-duration", "2s", "-replicates", "1", "-format", "json")
	if code != 0 {
		t.Fatalf("fleet -format json: exit %d, %s", code, errOut)
	}
	var doc struct {
		Rows []struct {
			Params map[string]any `json:"params"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil || len(doc.Rows) != 1 {
		t.Fatalf("fleet -format json: %v, %d runs", err, len(doc.Rows))
	}
	unread := fleet.DefaultConfig().Unread()
	for _, p := range decl.Params[fleet.Config]() {
		i := slices.IndexFunc(entries, func(e helpEntry) bool { return e.name == p.Key })
		if i < 0 || !strings.HasPrefix(entries[i].usage, strings.ReplaceAll(cli.FleetWords(p.Usage), "`", "")[:20]) {
			t.Errorf("%s: -help has no flag -%s with its usage", p.Path, p.Key)
		}
		fileKey := strings.ReplaceAll(p.Key, "-", "_")
		if !slices.Contains(fileKeys, fileKey) {
			t.Errorf("%s: scenario key fleet.%s not listed", p.Path, fileKey)
		}
		if _, echoed := doc.Rows[0].Params[fileKey]; echoed != (unread[p.Path] == "") {
			t.Errorf("%s: echoed as %s %v; want %v (read by the default run)", p.Path, fileKey, echoed, unread[p.Path] == "")
		}
		err := cli.FleetFlagError(pathtext.Errorf(p.Path, "bad, unlike %s", pathtext.Path(p.Path)))
		if want := "-" + p.Key + ": bad, unlike -" + p.Key; err.Error() != want {
			t.Errorf("%s: error %q; want %q", p.Path, err, want)
		}
	}
	for _, k := range fileKeys {
		if _, ok := decl.LookupKey[fleet.Config](strings.ReplaceAll(k, "_", "-")); !ok {
			t.Errorf("scenario key fleet.%s is no decl.Param[fleet.Config]", k)
		}
	}
}

// The scenario package names a setting in its errors by its path; the
// command writes it as its flag: a policy a client with one attempt never
// asks is refused naming -attempts.
func TestFleetScenarioErrorNamesFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "f.yaml")
	if err := os.WriteFile(file, []byte("fleet:\n  policy: finagle-budget\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := retrysim(t, "fleet", "-attempts", "1", "-scenario", file)
	if want := "retrysim: -scenario: " + file + ":2 sets policy finagle-budget, which with -attempts 1 and no hedges is never asked\n"; code != 2 || errOut != want {
		t.Errorf("exit %d, %q; want 2, %q", code, errOut, want)
	}
}
