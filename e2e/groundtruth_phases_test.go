package e2e

import (
	"database/sql"
	"math"
	"os"
	"testing"
	"time"
)

// The phases analyze derives from the logs (cold, burst, steady), checked
// against the simulator's own label on runs of the README's size: >= 95%
// agreement overall, >= 90% of each true cold and burst request found and
// >= 90% of each found one true (checkPhases), the steady phase's P99 queue
// close to the truth's (a burst's backlog labelled steady inflates it), and
// the burst phase's window where the truth's is (a chance cluster of
// arrivals labelled burst stretches it).

// gtPhaseRequests is the README's simulation size.
const gtPhaseRequests = 20000

func TestGroundTruthPhases(t *testing.T) {
	t.Parallel()
	simDir, outDir := simulateAndRunN(t, 1, gtPhaseRequests)
	db := openTruthDB(t, simDir, outDir)
	checkPhases(t, db)
	checkPhaseQueue(t, db)
	checkPhaseWindows(t, db)
	checkReportShowsPhases(t, db, outDir)
}

// Each kind of warm-up the simulator can give its late replica is found
// from that replica's own first requests against its later ones.
func TestGroundTruthColdKinds(t *testing.T) {
	t.Parallel()
	for _, kind := range []string{"decode", "prefill", "load", "queue", "decode,prefill,load,queue"} {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			// A 10 s delay gives load and queue a dozen cold requests.
			simDir, outDir := simulateAndAnalyzeN(t, 3, 5000, "--cold", kind, "--cold-delay", "10s")
			db := openTruthDB(t, simDir, outDir)
			checkPhases(t, db)
			checkPhaseQueue(t, db)
		})
	}
}

// TestGroundTruthPhases1M is the same check on a million requests (about a
// minute of simulate, ingest and analyze): set INFERTRACE_1M=1 to run it.
func TestGroundTruthPhases1M(t *testing.T) {
	if testing.Short() || os.Getenv("INFERTRACE_1M") == "" {
		t.Skip("set INFERTRACE_1M=1 to check the phases on 1,000,000 requests")
	}
	simDir, outDir := simulateAndRunN(t, 1, 1000000)
	db := openTruthDB(t, simDir, outDir)
	checkPhases(t, db)
	checkPhaseQueue(t, db)
	checkPhaseWindows(t, db)
}

// checkPhaseQueue compares each phase's P99 queue with the truth's: within
// 5% or 50 ms.
func checkPhaseQueue(t *testing.T, db *sql.DB) {
	t.Helper()
	rows, err := db.Query(`
		SELECT t.phase, quantile_cont(t.queue_ms, 0.99), count(t.queue_ms), f.p99, f.n
		FROM truth AS t
		JOIN (SELECT phase, quantile_cont(queue_ms, 0.99) AS p99, count(queue_ms) AS n
		      FROM requests GROUP BY phase) AS f USING (phase)
		GROUP BY t.phase, f.p99, f.n ORDER BY t.phase`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	seen := false
	for rows.Next() {
		var phase string
		var tp, fp sql.NullFloat64
		var tn, fn int64
		if err := rows.Scan(&phase, &tp, &tn, &fp, &fn); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: P99 queue %.1f ms (n=%d) found, %.1f ms (n=%d) true", phase, fp.Float64, fn, tp.Float64, tn)
		if phase == "steady" {
			seen = true
		}
		if !tp.Valid || !fp.Valid || math.Abs(fp.Float64-tp.Float64) > max(0.05*tp.Float64, 50) {
			t.Errorf("%s: P99 queue %.1f ms found, %.1f ms true: want within 5%% or 50 ms", phase, fp.Float64, tp.Float64)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if !seen {
		t.Error("no steady phase in both the truth and the requests")
	}
}

// checkPhaseWindows compares the first and last start of the burst phase
// with the truth's client starts: within 5 s, host clocks being up to 3 s
// off and a request's start being on the first tier's clock.
func checkPhaseWindows(t *testing.T, db *sql.DB) {
	t.Helper()
	var tf, tl, ff, fl time.Time
	if err := db.QueryRow(`
		SELECT (SELECT min(client_start) FROM truth WHERE phase = 'burst'),
		       (SELECT max(client_start) FROM truth WHERE phase = 'burst'),
		       (SELECT min(start) FROM requests WHERE phase = 'burst'),
		       (SELECT max(start) FROM requests WHERE phase = 'burst')`).Scan(&tf, &tl, &ff, &fl); err != nil {
		t.Fatal(err)
	}
	t.Logf("burst window %s – %s found, %s – %s true", ff.Format(time.TimeOnly), fl.Format(time.TimeOnly), tf.Format(time.TimeOnly), tl.Format(time.TimeOnly))
	if (ff.Sub(tf)).Abs() > 5*time.Second || (fl.Sub(tl)).Abs() > 5*time.Second {
		t.Errorf("burst window %s – %s, true %s – %s: want each end within 5 s", ff, fl, tf, tl)
	}
}
