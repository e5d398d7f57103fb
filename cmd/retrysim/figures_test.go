package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// The README's numbers appear in the outputs they quote, each read from the
// command's own output: mesh-default-retries' calls a request at db over the
// minute (the table's db rows) and during the outage (its -series: the db's
// calls over seconds 21 to 29 over the requests entering then); the race
// test's bound on the loose store's double charges (docs/tour.md and
// docs/race.md); temporal-defaults' waits (workers -help and
// docs/workers.md), against Temporal's schedule summed by hand.
func TestReadmeFiguresInOutputs(t *testing.T) {
	read := func(path string) string {
		b, err := os.ReadFile(filepath.Join("../..", path))
		if err != nil {
			t.Fatal(err)
		}
		return strings.Join(strings.Fields(string(b)), " ")
	}
	tour := read("docs/tour.md") // the README's tour of the models

	m := regexp.MustCompile(`send (\d+) calls a request to a database that is down \(.*?the table's db row prints ([\d.]+)\); (\d+) with the mesh's retries off \(([\d.]+) over the minute\), (\d+) with the service's off \(([\d.]+)\)`).FindStringSubmatch(tour)
	if m == nil {
		t.Fatal("docs/tour.md does not quote mesh-default-retries' calls at db during the outage and over the minute")
	}
	series := filepath.Join(t.TempDir(), "mesh.csv")
	out, errOut, code := retrysim(t, "graph", "-preset", "mesh-default-retries", "-format", "json", "-series", series)
	if code != 0 {
		t.Fatalf("graph -preset mesh-default-retries: exit %d, %s", code, errOut)
	}
	var doc struct {
		Rows []struct {
			Run, Service  string
			Amplification float64
		}
	}
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(series)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i, run := range []string{"mesh_and_app", "mesh_off", "app_off"} {
		during, minute := m[1+2*i], m[2+2*i]
		for _, r := range doc.Rows {
			if r.Run == run && r.Service == "db" && fmt.Sprintf("%.3f", r.Amplification) != minute {
				t.Errorf("%s: the table's db row prints %.3f calls a request; docs/tour.md says %s", run, r.Amplification, minute)
			}
		}
		var calls, starts float64 // columns run, service, t, calls, starts
		for _, r := range rows[1:] {
			if sec, _ := strconv.Atoi(r[2]); r[0] == run && sec >= 21 && sec <= 29 {
				x, _ := strconv.ParseFloat(r[3], 64)
				y, _ := strconv.ParseFloat(r[4], 64)
				switch r[1] {
				case "db":
					calls += x
				case "app-proxy":
					starts += y
				}
			}
		}
		if got := strconv.Itoa(int(math.Round(calls / starts))); starts == 0 || got != during {
			t.Errorf("%s: the series gives %.2f calls at db a request entering in seconds 21 to 29; docs/tour.md says %s", run, calls/starts, during)
		}
	}

	test := read("internal/race/race_test.go")
	b := regexp.MustCompile(`res\.DoubleCharged < (\d+) \{`).FindStringSubmatch(test)
	if b == nil {
		t.Fatal("internal/race's TestTwentyRaces has no bound on the loose store's double charges")
	}
	for _, path := range []string{"docs/tour.md", "docs/race.md"} {
		if !strings.Contains(read(path), "the test holds at least "+b[1]+" of 20") {
			t.Errorf("%s does not say the race test holds at least %s of 20 races charged twice", path, b[1])
		}
	}

	sum := 0 // Temporal's 24 waits: min(100, 2^n) s for retry n from 0
	for n := range 24 {
		sum += min(100, 1<<n)
	}
	want := fmt.Sprintf("whose 24 waits add up to %dm%ds", sum/60, sum%60)
	help, _, _ := retrysim(t, "workers", "-help")
	if !strings.Contains(strings.Join(strings.Fields(help), " "), want) {
		t.Errorf("workers -help does not say temporal-defaults' %q", want)
	}
	if w := fmt.Sprintf("its 24 waits add up to %dm%ds", sum/60, sum%60); !strings.Contains(read("docs/workers.md"), w) {
		t.Errorf("docs/workers.md does not say %q", w)
	}
}
