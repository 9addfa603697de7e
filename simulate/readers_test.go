package simulate

// The round-trip tests ingest what simulate writes, in every format: the
// readers of ingest/formats register themselves when the package is loaded.
import _ "github.com/infertrace/infertrace/ingest/formats"
