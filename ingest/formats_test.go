package ingest

// The pipeline's tests read logs of the registered formats: every reader of
// ingest/formats registers itself when the package is loaded.
import _ "github.com/infertrace/infertrace/ingest/formats"
