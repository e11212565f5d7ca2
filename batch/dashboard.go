package batch

import (
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"html/template"
	"slices"
	"strings"

	atesor "github.com/eclipse-atesor/atesor-go"
)

//go:embed dashboard.html.tmpl
var dashboardSrc string

var dashboardTmpl = template.Must(template.New("dashboard").Funcs(template.FuncMap{
	"dur":    dur,
	"color":  classColor,
	"status": func(s atesor.Status) string { return strings.ReplaceAll(string(s), "_", " ") },
	"cost":   func(x float64) string { return fmt.Sprintf("$%.4f", x) },
	"reason": func(r Record) string {
		return truncate(cmpOr(r.Error, r.Reason), 300)
	},
}).Parse(dashboardSrc))

// classColors colour the failure classes in the table and the charts.
var classColors = map[string]string{
	"none": "#2e7d32", "tests": "#f9a825", "build": "#c62828", "verify": "#6a1b9a", "infra": "#616161",
	"budget": "#ef6c00", "setup": "#1565c0", "dependency": "#4e342e", "escalated": "#880e4f", "unknown": "#9e9e9e",
}

func classColor(class string) string {
	if c, ok := classColors[class]; ok {
		return c
	}
	return "#9e9e9e"
}

// bar is one bar of a horizontal bar chart, laid out in SVG coordinates.
type bar struct {
	Label, Text, Color string
	Y, W               float64
}

// chart is a horizontal bar chart rendered as inline SVG.
type chart struct {
	ID, Title      string
	Width, Height  float64
	LabelW, BarMax float64
	BarH           float64
	Bars           []bar
}

const (
	chartWidth = 560.0
	chartLabel = 160.0
	chartBarH  = 18.0
	chartGap   = 6.0
)

// newChart lays out bars for values; text is the label shown after each bar.
func newChart(id, title string, labels []string, values []float64, texts, colors []string) chart {
	c := chart{ID: id, Title: title, Width: chartWidth, LabelW: chartLabel, BarMax: chartWidth - chartLabel - 90, BarH: chartBarH}
	maxV := 0.0
	for _, v := range values {
		maxV = max(maxV, v)
	}
	for i, l := range labels {
		w := 0.0
		if maxV > 0 {
			w = values[i] / maxV * c.BarMax
		}
		if values[i] > 0 {
			w = max(w, 2) // a tiny non-zero value stays visible
		}
		c.Bars = append(c.Bars, bar{Label: truncate(l, 24), Text: texts[i], Color: colors[i],
			Y: 28 + float64(i)*(chartBarH+chartGap), W: round(w, 1)})
	}
	c.Height = 28 + float64(max(len(labels), 1))*(chartBarH+chartGap) + 8
	return c
}

type dashboardData struct {
	S       *Summary
	Updated string
	Charts  []chart
}

// Dashboard renders the summary as one self-contained HTML page: the counts, a chart of
// the verdicts by failure class and by status, charts of wall time and cost per
// package, and the per-package table. Charts are inline SVG; the page loads nothing and
// runs no script.
func Dashboard(s *Summary) ([]byte, error) {
	d := dashboardData{S: s}
	if !s.Updated.IsZero() {
		d.Updated = s.Updated.UTC().Format("2006-01-02 15:04 UTC")
	}
	classes := sortedKeys(s.ByClass)
	var vals []float64
	var texts, colors []string
	for _, k := range classes {
		vals = append(vals, float64(s.ByClass[k]))
		texts = append(texts, fmt.Sprint(s.ByClass[k]))
		colors = append(colors, classColor(k))
	}
	d.Charts = append(d.Charts, newChart("chart-classes", "Verdicts by failure class", classes, vals, texts, colors))

	statuses := make([]string, 0, len(s.ByStatus))
	for st := range s.ByStatus {
		statuses = append(statuses, string(st))
	}
	slices.Sort(statuses)
	vals, texts, colors = nil, nil, nil
	for _, st := range statuses {
		n := s.ByStatus[atesor.Status(st)]
		vals = append(vals, float64(n))
		texts = append(texts, fmt.Sprint(n))
		colors = append(colors, statusColor(atesor.Status(st)))
	}
	d.Charts = append(d.Charts, newChart("chart-status", "Packages by status", statuses, vals, texts, colors))

	byTime := slices.Clone(s.Packages)
	slices.SortStableFunc(byTime, func(a, b Record) int { return -cmp.Compare(a.Seconds, b.Seconds) })
	var names []string
	vals, texts, colors = nil, nil, nil
	for _, r := range byTime {
		names = append(names, r.Name)
		vals = append(vals, r.Seconds.Duration().Seconds())
		texts = append(texts, dur(r.Seconds))
		colors = append(colors, classColor(r.Class()))
	}
	d.Charts = append(d.Charts, newChart("chart-time", "Wall time per package", names, vals, texts, colors))

	byCost := slices.Clone(s.Packages)
	slices.SortStableFunc(byCost, func(a, b Record) int { return -cmp.Compare(a.CostUSD, b.CostUSD) })
	names, vals, texts, colors = nil, nil, nil, nil
	for _, r := range byCost {
		names = append(names, r.Name)
		vals = append(vals, r.CostUSD)
		texts = append(texts, fmt.Sprintf("$%.4f", r.CostUSD))
		colors = append(colors, classColor(r.Class()))
	}
	d.Charts = append(d.Charts, newChart("chart-cost", "Model cost per package", names, vals, texts, colors))

	var buf bytes.Buffer
	if err := dashboardTmpl.Execute(&buf, d); err != nil {
		return nil, fmt.Errorf("batch: dashboard: %w", err)
	}
	return buf.Bytes(), nil
}

func statusColor(s atesor.Status) string {
	switch s {
	case atesor.StatusVerified, atesor.StatusCached:
		return classColor("none")
	case atesor.StatusTestsFailing:
		return classColor("tests")
	case atesor.StatusEscalated:
		return classColor("escalated")
	case atesor.StatusFailed:
		return classColor("setup")
	}
	return classColor("build")
}
