package eval

import (
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"slices"
)

//go:embed report.html.tmpl
var reportHTML string

var reportTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"mul100":  func(f float64) float64 { return 100 * f },
	"seconds": func(ms int64) float64 { return float64(ms) / 1000 },
}).Parse(reportHTML))

// Plot geometry, in SVG user units.
const (
	plotW     = 640
	plotLeft  = 180 // room for the configuration labels
	rowH      = 34
	plotTop   = 10
	plotAxisH = 30
)

type barRow struct {
	Label       string
	Y, W, TextY float64
	Lo, Hi      float64 // the interval's ends, in x
	Value       string
}

type dot struct {
	X, Y  float64
	Title string
}

type distPlot struct {
	ID, Title, Unit string
	Height          float64
	Rows            []barRow // labels only
	Dots            []dot
	Ticks           []tick
}

type tick struct {
	X     float64
	Label string
}

type gridCell struct {
	Text, Title string
	Color       template.CSS
}

type gridRow struct {
	Task  string
	Cells []gridCell
}

type reportData struct {
	Title      string
	Summaries  []Summary
	PassHeight float64
	PassRows   []barRow
	PassTicks  []tick
	Plots      []distPlot
	Configs    []string
	Grid       []gridRow
}

// WriteHTML writes a self-contained HTML report of recs: the summary
// table, each configuration's pass rate with its 95% (Wilson) interval,
// the distributions of cost and turns per run, and a grid of tasks by
// configuration. It loads nothing from the network.
func WriteHTML(w io.Writer, title string, recs []Record) error {
	sums := Summarize(recs)
	d := reportData{Title: title, Summaries: sums}
	scale := float64(plotW - plotLeft - 20)
	d.PassHeight = float64(plotTop + rowH*len(sums) + plotAxisH)
	for i, s := range sums {
		lo, hi := wilson(s.Passed, s.Runs)
		y := float64(plotTop + rowH*i)
		d.PassRows = append(d.PassRows, barRow{Label: s.Config.String(), Y: y + 6, W: s.PassRate * scale, TextY: y + rowH/2 + 4,
			Lo: plotLeft + lo*scale, Hi: plotLeft + hi*scale, Value: fmt.Sprintf("%.0f%% [%.0f, %.0f]", 100*s.PassRate, 100*lo, 100*hi)})
		d.Configs = append(d.Configs, s.Config.String())
	}
	for _, f := range []float64{0, 0.25, 0.5, 0.75, 1} {
		d.PassTicks = append(d.PassTicks, tick{X: plotLeft + f*scale, Label: fmt.Sprintf("%.0f%%", 100*f)})
	}
	d.Plots = []distPlot{
		dist("cost", "Cost per run", "$", sums, recs, func(r Record) float64 { return r.Cost }),
		dist("turns", "Model calls per run", "", sums, recs, func(r Record) float64 { return float64(r.Turns) }),
	}
	d.Grid = grid(sums, recs)
	return reportTmpl.Execute(w, d)
}

// wilson is the 95% Wilson score interval of k passes in n runs.
func wilson(k, n int) (float64, float64) {
	if n == 0 {
		return 0, 0
	}
	const z = 1.959964
	p, nf := float64(k)/float64(n), float64(n)
	den := 1 + z*z/nf
	mid := (p + z*z/(2*nf)) / den
	half := z * math.Sqrt(p*(1-p)/nf+z*z/(4*nf*nf)) / den
	return max(0, mid-half), min(1, mid+half)
}

// dist plots one dot per run on its configuration's row.
func dist(id, title, unit string, sums []Summary, recs []Record, value func(Record) float64) distPlot {
	p := distPlot{ID: id, Title: title, Unit: unit, Height: float64(plotTop + rowH*len(sums) + plotAxisH)}
	top := 0.0
	for _, r := range recs {
		top = max(top, value(r))
	}
	if top == 0 {
		top = 1
	}
	scale := float64(plotW-plotLeft-20) / top
	row := map[Config]int{}
	for i, s := range sums {
		row[s.Config] = i
		p.Rows = append(p.Rows, barRow{Label: s.Config.String(), TextY: float64(plotTop+rowH*i) + rowH/2 + 4})
	}
	seen := map[Config]int{}
	for _, r := range recs {
		i := row[r.Config()]
		n := seen[r.Config()]
		seen[r.Config()]++
		// Spread dots of equal value over the row's height (no randomness:
		// the same records draw the same picture).
		y := float64(plotTop+rowH*i) + 8 + float64(n%5)*4.5
		v := value(r)
		p.Dots = append(p.Dots, dot{X: plotLeft + v*scale, Y: y, Title: fmt.Sprintf("%s #%d: %s%s", r.Task, r.Attempt, unit, trim(v))})
	}
	for _, f := range []float64{0, 0.5, 1} {
		p.Ticks = append(p.Ticks, tick{X: plotLeft + f*top*scale, Label: unit + trim(f*top)})
	}
	return p
}

func trim(v float64) string {
	if v == math.Trunc(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.4g", v)
}

func grid(sums []Summary, recs []Record) []gridRow {
	type cell struct{ pass, runs int }
	cells := map[string]map[Config]*cell{}
	for _, r := range recs {
		if cells[r.Task] == nil {
			cells[r.Task] = map[Config]*cell{}
		}
		c := cells[r.Task][r.Config()]
		if c == nil {
			c = &cell{}
			cells[r.Task][r.Config()] = c
		}
		c.runs++
		if r.Pass {
			c.pass++
		}
	}
	var tasks []string
	for t := range cells {
		tasks = append(tasks, t)
	}
	slices.Sort(tasks)
	var out []gridRow
	for _, t := range tasks {
		row := gridRow{Task: t}
		for _, s := range sums {
			c := cells[t][s.Config]
			if c == nil {
				row.Cells = append(row.Cells, gridCell{Text: "–", Color: template.CSS("#eee"), Title: "not run"})
				continue
			}
			f := float64(c.pass) / float64(c.runs)
			// From red (none passed) to green (all passed).
			color := template.CSS(fmt.Sprintf("hsl(%.0f, 60%%, 75%%)", 120*f))
			row.Cells = append(row.Cells, gridCell{Text: fmt.Sprintf("%d/%d", c.pass, c.runs), Color: color,
				Title: fmt.Sprintf("%s, %s: %d of %d runs passed", t, s.Config, c.pass, c.runs)})
		}
		out = append(out, row)
	}
	return out
}
