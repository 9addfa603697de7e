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
	if err := Render(&buf, "html", standardResult(t), nil); err != nil {
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

// TestComparePaletteOkabeIto: compare.html and explain.html draw in the
// report's colours. Every bar of compare's chart is its component's colour
// (client E2E black), the baseline pale and the target solid, and its key
// names them; explain's waterfall colours the gateway's own work as
// application, the server's queue as queue and its prefill and decode as
// model, the spans holding several components black and pale; and no page
// uses the red and green that told worse from better (or reject from
// accept) apart, which the most common colour blindness cannot.
func TestComparePaletteOkabeIto(t *testing.T) {
	t.Parallel()
	render := func(f func(*bytes.Buffer) error) string {
		var b bytes.Buffer
		if err := f(&b); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	cmp := render(func(b *bytes.Buffer) error { return RenderCompare(b, "html", compareFixture()) })
	cv := compareFixture()
	cv.Verdict = verdictFixture()
	cmpVerdict := render(func(b *bytes.Buffer) error { return RenderCompare(b, "html", cv) })
	exp := render(func(b *bytes.Buffer) error { return RenderExplain(b, "html", explainFixture()) })

	bar := regexp.MustCompile(`<rect x="150" y="\d+" width="[\d.]+" height="14" fill="(#[0-9A-Fa-f]{6})"( fill-opacity="0.35")?><title>(baseline|target) `)
	want := []string{"#000000", "#56B4E9", "#CC79A7", "#E69F00", "#0072B2"} // client E2E, network, application, queue, model
	bars := bar.FindAllStringSubmatch(cmp, -1)
	if len(bars) != 2*len(want) {
		t.Fatalf("compare chart: %d bars, want %d", len(bars), 2*len(want))
	}
	for i, m := range bars {
		if m[1] != want[i/2] {
			t.Errorf("compare chart: bar %d (%s) is %s, want %s", i, m[3], m[1], want[i/2])
		}
		if pale := m[2] != ""; pale != (m[3] == "baseline") {
			t.Errorf("compare chart: bar %d (%s) pale %v, want the baseline pale and the target solid", i, m[3], pale)
		}
	}
	for i, name := range []string{"client E2E", "network", "application", "queue", "model"} {
		if key := `<span class="swatch" style="background: ` + want[i] + `"></span>` + name; !strings.Contains(cmp, key) {
			t.Errorf("compare chart's key lacks %q", key)
		}
	}

	box := regexp.MustCompile(`fill="(#[0-9A-Fa-f]{6})"( fill-opacity="0.3")?( rx="1")?><title>(client|gateway|server) ([^:]+):`)
	wantBox := map[string]string{"client request → response": "#000000 pale", "gateway before forwarding": "#CC79A7",
		"gateway upstream": "#000000 pale", "server queue": "#E69F00", "server prefill": "#0072B2", "server decode": "#0072B2"}
	seen := 0
	for _, m := range box.FindAllStringSubmatch(exp, -1) {
		got := m[1]
		if m[2] != "" {
			got += " pale"
		}
		if w, ok := wantBox[m[4]+" "+m[5]]; !ok || got != w {
			t.Errorf("explain waterfall: %s %s is %s, want %q", m[4], m[5], got, w)
		}
		seen++
	}
	if seen != len(wantBox) {
		t.Errorf("explain waterfall: %d boxes found, want %d", seen, len(wantBox))
	}

	fills := regexp.MustCompile(`(fill|stroke|background|border-color): ?"?(#[0-9A-Fa-f]{6})`)
	for name, page := range map[string]string{"compare": cmp, "compare with a verdict": cmpVerdict, "explain": exp} {
		for _, m := range fills.FindAllStringSubmatch(page, -1) {
			switch strings.ToLower(m[2]) {
			case "#c0392b", "#2e7d32", "#fde2de", "#e1f3e1", "#e8f5e9", "#fdecea", "#9aa7b8", "#4a7ab0", "#8a6fb0":
				t.Errorf("%s: %s %s is of the old red-and-green palette", name, m[1], m[2])
			}
		}
	}
}
