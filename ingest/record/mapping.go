package record

import "fmt"

// Mapping is a loaded and checked mapping file (--map FILE): where the
// columns of one tier's rows are in a JSON-lines log of any shape. The
// format that reads through mappings (jsonl, ingest/formats/mapped.go)
// registers how mapping files are loaded with registerMapping.
type Mapping struct {
	File string // as given, for messages
	Tier Tier
	// Format reads the inputs given with this mapping: a format of its
	// own, as workers keep one parser per format.
	Format *Format
	// Check says which mapped path a file's first JSON object line lacks.
	Check func(line []byte) error
}

// mappingLoader is the format that reads through mapping files and how it
// loads one.
var mappingLoader struct {
	format string
	load   func(path string) (*Mapping, error)
}

func RegisterMapping(format string, load func(path string) (*Mapping, error)) {
	mappingLoader.format, mappingLoader.load = format, load
}

// MappingFormat is the name of the format that reads through mapping
// files; empty when none is registered.
func MappingFormat() string { return mappingLoader.format }

// LoadMapping reads and checks a mapping file: TOML (.toml) or YAML (.yaml,
// .yml) by its extension.
func LoadMapping(path string) (*Mapping, error) {
	if mappingLoader.load == nil {
		return nil, fmt.Errorf("mapping %s: no format reads mapping files", path)
	}
	return mappingLoader.load(path)
}
