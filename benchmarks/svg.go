package benchmarks

import (
	"fmt"
	"html"
	"io"
	"slices"
	"strings"
)

// palette colours the scorers of a chart, in order (colour-blind-safe Okabe-Ito without its
// yellow, which is faint on white, then greys, then two of Paul Tol's muted colours, so the
// eleven scorers of `make bench` each have their own).
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#000000", "#999999", "#666666", "#882255", "#332288"}

// dash draws baselines and the oracle dashed, so the scorers under test stand out.
func dash(scorer string) string {
	if slices.Contains(Registered(), scorer) {
		return ` stroke-dasharray="5 3"`
	}
	return ""
}

// Chart geometry, in SVG user units.
const (
	panelW, panelH  = 300, 230
	plotL, plotT    = 46, 30
	plotW, plotH    = 230, 160
	legendRowHeight = 18
)

// WriteSVG draws recall against budget: one panel per source type (datasets merged), one
// line per scorer. Rows without a budget (natural mode) are left out. It is plain SVG with no
// script or external reference, so it renders on GitHub and in any browser.
func WriteSVG(w io.Writer, rows []Row) error {
	merged := filterRows(MergeRows(rows, bySourceType), func(r Row) bool { return r.Budget != nil })
	types := orderedKeys(merged, func(r Row) string { return r.SourceType })
	scorers := orderedKeys(merged, func(r Row) string { return r.Scorer })
	budgets := budgetsOf(merged)
	width := max(1, len(types)) * panelW
	legendCols := max(1, width/150)
	height := panelH + 10 + ((len(scorers)+legendCols-1)/legendCols)*legendRowHeight + 10

	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="11">`+"\n", width, height, width, height)
	b.WriteString(`<rect width="100%" height="100%" fill="#ffffff"/>` + "\n")
	xmax := 0.0
	for _, bu := range budgets {
		xmax = max(xmax, bu)
	}
	if xmax == 0 {
		xmax = 1
	}
	for p, st := range types {
		ox := p * panelW
		x := func(v float64) float64 { return float64(ox+plotL) + v/xmax*plotW }
		y := func(v float64) float64 { return float64(plotT) + (1-v)*plotH }
		n := 0
		for _, r := range merged {
			if r.SourceType == st {
				n = r.Cases
				break
			}
		}
		fmt.Fprintf(&b, `<text x="%d" y="18" font-size="13" font-weight="bold">%s (%d cases)</text>`+"\n", ox+plotL, html.EscapeString(st), n)
		for _, v := range []float64{0, 0.2, 0.4, 0.6, 0.8, 1} {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#dddddd"/>`+"\n", x(0), y(v), x(xmax), y(v))
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="end">%.1f</text>`+"\n", x(0)-4, y(v)+4, v)
		}
		for _, bu := range budgets {
			fmt.Fprintf(&b, `<line x1="%.1f" y1="%.1f" x2="%.1f" y2="%.1f" stroke="#dddddd"/>`+"\n", x(bu), y(0), x(bu), y(1))
			fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">%s</text>`+"\n", x(bu), y(0)+14, formatBudget(bu))
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%.1f" text-anchor="middle">token budget</text>`+"\n", x(xmax/2), y(0)+28)
		fmt.Fprintf(&b, `<text transform="translate(%d,%.1f) rotate(-90)" text-anchor="middle">recall</text>`+"\n", ox+12, y(0.5))
		fmt.Fprintf(&b, `<rect x="%.1f" y="%.1f" width="%d" height="%d" fill="none" stroke="#888888"/>`+"\n", x(0), y(1), plotW, plotH)
		for si, sc := range scorers {
			colour := palette[si%len(palette)]
			var pts []string
			for _, bu := range budgets {
				for _, r := range merged {
					if r.SourceType == st && r.Scorer == sc && *r.Budget == bu {
						pts = append(pts, fmt.Sprintf("%.1f,%.1f", x(bu), y(r.Recall)))
						fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="2.5" fill="%s"><title>%s %s: recall %.3f at %s</title></circle>`+"\n",
							x(bu), y(r.Recall), colour, html.EscapeString(sc), html.EscapeString(st), r.Recall, formatBudget(bu))
					}
				}
			}
			if len(pts) > 1 {
				fmt.Fprintf(&b, `<polyline points="%s" fill="none" stroke="%s" stroke-width="1.6"%s/>`+"\n", strings.Join(pts, " "), colour, dash(sc))
			}
		}
	}
	for si, sc := range scorers {
		lx := 10 + (si%legendCols)*150
		ly := panelH + 10 + (si/legendCols)*legendRowHeight
		colour := palette[si%len(palette)]
		fmt.Fprintf(&b, `<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="3"%s/>`+"\n", lx, ly, lx+20, ly, colour, dash(sc))
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`+"\n", lx+26, ly+4, html.EscapeString(sc))
	}
	b.WriteString("</svg>\n")
	_, err := io.WriteString(w, b.String())
	return err
}
