package ingest

import (
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/zeebo/xxh3"

	"github.com/infertrace/infertrace/internal/textsafe"
)

// A store is an output directory that grows batch by batch (ingest
// --append): each batch adds its own part files, named by its run ID, and
// the manifest lists the files of every batch. Rules:
//
//   - A file's identity is its content: its size and the XXH3-128 of its
//     bytes as stored (FileStats.Fingerprint), computed while it is read.
//     Whatever its path, a file whose identity is already in the store (or
//     earlier in the same batch) for the same tier is skipped with a note:
//     never read twice, never counted twice. Only files whose size equals
//     that of a file already in the store (or in the batch) are hashed
//     before reading, to find out; the others cannot be the same.
//   - A path already in the store whose content is different is read as new
//     content (a rotated log's new file under the old name), unless it
//     begins with exactly the content that was ingested: a log that grew
//     since is refused, naming the file, before anything is written, since
//     its first lines are in the store already. Ingest logs once they are
//     complete (rotated), or ingest the store again without --append.
//   - A compressed file and its uncompressed copy are different files.
//   - The manifest is the commit point: it is written last, and part files
//     of a run it does not list (a run killed before its manifest) are
//     removed by the next ingest and never read by analyze.

// Batch is one ingest into a store.
type Batch struct {
	RunID string `json:"run_id"`
	// Files is the number of files this batch read; Skipped the files given
	// to it that were already in the store.
	Files   int           `json:"files"`
	Skipped []SkippedFile `json:"skipped,omitempty"`
}

// SkippedFile is a file given to an append that the store holds already.
type SkippedFile struct {
	Tier Tier   `json:"tier"`
	Path string `json:"path"`
	// SameAs is the path under which the store holds the same content.
	SameAs string `json:"same_as"`
}

// newHash is the hash of fingerprints: 128-bit XXH3, which keeps pace with
// ingest (SHA-256 cost an eighth of its CPU) and, beside the size, makes an
// accidental match of two different logs vanishingly unlikely. It guards
// against a file given twice, not against a forged one.
func newHash() *xxh3.Hasher { return xxh3.New() }

// fingerprint returns "xxh3-128:<hex>" of h.
func fingerprint(h *xxh3.Hasher) string {
	b := h.Sum128().Bytes()
	return "xxh3-128:" + hex.EncodeToString(b[:])
}

// hashFile is the fingerprint of the first n bytes of path (all when n < 0).
func hashFile(path string, n int64) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := newHash()
	var r io.Reader = f
	if n >= 0 {
		r = io.LimitReader(f, n)
	}
	got, err := io.Copy(h, r)
	if err != nil {
		return "", err
	}
	if n >= 0 && got < n {
		return "", fmt.Errorf("%s: shorter than %d bytes", path, n)
	}
	return fingerprint(h), nil
}

// ErrGrew is wrapped by the error of an append given a file that grew since
// it was ingested.
var ErrGrew = errors.New("grew since it was ingested")

// dedupe drops from files those whose content the store (prev, may be
// nil) or an earlier file of the batch holds already, and refuses a file
// that grew since it was ingested. It hashes only files whose size equals
// another's (see the rules above).
//
// An object (an s3:// input) listed with the URL, size and ETag of one in
// the store is skipped as unchanged without being read; hashing any other
// object reads it, once more, as a stream.
func dedupe(ctx context.Context, prev *Manifest, files []*source, log io.Writer) ([]*source, []SkippedFile, error) {
	type ident struct {
		tier Tier
		size int64
		fp   string
	}
	known := map[ident]string{}       // -> path
	sizes := map[Tier]map[int64]int{} // sizes that may repeat
	addSize := func(t Tier, n int64) {
		if sizes[t] == nil {
			sizes[t] = map[int64]int{}
		}
		sizes[t][n]++
	}
	byPath := map[string]FileStats{}
	if prev != nil {
		for _, f := range prev.Files {
			if f.Fingerprint == "" {
				continue
			}
			known[ident{f.Tier, f.Bytes, f.Fingerprint}] = f.Path
			addSize(f.Tier, f.Bytes)
			byPath[string(f.Tier)+"\x00"+f.Path] = f
		}
	}
	var kept []*source
	var skipped []SkippedFile
	size := make([]int64, len(files))
	for i, s := range files {
		// -1 for standard input too: checkUnique compares it once read.
		if size[i] = sourceSize(s); size[i] >= 0 {
			addSize(s.stats.Tier, size[i])
		}
	}
	skip := func(s *source, same string) {
		t := s.stats.Tier
		skipped = append(skipped, SkippedFile{Tier: t, Path: s.stats.Path, SameAs: same})
		if log != nil {
			how := "the same content as " + textsafe.Escape(same)
			if same == s.stats.Path {
				how = "unchanged"
			}
			fmt.Fprintf(log, "note: --%s %s is in the store already (%s): skipped\n", t, textsafe.Escape(s.stats.Path), how)
		}
	}
	for i, s := range files {
		t, n := s.stats.Tier, size[i]
		if n <= 0 { // unreadable or empty: nothing to count twice
			kept = append(kept, s)
			continue
		}
		old, inStore := byPath[string(t)+"\x00"+s.stats.Path]
		if inStore && s.remote != nil && old.ETag != "" && old.ETag == s.stats.ETag && old.Bytes == n {
			skip(s, s.stats.Path)
			continue
		}
		// An empty file held no line: whatever it holds now is new.
		if inStore && old.Bytes > 0 && n > old.Bytes {
			fp, err := hashSource(ctx, s, old.Bytes)
			if err == nil && fp == old.Fingerprint {
				return nil, nil, fmt.Errorf("--%s %s: %w (%d bytes then, %d now): its first lines are in the store already; ingest logs once they are complete (rotated), or ingest the store again without --append",
					t, s.stats.Path, ErrGrew, old.Bytes, n)
			}
		}
		if sizes[t][n] < 2 {
			kept = append(kept, s)
			continue
		}
		fp, err := hashSource(ctx, s, -1)
		if err != nil { // reading it will say why
			if ctx.Err() != nil {
				return nil, nil, context.Cause(ctx)
			}
			kept = append(kept, s)
			continue
		}
		id := ident{t, n, fp}
		if same, ok := known[id]; ok {
			skip(s, same)
			continue
		}
		known[id] = s.stats.Path
		kept = append(kept, s)
	}
	for i, s := range kept {
		s.idx = i
	}
	return kept, skipped, nil
}

// checkUnique refuses a batch two of whose files, or one of whose files and
// the store, turned out to hold the same content once read (a file changed
// between dedupe and reading, or a twin dedupe could not hash): their lines
// would be counted twice. It runs before the manifest is written.
func checkUnique(prev *Manifest, files []*source) error {
	seen := map[string]string{}
	if prev != nil {
		for _, f := range prev.Files {
			if f.Fingerprint != "" {
				seen[fmt.Sprint(f.Tier, f.Bytes, f.Fingerprint)] = f.Path
			}
		}
	}
	for _, s := range files {
		f := s.stats
		if f.Fingerprint == "" || f.Bytes == 0 {
			continue
		}
		k := fmt.Sprint(f.Tier, f.Bytes, f.Fingerprint)
		if same, ok := seen[k]; ok {
			return fmt.Errorf("--%s %s holds the same content as %s (it changed while being read, or could not be compared before): nothing of this run was kept; ingest again",
				f.Tier, f.Path, same)
		}
		seen[k] = f.Path
	}
	return nil
}

// ErrNotAppendable is wrapped by the error of an append to a directory whose
// manifest lists no batches (written before ingest could append).
var ErrNotAppendable = errors.New("cannot be appended to")

// appendBase reads the manifest an append adds to: nil when dir holds none
// (the append is the store's first batch).
func appendBase(dir string) (*Manifest, error) {
	m, err := ReadManifest(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s/manifest.json: %w", dir, err)
	}
	if len(m.Batches) == 0 {
		return nil, fmt.Errorf("%s %w: its manifest.json lists no batches (an ingest of an older infertrace); ingest it again without --append", dir, ErrNotAppendable)
	}
	return m, nil
}

// prepareAppend readies dir for another batch: what analyze and report
// derived from the store is removed (see superseded and requestParts; it
// no longer describes the store), as are any .tmp left by a killed run and the part
// files of runs the manifest does not list; the parts, rejects and
// manifest of the store stay.
func prepareAppend(dir string, prev *Manifest) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	old := requestParts(dir)
	for _, name := range superseded {
		old = append(old, filepath.Join(dir, name+".tmp"))
		if name != "manifest.json" && name != "rejects.jsonl" {
			old = append(old, filepath.Join(dir, name))
		}
	}
	runs := map[string]bool{}
	for _, b := range prev.Batches {
		runs[b.RunID] = true
	}
	for _, p := range partFiles(dir) {
		if strings.HasSuffix(p, ".tmp") || !runs[partRun(filepath.Base(p))] {
			old = append(old, p)
		}
	}
	for _, p := range old {
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("remove %s: %w", p, err)
		}
	}
	removeEmptyPartitions(dir)
	return nil
}

// partFiles lists every part file (and .tmp) of dir's tiers: in the
// partition directories, and directly in DIR/<tier> (older layout).
func partFiles(dir string) []string {
	var out []string
	for _, t := range Tiers {
		for _, pattern := range []string{"part-*.parquet", "part-*.parquet.tmp"} {
			for _, sub := range []string{"", PartitionColumn + "=*"} {
				paths, _ := filepath.Glob(filepath.Join(dir, string(t), sub, pattern))
				out = append(out, paths...)
			}
		}
	}
	return out
}

// partRun is the run ID in a part file's name, part-<run>-<worker>…; "" for
// a name of another shape.
func partRun(name string) string {
	rest, ok := strings.CutPrefix(name, "part-")
	if !ok {
		return ""
	}
	run, _, ok := strings.Cut(rest, "-")
	if !ok {
		return ""
	}
	return run
}

// removeEmptyPartitions removes the partition directories left empty.
func removeEmptyPartitions(dir string) {
	os.Remove(filepath.Join(dir, requestsPartsDir)) // only succeeds when empty
	for _, t := range Tiers {
		subs, _ := filepath.Glob(filepath.Join(dir, string(t), PartitionColumn+"=*"))
		for _, s := range subs {
			os.Remove(s) // only succeeds when empty
		}
	}
}

// copyPrefix copies the first n bytes of the file at path to w (nothing
// when n is 0).
func copyPrefix(w io.Writer, path string, n int64) error {
	if n == 0 {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	got, err := io.Copy(w, io.LimitReader(f, n))
	if err == nil && got < n {
		err = fmt.Errorf("%s: %d bytes, the manifest accounts for %d", path, got, n)
	}
	return err
}
