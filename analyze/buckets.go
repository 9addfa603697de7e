package analyze

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/infertrace/infertrace/internal/duck"
)

// DefaultTokenEdges are the edges of the prompt_bucket and output_bucket
// slice columns when SummaryOptions.TokenEdges is empty: <512, 512-2k,
// 2k-8k, 8k-32k, >=32k tokens.
var DefaultTokenEdges = []int64{512, 2048, 8192, 32768}

// tokenBucketColumns are the slice columns computed from token counts,
// each from its requests.parquet column.
var tokenBucketColumns = map[string]string{
	"prompt_bucket": "prompt_tokens",
	"output_bucket": "output_tokens",
}

// ParseTokenEdges reads bucket edges, "512,2k,8k,32k" (k = 1024 tokens):
// positive and increasing.
func ParseTokenEdges(s string) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(s, ",") {
		f = strings.TrimSpace(f)
		mult := int64(1)
		if t, ok := strings.CutSuffix(strings.ToLower(f), "k"); ok {
			f, mult = t, 1024
		}
		v, err := strconv.ParseInt(f, 10, 64)
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("token bucket edges %q: want positive token counts such as 512,2k,8k,32k", s)
		}
		v *= mult
		if len(out) > 0 && v <= out[len(out)-1] {
			return nil, fmt.Errorf("token bucket edges %q: want increasing edges", s)
		}
		out = append(out, v)
	}
	return out, nil
}

// tokenLabel prints an edge: 2048 as "2k", 512 as "512".
func tokenLabel(e int64) string {
	if e%1024 == 0 {
		return strconv.FormatInt(e/1024, 10) + "k"
	}
	return strconv.FormatInt(e, 10)
}

// bucketExpr is the SQL of a token bucket over column col: for edges
// e1 < e2 < ... the labels "<e1", "e1-e2", ..., ">=en"; an edge belongs to
// the bucket above it; NULL tokens give NULL.
func bucketExpr(col string, edges []int64) string {
	var b strings.Builder
	b.WriteString("CASE WHEN " + col + " IS NULL THEN NULL")
	for i, e := range edges {
		label := "<" + tokenLabel(e)
		if i > 0 {
			label = tokenLabel(edges[i-1]) + "-" + tokenLabel(e)
		}
		fmt.Fprintf(&b, " WHEN %s < %d THEN %s", col, e, duck.Quote(label))
	}
	b.WriteString(" ELSE " + duck.Quote(">="+tokenLabel(edges[len(edges)-1])) + " END")
	return b.String()
}

// sliceExpr is the SQL giving slice column c (whitelisted by the caller)
// as text, over the requests view: the column itself, or its token bucket
// with edges (DefaultTokenEdges when empty).
func sliceExpr(c string, edges []int64) string {
	if len(edges) == 0 {
		edges = DefaultTokenEdges
	}
	if col, ok := tokenBucketColumns[c]; ok {
		return bucketExpr(col, edges)
	}
	return "CAST(" + c + " AS VARCHAR)"
}
