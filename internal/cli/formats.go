package cli

// Every input format registers itself with ingest/record when its package
// is loaded (ingest/formats); ingest reads logs only through that registry.
import _ "github.com/infertrace/infertrace/ingest/formats"
