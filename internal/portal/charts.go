package portal

import (
	"fmt"
	"html/template"
	"strings"
	"time"

	"github.com/hookd/hookd/internal/store"
)

// bucket is one hour of a chart: its attempts by how they ended.
type bucket struct {
	Hour                       time.Time
	Delivered, Retried, Failed int64
}

func (b bucket) attempts() int64 { return b.Delivered + b.Retried + b.Failed }

// Rate is the hour's success rate, 0 to 1 (0 without attempts).
func (b bucket) Rate() float64 {
	if n := b.attempts(); n > 0 {
		return float64(b.Delivered) / float64(n)
	}
	return 0
}

// Attempts is the hour's attempts.
func (b bucket) Attempts() int64 { return b.attempts() }

// series is a chart's hours, oldest first, and their totals.
type series struct {
	// Label names the span: "24 hours" or "7 days".
	Label   string
	Buckets []bucket
	Total   bucket
}

// Rate is the span's success rate.
func (s series) Rate() float64 { return s.Total.Rate() }

// seriesOf sums hours (of any endpoints) into the n hours ending with the
// one now falls in; hours outside are left out.
func seriesOf(label string, hours []store.StatsHour, now time.Time, n int) series {
	end := now.UTC().Truncate(time.Hour)
	start := end.Add(-time.Duration(n-1) * time.Hour)
	s := series{Label: label, Buckets: make([]bucket, n)}
	for i := range s.Buckets {
		s.Buckets[i].Hour = start.Add(time.Duration(i) * time.Hour)
	}
	for _, h := range hours {
		i := int(h.Hour.UTC().Sub(start) / time.Hour)
		if h.Hour.Before(start) || i >= n {
			continue
		}
		b := &s.Buckets[i]
		b.Delivered += h.Successes
		b.Retried += h.Retryable
		b.Failed += h.Failed()
	}
	for _, b := range s.Buckets {
		s.Total.Delivered += b.Delivered
		s.Total.Retried += b.Retried
		s.Total.Failed += b.Failed
	}
	return s
}

// Chart geometry, in SVG user units (the SVG scales to its box).
const (
	chartW, chartH = 720, 160
	chartPad       = 28 // left room for the scale, and bottom for the hours
)

// chart draws s as stacked bars (delivered, retried, failed) with the
// success rate as a line on a 0-100% scale, as an accessible SVG: role
// img, a <title> and <desc> saying the totals. The numbers are also in the
// table the page shows beside it.
func chart(s series) template.HTML {
	var peak int64
	for _, b := range s.Buckets {
		peak = max(peak, b.attempts())
	}
	plotW, plotH := float64(chartW-chartPad), float64(chartH-chartPad)
	slot := plotW / float64(len(s.Buckets))
	scale := func(n int64) float64 {
		if peak == 0 {
			return 0
		}
		return float64(n) / float64(peak) * (plotH - 8)
	}
	var w strings.Builder
	title := fmt.Sprintf("Attempts per hour, last %s", s.Label)
	desc := fmt.Sprintf("%d attempts: %d delivered, %d retried, %d failed; success rate %s.",
		s.Total.attempts(), s.Total.Delivered, s.Total.Retried, s.Total.Failed, pctOf(s.Total.Rate(), s.Total.attempts()))
	fmt.Fprintf(&w, `<svg class="chart" viewBox="0 0 %d %d" role="img" aria-labelledby="%[3]s-t %[3]s-d">`,
		chartW, chartH, chartID(s))
	fmt.Fprintf(&w, `<title id="%[1]s-t">%[2]s</title><desc id="%[1]s-d">%[3]s</desc>`, chartID(s), template.HTMLEscapeString(title), template.HTMLEscapeString(desc))
	fmt.Fprintf(&w, `<line class="axis" x1="%d" y1="%.1f" x2="%d" y2="%.1f"/>`, chartPad, plotH, chartW, plotH)
	fmt.Fprintf(&w, `<text class="scale" x="%d" y="12" text-anchor="end">%d</text>`, chartPad-4, peak)
	var line []string
	for i, b := range s.Buckets {
		x := float64(chartPad) + float64(i)*slot
		y := plotH
		for _, part := range []struct {
			class string
			n     int64
		}{{"bar-delivered", b.Delivered}, {"bar-retried", b.Retried}, {"bar-failed", b.Failed}} {
			if part.n == 0 {
				continue
			}
			h := scale(part.n)
			y -= h
			fmt.Fprintf(&w, `<rect class="%s" x="%.1f" y="%.1f" width="%.1f" height="%.1f"><title>%s: %d %s</title></rect>`,
				part.class, x+slot*0.1, y, slot*0.8, h, b.Hour.Format("Jan 2 15:00 UTC"), part.n, strings.TrimPrefix(part.class, "bar-"))
		}
		if b.attempts() > 0 {
			line = append(line, fmt.Sprintf("%.1f,%.1f", x+slot/2, plotH-b.Rate()*(plotH-8)))
		}
		if i%hourLabelEvery(len(s.Buckets)) == 0 {
			fmt.Fprintf(&w, `<text class="hour" x="%.1f" y="%d">%s</text>`, x, chartH-8, b.Hour.Format(hourLabel(len(s.Buckets))))
		}
	}
	if len(line) > 1 {
		fmt.Fprintf(&w, `<polyline class="rate" points="%s"/>`, strings.Join(line, " "))
	}
	w.WriteString(`</svg>`)
	return template.HTML(w.String())
}

// sparkline draws s small: one bar per hour, its height the attempts, its
// class whether the hour had failures.
func sparkline(s series) template.HTML {
	const w, h = 96, 24
	var peak int64
	for _, b := range s.Buckets {
		peak = max(peak, b.attempts())
	}
	var out strings.Builder
	fmt.Fprintf(&out, `<svg class="spark" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, w, h, w, h,
		template.HTMLEscapeString(fmt.Sprintf("%d attempts in %s, success rate %s", s.Total.attempts(), s.Label, pctOf(s.Total.Rate(), s.Total.attempts()))))
	slot := float64(w) / float64(len(s.Buckets))
	for i, b := range s.Buckets {
		class, bh := "spark-none", 1.0
		if n := b.attempts(); n > 0 && peak > 0 {
			class, bh = "spark-ok", max(2, float64(n)/float64(peak)*float64(h))
			if b.Delivered < n {
				class = "spark-bad"
			}
		}
		fmt.Fprintf(&out, `<rect class="%s" x="%.1f" y="%.1f" width="%.1f" height="%.1f"/>`, class, float64(i)*slot, float64(h)-bh, slot*0.8, bh)
	}
	out.WriteString(`</svg>`)
	return template.HTML(out.String())
}

func chartID(s series) string { return "chart-" + strings.ReplaceAll(s.Label, " ", "") }

// pctOf is a rate as a percentage, "—" without attempts.
func pctOf(rate float64, attempts int64) string {
	if attempts == 0 {
		return "—"
	}
	return trimZero(fmt.Sprintf("%.1f", rate*100)) + "%"
}

func hourLabelEvery(n int) int {
	if n > 24 {
		return 24
	}
	return 6
}

func hourLabel(n int) string {
	if n > 24 {
		return "Jan 2"
	}
	return "15:00"
}
