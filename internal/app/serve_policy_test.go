package app

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

func TestURLPolicy(t *testing.T) {
	allow := []netip.Prefix{netip.MustParsePrefix("10.1.0.0/16"), netip.MustParsePrefix("127.0.0.1/32")}
	hosts := map[string][]netip.Addr{
		"internal.example": {netip.MustParseAddr("10.1.2.3")},
		"mixed.example":    {netip.MustParseAddr("10.1.2.3"), netip.MustParseAddr("93.184.215.14")},
		"public.example":   {netip.MustParseAddr("93.184.215.14")},
	}
	resolve := func(_ context.Context, _, host string) ([]netip.Addr, error) {
		if a, ok := hosts[host]; ok {
			return a, nil
		}
		return nil, errors.New("no such host")
	}
	policy := URLPolicy(allow, resolve)
	for _, tc := range []struct {
		url     string
		wantErr string // empty: accepted
	}{
		{"https://public.example/hook", ""},
		{"https://unresolvable.example/hook", ""}, // the dialer checks at every attempt
		{"https://93.184.215.14/hook", ""},
		{"https://203.0.113.9/hook", "documentation"},
		{"http://internal.example:8080/hook", ""},
		{"http://127.0.0.1:9000/hook", ""},
		{"http://10.1.9.9/hook", ""},
		{"http://public.example/hook", "must use https"},
		{"http://mixed.example/hook", "must use https"},
		{"http://unresolvable.example/hook", "did not resolve"},
		{"http://93.184.215.14/hook", "must use https"},
		{"http://127.0.0.2/hook", "must use https"},
		{"https://127.0.0.2/hook", "loopback"},
		{"https://169.254.169.254/latest/meta-data", "cloud metadata"},
		{"https://10.0.0.1/hook", "private"},
		{"https://[::1]/hook", "loopback"},
		{"https://[::127.0.0.2]/hook", "loopback"},
		{"https://[::ffff:127.0.0.2]/hook", "loopback"},
		{"https://[2002:7f00:1::]/hook", "6to4"},
		{"https://[64:ff9b::a9fe:a9fe]/hook", "NAT64"},
		{"https://[64:ff9b:1::1]/hook", "NAT64"},
		{"https://100.64.1.2/hook", "CGNAT"},
		{"https://198.18.0.10/hook", "benchmarking"},
		{"https://192.0.0.170/hook", "IETF protocol"},
		{"https://240.1.2.3/hook", "240/4"},
	} {
		err := policy(tc.url)
		switch {
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: refused: %v", tc.url, err)
		case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr)):
			t.Errorf("%s: error %v, want one containing %q", tc.url, err, tc.wantErr)
		case err != nil && strings.Contains(err.Error(), "/hook"):
			t.Errorf("%s: error repeats the URL: %v", tc.url, err)
		}
	}
}
