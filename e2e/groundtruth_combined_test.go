package e2e

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/simulate"
)

// TestGroundTruthNginxCombined: every gateway writes NGINX's predefined
// combined format, which logs no request ID and no duration, only
// $time_local, the second the response ended; clients and servers log the
// request ID (native). The gateway's lines must be read, not rejected; none
// of them may join a request (neither by ID, which they lack, nor by time:
// without a start or a duration the requests that end within one second
// cannot be told apart), nor be a request of its own (that would count the
// requests the other tiers log twice). So against the truth with its
// gateway records taken out: every request is there with the client and
// server records the truth has, never a gateway one; every component that
// needs no gateway (client and server E2E, queue, model, TTFT) is within
// the usual bounds; every one that does (gateway E2E, network,
// application) is NULL. The report says why the gateway records joined
// nothing.
func TestGroundTruthNginxCombined(t *testing.T) {
	t.Parallel()
	simDir, outDir := simulateAndRunN(t, 29, 3000, "--formats", "gateway="+simulate.FormatNginxCombined)
	db := openTruthDB(t, simDir, outDir)
	if _, err := db.Exec(`CREATE VIEW truth_ng AS SELECT * REPLACE (false AS has_gateway) FROM truth`); err != nil {
		t.Fatal(err)
	}
	rows := gtfQueryInt(t, db, `SELECT count(*) FROM read_parquet('`+filepath.Join(outDir, "gateway", "*", "*.parquet")+`', hive_partitioning = false)
		WHERE format = 'nginx' AND nullif(request_id, '') IS NULL AND start_time IS NULL AND end_time IS NOT NULL`)
	logged := gtfQueryInt(t, db, `SELECT count(*) FROM truth WHERE has_gateway`)
	// Lost and truncated lines aside, every gateway record is a row.
	if rows < logged*95/100 {
		t.Errorf("%d combined rows of %d gateway records in the truth: lines were rejected", rows, logged)
	}
	if n := gtfQueryInt(t, db, `SELECT count(*) FROM read_json('`+filepath.Join(outDir, "rejects.jsonl")+`')
		WHERE tier = 'gateway' AND kind = 'missing_field'`); n != 0 {
		t.Errorf("%d gateway lines rejected for a missing field (the request ID combined never has)", n)
	}
	if n := gtfQueryInt(t, db, `SELECT count(*) FROM requests WHERE has_gateway`); n != 0 {
		t.Errorf("%d requests hold a gateway record: a combined record was joined, or made a request of its own", n)
	}
	bad, st, err := checkTruth(context.Background(), db, "requests", "truth_ng")
	if err != nil {
		t.Fatal(err)
	}
	for i, b := range bad {
		if i == 20 {
			t.Errorf("... and %d more", len(bad)-20)
			break
		}
		t.Error(b)
	}
	for _, c := range []string{"client_e2e_ms", "server_e2e_ms", "queue_ms", "model_ms"} {
		if st.compared[c] < 2000 {
			t.Errorf("%s compared on only %d requests", c, st.compared[c])
		}
	}
	t.Logf("%d combined gateway rows (of %d gateway records), none joined; %d NULL checks where a tier is missing", rows, logged, st.nullChecked)
	report, err := os.ReadFile(filepath.Join(outDir, "report.md"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "gateway records of format nginx carry no request ID and no duration: NGINX's combined format logs neither"; !strings.Contains(string(report), want) {
		t.Errorf("report.md does not say why the combined records joined nothing (%q)", want)
	}
}
