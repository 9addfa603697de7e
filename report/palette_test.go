package report

import (
	"bytes"
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/infertrace/infertrace/analyze"
)

// okabeIto is the palette of Okabe and Ito, written out here rather than
// taken from chart.go, so that a change of the constants fails the test.
var okabeIto = map[string]bool{"#E69F00": true, "#56B4E9": true, "#009E73": true, "#F0E442": true,
	"#0072B2": true, "#D55E00": true, "#CC79A7": true, "#000000": true}

// TestPaletteOkabeIto: every data mark of the rendered report (component
// bars of the summary and the attribution chart, percentile curves and
// their dots, time-series bars) is filled or stroked in an Okabe–Ito
// colour, and queue and model, the two components most weighed against
// each other, are orange and blue.
func TestPaletteOkabeIto(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	if err := Render(&buf, "html", standardResult(t)); err != nil {
		t.Fatal(err)
	}
	html := buf.String()
	// Data marks carry a <title> (bars, dots) or are the curves' polylines.
	marks := regexp.MustCompile(`<(rect|circle)( class="[^"]*")? [^>]*fill="(#[0-9A-Fa-f]{6})"><title>([^<]*)</title>|<polyline [^>]*stroke="(#[0-9A-Fa-f]{6})"`)
	n := map[string]int{}
	for _, m := range marks.FindAllStringSubmatch(html, -1) {
		if m[2] != "" { // class="burst" or "cold": the shading of windows, not data
			continue
		}
		color := m[3] + m[5]
		kind := m[1]
		if kind == "" {
			kind = "polyline"
		}
		n[kind]++
		if !okabeIto[color] {
			t.Errorf("%s %q is drawn in %s, not an Okabe–Ito colour", kind, m[4], color)
		}
		for name, want := range map[string]string{"queue": "#E69F00", "model": "#0072B2"} {
			if kind == "rect" && strings.Contains(m[4], ", "+name+", ") && color != want {
				t.Errorf("%s bar %q is %s, want %s", name, m[4], color, want)
			}
		}
	}
	// The standard fixture has 4 slices, so 4 curves in each of its
	// percentile charts (3 in the TTFT one), dots on them and many bars.
	if n["rect"] < 20 || n["circle"] < 16 || n["polyline"] < 7 {
		t.Errorf("too few data marks found (%v): the pattern no longer matches the charts", n)
	}
	// Nine slices and all requests: the eighth slice has the first
	// slice's colour, dashed; no two curves look alike.
	var rows []distRow
	for i := range 10 {
		v := float64(100 + i)
		rows = append(rows, distRow{Label: fmt.Sprint("s", i), Dist: analyze.Dist{N: 100, P50: &v}})
	}
	c := newCurveChart("client E2E", "ms", rows)
	seen := map[string]string{}
	for i, l := range c.Lines {
		if !okabeIto[l.Color] {
			t.Errorf("curve %d in %s, not an Okabe–Ito colour", i, l.Color)
		}
		if prev, ok := seen[l.Color+"/"+l.Dash]; ok {
			t.Errorf("curves %s and %s are both %s dashed %q", prev, l.Label, l.Color, l.Dash)
		}
		seen[l.Color+"/"+l.Dash] = l.Label
	}
	if l := c.Lines[8]; l.Color != c.Lines[1].Color || l.Dash != "6 3" || c.Lines[1].Dash != "" || c.Lines[0].Color != "#000000" {
		t.Errorf("all requests %s; slice 1 %s %q; slice 8 %s %q: want black, then slice 8 as slice 1 dashed 6 3", c.Lines[0].Color, c.Lines[1].Color, c.Lines[1].Dash, l.Color, l.Dash)
	}
}
