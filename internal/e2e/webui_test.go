package e2e

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/require"
	commonpb "go.temporal.io/api/common/v1"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/codec"
	"github.com/hookd/hookd/internal/testkit"
)

// TestWebUIShowsDecodedPayloads runs hookd dev with its Web UI: the codec
// server at /codec answers the UI's preflight, refuses requests without
// credentials, round-trips with the API key, and a real browser opening a
// Delivery workflow in the UI sees the payload decoded.
func TestWebUIShowsDecodedPayloads(t *testing.T) {
	uiAddr := testkit.FreeAddr(t)
	dev := devAt(t, t.TempDir(), testkit.FreeAddr(t), app.PayloadConfig{}, uiAddr)
	t.Cleanup(func() { dev.Stop(context.Background()) })
	api := &apiClient{t: t, dev: dev}
	rc := newReceiver(t, nil)
	ep := api.createEndpoint(map[string]any{"url": rc.URL})
	secret := marker("shown-to-operators")
	id := api.send(fmt.Sprintf(`{"type":"order.created","payload":{"email":"%s@example.com"}}`, secret)).Deliveries[0].ID
	require.EqualValues(t, "delivered", api.waitDelivery(id, 30*time.Second).Status)
	desc, err := dev.Client.DescribeWorkflowExecution(context.Background(), id, "")
	require.NoError(t, err)
	start, err := dev.Client.WorkflowService().GetWorkflowExecutionHistory(context.Background(), historyRequest(id))
	require.NoError(t, err)
	input := start.GetHistory().GetEvents()[0].GetWorkflowExecutionStartedEventAttributes().GetInput()
	require.Equal(t, codec.EncodingEncrypted, string(input.GetPayloads()[0].GetMetadata()["encoding"]), "the UI gets it encrypted")

	uiOrigin := "http://" + uiAddr
	codecURL := dev.APIURL + codec.Path
	t.Run("codec server", func(t *testing.T) {
		call := func(op string, header map[string]string, body []byte) (int, []byte) {
			req, err := http.NewRequest(http.MethodPost, codecURL+"/"+op, bytes.NewReader(body))
			require.NoError(t, err)
			req.Header.Set("Content-Type", "application/json")
			for k, v := range header {
				req.Header.Set(k, v)
			}
			resp, err := http.DefaultClient.Do(req)
			require.NoError(t, err)
			defer resp.Body.Close()
			raw, err := io.ReadAll(resp.Body)
			require.NoError(t, err)
			return resp.StatusCode, raw
		}
		encrypted, err := protojson.Marshal(input)
		require.NoError(t, err)

		code, _ := call("decode", nil, encrypted)
		require.Equal(t, http.StatusUnauthorized, code, "no credentials")
		code, _ = call("decode", map[string]string{"Origin": "http://127.0.0.1:1"}, encrypted)
		require.Equal(t, http.StatusUnauthorized, code, "another origin")

		// The temporal CLI's way: --codec-auth "Bearer $HOOKD_API_KEY".
		code, raw := call("decode", map[string]string{"Authorization": "Bearer " + dev.APIKey, "X-Namespace": "default"}, encrypted)
		require.Equal(t, http.StatusOK, code, "%s", raw)
		require.Contains(t, string(decodedData(t, raw)), secret)
		code, reencrypted := call("encode", map[string]string{"Authorization": "Bearer " + dev.APIKey}, []byte(`{"payloads":[{"metadata":{"encoding":"anNvbi9wbGFpbg=="},"data":"InJvdW5kIHRyaXAi"}]}`))
		require.Equal(t, http.StatusOK, code)
		require.NotContains(t, string(reencrypted), "InJvdW5kIHRyaXAi")
		code, raw = call("decode", map[string]string{"Authorization": "Bearer " + dev.APIKey}, reencrypted)
		require.Equal(t, http.StatusOK, code)
		require.Equal(t, `"round trip"`, string(decodedData(t, raw)))

		// The embedded UI's way: its origin, on loopback, after a preflight.
		req, err := http.NewRequest(http.MethodOptions, codecURL+"/decode", nil)
		require.NoError(t, err)
		req.Header.Set("Origin", uiOrigin)
		req.Header.Set("Access-Control-Request-Method", "POST")
		req.Header.Set("Access-Control-Request-Headers", "content-type,x-namespace")
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		resp.Body.Close()
		require.Equal(t, http.StatusNoContent, resp.StatusCode)
		require.Equal(t, uiOrigin, resp.Header.Get("Access-Control-Allow-Origin"))
		require.Contains(t, strings.ToLower(resp.Header.Get("Access-Control-Allow-Headers")), "x-namespace")
		code, raw = call("decode", map[string]string{"Origin": uiOrigin, "X-Namespace": "default"}, encrypted)
		require.Equal(t, http.StatusOK, code)
		require.Contains(t, string(decodedData(t, raw)), secret)
	})

	t.Run("browser", func(t *testing.T) {
		browser := chromium(t)
		alloc, cancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.WindowSize(1400, 1800))...)
		defer cancel()
		ctx, cancel := chromedp.NewContext(alloc)
		defer cancel()
		ctx, cancel = context.WithTimeout(ctx, 90*time.Second)
		defer cancel()

		page := fmt.Sprintf("%s/namespaces/default/workflows/%s/%s/history", uiOrigin, url.PathEscape(id), desc.GetWorkflowExecutionInfo().GetExecution().GetRunId())
		err := chromedp.Do(ctx,
			chromedp.Navigate(page),
			chromedp.Poll[chromedp.Void](
				fmt.Sprintf(`document.body && document.body.innerText.includes(%q)`, secret),
				chromedp.WithPollingInterval(250*time.Millisecond), chromedp.WithPollingTimeout(60*time.Second)),
		)
		// Whether or not it showed up: keep what the page showed.
		shot, _ := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		path := filepath.Join(t.ArtifactDir(), "webui-delivery.png")
		if len(shot) > 0 {
			require.NoError(t, os.WriteFile(path, shot, 0o644))
			t.Logf("screenshot: %s", path)
		}
		require.NoError(t, err, "the UI at %s never showed the decoded payload (endpoint %s)", page, ep.ID)
	})
}

// decodedData returns the data of the single payload in a codec response.
func decodedData(t *testing.T, raw []byte) []byte {
	t.Helper()
	var out commonpb.Payloads
	require.NoError(t, protojson.Unmarshal(raw, &out), "%s", raw)
	require.Len(t, out.Payloads, 1)
	return out.Payloads[0].GetData()
}
