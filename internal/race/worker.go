package race

import (
	"bufio"
	"context"
	"database/sql"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"syscall"
	"time"

	"modernc.org/sqlite"
)

// SQLite result codes the harness reads.
const (
	codeBusy             = 5    // SQLITE_BUSY
	codeConstraintUnique = 2067 // SQLITE_CONSTRAINT_UNIQUE: a UNIQUE column refused the key
	codeConstraintPK     = 1555 // SQLITE_CONSTRAINT_PRIMARYKEY: the same, on a PRIMARY KEY
)

// dsn opens path in WAL mode with a busy timeout: readers never wait for the
// writer, and writers queue instead of failing.
func dsn(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
}

// tables creates the check's tables: charges, two key tables that differ only in
// UNIQUE, and the lease fix's key rows.
const tables = `
CREATE TABLE IF NOT EXISTS charges (id INTEGER PRIMARY KEY, key TEXT NOT NULL, worker TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS keys_plain (key TEXT NOT NULL, at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS keys_unique (key TEXT UNIQUE NOT NULL, at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS leases (key TEXT PRIMARY KEY, status TEXT NOT NULL, holder TEXT NOT NULL, lease_until INTEGER NOT NULL, at INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS charges_key ON charges (key);
CREATE INDEX IF NOT EXISTS plain_key ON keys_plain (key);`

// code is err's SQLite extended result code, or 0.
func code(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return 0
}

// busy reports SQLITE_BUSY or one of its extended codes, which a retry clears.
func busy(err error) bool { return code(err)&0xff == codeBusy }

// errLeaseLost rolls back a charge whose lease another worker took over.
var errLeaseLost = errors.New("the lease was taken over")

// worker is one process handling deliveries against the database.
type worker struct {
	db   *sql.DB
	name string
	hold time.Duration // the lease
	out  io.Writer
	busy int
	// measured is the only crash point the worker reports reaching, to keep its
	// writes out of the race.
	measured CrashPoint
}

// retry runs f until it returns something other than SQLITE_BUSY, counting the retries.
func (w *worker) retry(f func() error) error {
	for {
		err := f()
		if !busy(err) {
			return err
		}
		w.busy++
		time.Sleep(time.Millisecond)
	}
}

func (w *worker) exec(q string, args ...any) (sql.Result, error) {
	var res sql.Result
	err := w.retry(func() (err error) {
		res, err = w.db.Exec(q, args...)
		return err
	})
	return res, err
}

// reach reports that key's delivery passed point, and dies there if crash names it,
// killing the worker's own process as a crash would: nothing deferred runs.
func (w *worker) reach(key string, point CrashPoint, crash string) {
	if point == w.measured {
		fmt.Fprintf(w.out, "reach %s %s\n", key, point)
	}
	if crash == string(point) {
		fmt.Fprintf(w.out, "crash %s %s\n", key, crash)
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal ends the process
	}
}

// stamp is a wall-clock reading for overlap measurement.
func stamp() int64 { return time.Now().UnixNano() }

// handle runs one delivery of key in mode, dying at crash if it names a point.
func (w *worker) handle(mode Mode, key, crash string) error {
	w.reach(key, BeforeKey, crash)
	charge := func() error {
		_, err := w.exec("INSERT INTO charges (key, worker) VALUES (?, ?)", key, w.name)
		return err
	}
	var check, write int64
	switch mode {
	case Loose: // check, then write the key
		check = stamp()
		var one int
		err := w.retry(func() error { return w.db.QueryRow("SELECT 1 FROM keys_plain WHERE key = ?", key).Scan(&one) })
		if err == nil {
			w.ack(key, crash, check, stamp(), "skipped")
			return nil
		}
		if !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		if err := charge(); err != nil {
			return err
		}
		w.reach(key, AfterWork, crash)
		write = stamp()
		if _, err := w.exec("INSERT INTO keys_plain (key, at) VALUES (?, ?)", key, time.Now().UnixMilli()); err != nil {
			return err
		}
	case Claim: // write the key first, let SQLite judge
		check = stamp()
		_, err := w.exec("INSERT INTO keys_unique (key, at) VALUES (?, ?)", key, time.Now().UnixMilli())
		write = check
		if c := code(err); c == codeConstraintUnique || c == codeConstraintPK {
			w.ack(key, crash, check, write, fmt.Sprintf("refused %d", c))
			return nil
		} else if err != nil {
			return err
		}
		w.reach(key, AfterKey, crash)
		if err := charge(); err != nil {
			return err
		}
	case After: // do the work, record the key last
		check = stamp()
		if err := charge(); err != nil {
			return err
		}
		w.reach(key, AfterWork, crash)
		write = stamp()
		_, err := w.exec("INSERT INTO keys_unique (key, at) VALUES (?, ?)", key, time.Now().UnixMilli())
		if c := code(err); c == codeConstraintUnique || c == codeConstraintPK {
			w.ack(key, crash, check, write, fmt.Sprintf("charged-refused %d", c))
			return nil
		} else if err != nil {
			return err
		}
	case Lease:
		return w.lease(key, crash)
	}
	w.ack(key, crash, check, write, "charged")
	return nil
}

// ack reports a delivery that ended, with its key window [check, write],
// dying first at before-ack: the queue never hears of the end.
func (w *worker) ack(key, crash string, check, write int64, outcome string) {
	fmt.Fprintf(w.out, "t %s %d %d\n", key, check, write)
	w.reach(key, BeforeAck, crash)
	fmt.Fprintf(w.out, "done %s %s\n", key, outcome)
}

// tx runs f in an IMMEDIATE transaction, under the write lock, retrying while busy.
func (w *worker) tx(f func(c *sql.Conn) error) error {
	ctx := context.Background()
	return w.retry(func() error {
		c, err := w.db.Conn(ctx)
		if err != nil {
			return err
		}
		defer c.Close()
		if _, err := c.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
			return err
		}
		if err := f(c); err != nil {
			c.ExecContext(ctx, "ROLLBACK")
			return err
		}
		_, err = c.ExecContext(ctx, "COMMIT")
		return err
	})
}

// lease is the fix: a key row with a status and a lease expiry, taken over
// once a dead holder's lease expires, marked done with the charge.
func (w *worker) lease(key, crash string) error {
	ctx := context.Background()
	check := stamp()
	var outcome string
	err := w.tx(func(c *sql.Conn) error {
		var status, holder string
		var until int64
		now := time.Now().UnixMilli()
		err := c.QueryRowContext(ctx, "SELECT status, holder, lease_until FROM leases WHERE key = ?", key).Scan(&status, &holder, &until)
		switch {
		case err == nil && status == "done":
			outcome = "skipped"
			return nil
		case err == nil && until > now:
			outcome = "held" // a live holder: leave the delivery for the queue to bring back
			return nil
		case err != nil && !errors.Is(err, sql.ErrNoRows):
			return err
		}
		outcome = "taken"
		_, err = c.ExecContext(ctx, "INSERT OR REPLACE INTO leases (key, status, holder, lease_until, at) VALUES (?, 'running', ?, ?, ?)",
			key, w.name, now+w.hold.Milliseconds(), now)
		return err
	})
	if err != nil {
		return err
	}
	write := stamp()
	switch outcome {
	case "held": // not acked: the queue brings it back
		fmt.Fprintf(w.out, "t %s %d %d\ndone %s held\n", key, check, write, key)
		return nil
	case "skipped":
		w.ack(key, crash, check, write, outcome)
		return nil
	}
	w.reach(key, AfterKey, crash)
	// The charge commits with the done mark only while this worker holds the lease.
	err = w.tx(func(c *sql.Conn) error {
		res, err := c.ExecContext(ctx, "UPDATE leases SET status = 'done', at = ? WHERE key = ? AND holder = ? AND status = 'running'",
			time.Now().UnixMilli(), key, w.name)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return errLeaseLost
		}
		_, err = c.ExecContext(ctx, "INSERT INTO charges (key, worker) VALUES (?, ?)", key, w.name)
		return err
	})
	if errors.Is(err, errLeaseLost) { // not acked, as in the delivery model
		fmt.Fprintf(w.out, "t %s %d %d\ndone %s overtaken\n", key, check, write, key)
		return nil
	}
	if err != nil {
		return err
	}
	w.reach(key, AfterWork, crash)
	w.ack(key, crash, check, write, "charged")
	return nil
}

// Worker is the body of a worker process. Its standard input carries its
// deliveries, a line each (key, or key!point to die at), then "end", then
// "go" and an instant in Unix nanoseconds; it says "ready", spins until the
// instant, then handles its deliveries, reporting each on stdout.
func Worker(args []string, stdin io.Reader, stdout io.Writer) error {
	fs := flag.NewFlagSet("race-worker", flag.ContinueOnError)
	path := fs.String("db", "", "database `file`")
	mode := fs.String("mode", "", "loose, claim, after or lease")
	name := fs.String("name", "W", "worker `name`")
	lease := fs.Duration("lease", time.Second, "lease `duration`")
	measured := fs.String("crash-at", "", "the crash `point` the harness counts deliveries at, if any")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *measured != "" && !slices.Contains(CrashPoints(), CrashPoint(*measured)) {
		return fmt.Errorf("%s: -crash-at: unknown crash point %q", *name, *measured)
	}
	if !slices.Contains(Modes(), Mode(*mode)) {
		return fmt.Errorf("%s: -mode: %q is not one of loose, claim, after, lease", *name, *mode)
	}
	in := bufio.NewReader(stdin)
	tasks, err := readTasks(in)
	if err != nil {
		return fmt.Errorf("%s: %w", *name, err)
	}
	db, err := sql.Open("sqlite", dsn(*path))
	if err != nil {
		return err
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := db.Ping(); err != nil {
		return err
	}
	w := &worker{db: db, name: *name, hold: *lease, out: stdout, measured: CrashPoint(*measured)}
	fmt.Fprintln(stdout, "ready")
	var at int64
	if _, err := fmt.Fscanf(in, "go %d\n", &at); err != nil {
		return fmt.Errorf("%s: start gate: %w", *name, err)
	}
	for time.Now().UnixNano() < at {
	}
	for _, t := range tasks {
		if err := w.handle(Mode(*mode), t.key, string(t.crash)); err != nil {
			return fmt.Errorf("%s: %s: %w", *name, t.key, err)
		}
	}
	fmt.Fprintf(stdout, "busy %d\n", w.busy)
	return nil
}

// writeTasks writes a worker's deliveries as Worker reads them.
func writeTasks(w io.Writer, tasks []task) error {
	b := bufio.NewWriter(w)
	for _, t := range tasks {
		b.WriteString(t.key)
		if t.crash != NoCrash {
			b.WriteString("!" + string(t.crash))
		}
		b.WriteByte('\n')
	}
	b.WriteString("end\n")
	return b.Flush()
}

// maxTaskLine bounds a delivery's line: a key the harness makes is far shorter.
const maxTaskLine = 256

// readTasks reads deliveries up to the "end" line, refusing a malformed key,
// an unknown crash point, a line past maxTaskLine and input ending early.
func readTasks(r *bufio.Reader) ([]task, error) {
	var tasks []task
	for n := 1; ; n++ {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull || len(line) > maxTaskLine {
			return nil, fmt.Errorf("deliveries: line %d: longer than %d bytes", n, maxTaskLine)
		}
		if err != nil {
			return nil, fmt.Errorf("deliveries: line %d: input ended before \"end\"", n)
		}
		s := string(line[:len(line)-1])
		if s == "end" {
			return tasks, nil
		}
		key, point, hasPoint := strings.Cut(s, "!")
		if key == "" || strings.ContainsAny(key, " \t\r!") {
			return nil, fmt.Errorf("deliveries: line %d: %q is not a key", n, key)
		}
		t := task{key: key}
		if hasPoint {
			t.crash = CrashPoint(point)
			if !slices.Contains(CrashPoints(), t.crash) {
				return nil, fmt.Errorf("deliveries: line %d: unknown crash point %q", n, point)
			}
		}
		tasks = append(tasks, t)
	}
}
