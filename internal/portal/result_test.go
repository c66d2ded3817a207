package portal

import "testing"

func TestAttemptResultReadsForACustomer(t *testing.T) {
	for _, tc := range []struct {
		status int
		class  string
		want   string
	}{
		{400, "http_4xx", "HTTP 400"},
		{503, "http_5xx: service unavailable", "HTTP 503"},
		{0, "timeout: no answer within 3s", "Timeout"},
		{0, "connection_refused", "Connection refused"},
		{0, "", "—"},
	} {
		if got := attemptResult(tc.status, tc.class); got != tc.want {
			t.Errorf("attemptResult(%d, %q) = %q, want %q", tc.status, tc.class, got, tc.want)
		}
	}
}
