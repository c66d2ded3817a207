package portal

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/hookd/hookd/internal/store"
)

var chartNow = time.Date(2026, 3, 4, 15, 30, 0, 0, time.UTC)

// testCharts are a day and a week with a few hours of attempts.
func testCharts() []series {
	hours := []store.StatsHour{
		{EndpointID: "ep_a", Hour: chartNow.Truncate(time.Hour), Attempts: 10, Successes: 7, Retryable: 2},
		{EndpointID: "ep_b", Hour: chartNow.Truncate(time.Hour), Attempts: 4, Successes: 4},
		{EndpointID: "ep_a", Hour: chartNow.Add(-30 * time.Hour).Truncate(time.Hour), Attempts: 6, Successes: 0, Retryable: 6},
		{EndpointID: "ep_a", Hour: chartNow.Add(-9 * 24 * time.Hour), Attempts: 99, Successes: 99},
	}
	return []series{seriesOf("24 hours", hours, chartNow, 24), seriesOf("7 days", hours, chartNow, 7*24)}
}

func TestSeriesSumsHours(t *testing.T) {
	c := testCharts()
	day, week := c[0], c[1]
	require.Len(t, day.Buckets, 24)
	require.Len(t, week.Buckets, 168)
	assert.Equal(t, chartNow.Truncate(time.Hour), day.Buckets[23].Hour, "the last bucket is the current hour")
	assert.Equal(t, bucket{Hour: day.Buckets[23].Hour, Delivered: 11, Retried: 2, Failed: 1}, day.Buckets[23], "endpoints summed, failures split")
	assert.Equal(t, bucket{Delivered: 11, Retried: 2, Failed: 1}, day.Total, "the hour 30 hours ago is not in the day")
	assert.Equal(t, bucket{Delivered: 11, Retried: 8, Failed: 1}, week.Total, "nor the one 9 days ago in the week")
	assert.InDelta(t, 11.0/14, day.Rate(), 1e-9)
}

func TestChartIsAccessibleSVG(t *testing.T) {
	day := testCharts()[0]
	svg := string(chart(day))
	assert.True(t, strings.HasPrefix(svg, `<svg class="chart"`))
	assert.Contains(t, svg, `role="img"`)
	assert.Contains(t, svg, `<title id="chart-24hours-t">Attempts per hour, last 24 hours</title>`)
	assert.Contains(t, svg, `14 attempts: 11 delivered, 2 retried, 1 failed; success rate 78.6%.`)
	assert.Equal(t, 3, strings.Count(svg, "<rect "), "one bar of each kind in the one hour with attempts")
	assert.Contains(t, svg, "Mar 4 15:00 UTC: 2 retried")
	assert.NotContains(t, svg, "<polyline", "one point makes no line")
	assert.NotContains(t, svg, "style=", "the CSP allows no inline styles")

	empty := string(chart(seriesOf("24 hours", nil, chartNow, 24)))
	assert.NotContains(t, empty, "<rect ")
	assert.Contains(t, empty, "success rate —")
	spark := string(sparkline(day))
	assert.Equal(t, 24, strings.Count(spark, "<rect "))
	assert.Contains(t, spark, `class="spark-bad"`, "the hour with failures")
	assert.Contains(t, spark, `aria-label="14 attempts in 24 hours, success rate 78.6%"`)
}
