package simulate

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/parquet-go/parquet-go"
)

// TruthRow is one request's ground truth, as written to truth.parquet and
// truth.csv. Durations are true milliseconds (no clock offsets or drift),
// under the analysis definitions:
//
//	client_e2e_ms       = client end − client start
//	gateway_e2e_ms      = gateway end − gateway start
//	server_e2e_ms       = server end − server arrival
//	network_ms          = client_e2e − gateway_e2e
//	application_ms      = gateway_e2e − server_e2e
//	queue_ms            = server scheduled − server arrival
//	model_ms            = server end − server scheduled
//	client_ttft_ms      = client first_token − client start
//	server_ttft_ms      = server first_token − server arrival
//	ttft_queue_ms       = queue_ms
//	ttft_model_ms       = server first_token − server scheduled
//	ttft_application_ms = (gateway upstream_start − gateway start)
//	                      + ((gateway upstream_end − gateway upstream_start) − server_e2e)
//	ttft_network_ms     = client_ttft − server_ttft − ttft_application
//	tps_user            = (client output_tokens − 1) / (client end − client first_token) in seconds,
//	                      NULL below two tokens
//
// network + application + queue + model = client_e2e. A component whose
// inputs do not exist is NULL: no server times for a 429; no server_ttft,
// ttft_queue, ttft_model or ttft_application on a 5xx (the server logs no
// first_token then); no client_ttft, ttft_network or tps_user when the client
// saw no first token (non-streamed, errored, or gave up first). The server
// logs first_token for every request it completes, streamed or not, as vLLM
// and TGI record first-token time regardless of streaming, so server_ttft,
// ttft_queue, ttft_model and ttft_application exist for non-streamed requests
// too, exactly as analyze computes them. tps_user counts the tokens the
// client received (client_output_tokens), as analyze does when the client
// logged output_tokens.
// The values are true even when a record was lost or truncated; HasClient,
// HasGateway and HasServer say whether that tier's record was written intact.
//
// Phase is the simulator's own label, for checking what analyze derives
// from the logs: "cold" for the requests the late-joining replica's warm-up
// slowed (Config.ColdKinds: its first Config.ColdRequests with ColdDecode,
// first Config.ColdPrefillRequests with ColdPrefill, its first request and
// those arriving while it loads with ColdLoad, those arriving before it is
// ready with ColdQueue), else "burst" when the client sent the request
// (true time) inside the burst window, else "steady"; and a request that
// waits in a replica's queue behind a cold or burst request of the same
// busy period (since the queue was last empty) takes that phase, cold
// first: the backlog a burst or a warm-up leaves belongs to it.
//
// When the client gives up (timeout or cancel) its end is the give-up time
// while the gateway and server finish the request unaware; when that is
// before the gateway's end (the gateway logs 499, Envoy 0 DC), network_ms is
// NULL, as analyze makes it for an aborted request: client E2E − gateway E2E
// would be negative, and is no network time. They are marked in
// Imperfection.
type TruthRow struct {
	RequestID   string    `parquet:"request_id"`
	ClientStart time.Time `parquet:"client_start,timestamp(microsecond)"` // true time the client sent the request
	Model       string    `parquet:"model"`
	UseCase     string    `parquet:"use_case"`
	Region      string    `parquet:"region"`
	Client      string    `parquet:"client"`
	Gateway     string    `parquet:"gateway"`
	Replica     string    `parquet:"replica"` // empty when the request never reached a server
	Streamed    bool      `parquet:"streamed"`
	Phase       string    `parquet:"phase"`  // cold, burst or steady; see TruthRow
	Status      int32     `parquet:"status"` // the client's status (0 cancel, 408 timeout)

	HasClient  bool `parquet:"has_client"`
	HasGateway bool `parquet:"has_gateway"`
	HasServer  bool `parquet:"has_server"`

	PromptTokens       int32 `parquet:"prompt_tokens"`
	OutputTokens       int32 `parquet:"output_tokens"`        // produced by the server
	ClientOutputTokens int32 `parquet:"client_output_tokens"` // received by the client

	ClientE2EMs       *float64 `parquet:"client_e2e_ms,optional"`
	GatewayE2EMs      *float64 `parquet:"gateway_e2e_ms,optional"`
	ServerE2EMs       *float64 `parquet:"server_e2e_ms,optional"`
	NetworkMs         *float64 `parquet:"network_ms,optional"`
	ApplicationMs     *float64 `parquet:"application_ms,optional"`
	QueueMs           *float64 `parquet:"queue_ms,optional"`
	ModelMs           *float64 `parquet:"model_ms,optional"`
	ClientTTFTMs      *float64 `parquet:"client_ttft_ms,optional"`
	ServerTTFTMs      *float64 `parquet:"server_ttft_ms,optional"`
	TTFTQueueMs       *float64 `parquet:"ttft_queue_ms,optional"`
	TTFTModelMs       *float64 `parquet:"ttft_model_ms,optional"`
	TTFTApplicationMs *float64 `parquet:"ttft_application_ms,optional"`
	TTFTNetworkMs     *float64 `parquet:"ttft_network_ms,optional"`
	TPSUser           *float64 `parquet:"tps_user,optional"`
	Imperfection      string   `parquet:"imperfection"` // ";"-separated kinds, e.g. "lost:server;error:timeout"
}

var truthHeader = []string{
	"request_id", "client_start", "model", "use_case", "region", "client", "gateway", "replica",
	"streamed", "phase", "status", "has_client", "has_gateway", "has_server",
	"prompt_tokens", "output_tokens", "client_output_tokens",
	"client_e2e_ms", "gateway_e2e_ms", "server_e2e_ms", "network_ms", "application_ms",
	"queue_ms", "model_ms", "client_ttft_ms", "server_ttft_ms", "ttft_queue_ms",
	"ttft_model_ms", "ttft_application_ms", "ttft_network_ms", "tps_user", "imperfection",
}

// truthWriter streams rows to truth.parquet and truth.csv in small batches.
type truthWriter struct {
	pf    *os.File
	pw    *parquet.GenericWriter[TruthRow]
	cf    *os.File
	cb    *bufio.Writer
	cw    *csv.Writer
	batch []TruthRow
	rows  int
	rec   []string
}

func newTruthWriter(out string, rowGroup int) (*truthWriter, error) {
	pf, err := os.Create(filepath.Join(out, "truth.parquet"))
	if err != nil {
		return nil, err
	}
	cf, err := os.Create(filepath.Join(out, "truth.csv"))
	if err != nil {
		pf.Close()
		return nil, err
	}
	t := &truthWriter{
		pf: pf,
		pw: parquet.NewGenericWriter[TruthRow](pf,
			parquet.MaxRowsPerRowGroup(int64(rowGroup)),
			parquet.Compression(&parquet.Snappy), // zstd keeps a large window per column
			parquet.CreatedBy("infertrace-simulate", "", "")),
		cf:    cf,
		batch: make([]TruthRow, 0, 1024),
	}
	t.cb = bufio.NewWriterSize(cf, 64<<10)
	t.cw = csv.NewWriter(t.cb)
	if err := t.cw.Write(truthHeader); err != nil {
		t.close()
		return nil, err
	}
	return t, nil
}

func fmtOpt(p *float64) string {
	if p == nil {
		return ""
	}
	return strconv.FormatFloat(*p, 'f', -1, 64)
}

func (t *truthWriter) add(r TruthRow) error {
	t.rows++
	rec := append(t.rec[:0],
		r.RequestID, r.ClientStart.UTC().Format("2006-01-02T15:04:05.000000Z07:00"),
		r.Model, r.UseCase, r.Region, r.Client, r.Gateway, r.Replica,
		strconv.FormatBool(r.Streamed), r.Phase, strconv.Itoa(int(r.Status)),
		strconv.FormatBool(r.HasClient), strconv.FormatBool(r.HasGateway), strconv.FormatBool(r.HasServer),
		strconv.Itoa(int(r.PromptTokens)), strconv.Itoa(int(r.OutputTokens)), strconv.Itoa(int(r.ClientOutputTokens)),
		fmtOpt(r.ClientE2EMs), fmtOpt(r.GatewayE2EMs), fmtOpt(r.ServerE2EMs), fmtOpt(r.NetworkMs),
		fmtOpt(r.ApplicationMs), fmtOpt(r.QueueMs), fmtOpt(r.ModelMs), fmtOpt(r.ClientTTFTMs),
		fmtOpt(r.ServerTTFTMs), fmtOpt(r.TTFTQueueMs), fmtOpt(r.TTFTModelMs),
		fmtOpt(r.TTFTApplicationMs), fmtOpt(r.TTFTNetworkMs), fmtOpt(r.TPSUser), r.Imperfection)
	t.rec = rec
	if err := t.cw.Write(rec); err != nil {
		return err
	}
	t.batch = append(t.batch, r)
	if len(t.batch) == cap(t.batch) {
		return t.flushBatch()
	}
	return nil
}

func (t *truthWriter) flushBatch() error {
	if len(t.batch) == 0 {
		return nil
	}
	_, err := t.pw.Write(t.batch)
	clear(t.batch)
	t.batch = t.batch[:0]
	if err != nil {
		return fmt.Errorf("writing truth.parquet: %w", err)
	}
	return nil
}

func (t *truthWriter) close() error {
	err := t.flushBatch()
	if e := t.pw.Close(); err == nil {
		err = e
	}
	if e := t.pf.Close(); err == nil {
		err = e
	}
	t.cw.Flush()
	if e := t.cw.Error(); err == nil {
		err = e
	}
	if e := t.cb.Flush(); err == nil {
		err = e
	}
	if e := t.cf.Close(); err == nil {
		err = e
	}
	return err
}
