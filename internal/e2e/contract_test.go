package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"github.com/hookd/hookd/internal/api"
	"github.com/hookd/hookd/internal/app"
	"github.com/hookd/hookd/internal/authz"
)

// The e2e suite holds the API to its OpenAPI document: every request a
// test sends to the shared hookd's /v1 through http.DefaultTransport (the
// harness's apiClient, http.Get, apiclient's default client) and every
// answer, errors included, is checked against internal/api/openapi.yaml.
//
//   - An answer the document does not allow (an undocumented status, a
//     field the schema lacks or mistypes, a body that is not the error
//     body) fails.
//   - A request the document does not allow may only be refused (4xx):
//     a 2xx means the document is stricter than the server.
//   - A request to a /v1 path or method the document lacks must be the
//     404 or 405 error body.
//   - net/http's own 431, sent before any handler runs, is not checked.
//
// A violation is returned as the request's error, so the test that made
// it fails where it made it, and listed again when the suite ends.
var contract = newContractChecker()

func init() {
	if contract.err != nil {
		panic(contract.err)
	}
	http.DefaultTransport = &contractTransport{base: http.DefaultTransport, check: contract}
}

// contractChecker validates exchanges against the document.
type contractChecker struct {
	doc    *openapi3.T
	router routers.Router
	err    error

	mu         sync.Mutex
	violations []string
	checked    int
}

func newContractChecker() *contractChecker {
	c := &contractChecker{}
	c.doc, c.err = openapi3.NewLoader().LoadFromData(api.OpenAPIYAML())
	if c.err == nil {
		c.err = c.doc.Validate(context.Background())
	}
	if c.err == nil {
		c.doc.Servers = nil // any host: the API listens on a free port
		c.router, c.err = gorillamux.NewRouter(c.doc)
	}
	if c.err != nil {
		c.err = fmt.Errorf("internal/api/openapi.yaml: %w", c.err)
	}
	return c
}

// contractTransport checks the exchanges with the shared hookd's API.
type contractTransport struct {
	base  http.RoundTripper
	check *contractChecker
}

func (t *contractTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if !isSharedAPI(req) {
		return t.base.RoundTrip(req)
	}
	var body []byte
	if req.Body != nil {
		var err error
		body, err = io.ReadAll(req.Body)
		req.Body.Close()
		if err != nil {
			return nil, err
		}
	}
	send := req.Clone(req.Context())
	send.Body = bodyOf(body)
	resp, err := t.base.RoundTrip(send)
	if err != nil {
		return nil, err
	}
	respBody, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	resp.Body = io.NopCloser(bytes.NewReader(respBody))
	if problem := t.check.exchange(req, body, resp, respBody); problem != "" {
		msg := fmt.Sprintf("%s %s -> %d breaks internal/api/openapi.yaml: %s\n\trequest body: %.300s\n\tresponse body: %.500s",
			req.Method, req.URL.RequestURI(), resp.StatusCode, problem, body, respBody)
		t.check.record(msg)
		return nil, errors.New(msg)
	}
	return resp, nil
}

// isSharedAPI reports whether req goes to the /v1 of the shared hookd,
// or of a hookd of a test's own started by checkedDev.
func isSharedAPI(req *http.Request) bool {
	if !strings.HasPrefix(req.URL.Path, "/v1/") {
		return false
	}
	base := req.URL.Scheme + "://" + req.URL.Host
	_, checked := checkedDevs.Load(base)
	return checked || shared != nil && base == shared.APIURL
}

// checkedDevs are the API URLs of the hookd devs of tests' own whose
// exchanges are checked too.
var checkedDevs sync.Map

// checkedDev is ownDev with its API held to the document like the
// shared hookd's.
func checkedDev(t *testing.T, set func(*app.DevConfig)) *app.Dev {
	dev := ownDev(t, set)
	checkedDevs.Store(dev.APIURL, true)
	t.Cleanup(func() { checkedDevs.Delete(dev.APIURL) })
	return dev
}

func bodyOf(b []byte) io.ReadCloser {
	if b == nil {
		return http.NoBody
	}
	return io.NopCloser(bytes.NewReader(b))
}

// exchange returns what is wrong with one request and its answer, or "".
func (c *contractChecker) exchange(req *http.Request, body []byte, resp *http.Response, respBody []byte) string {
	c.mu.Lock()
	c.checked++
	c.mu.Unlock()
	if resp.StatusCode == http.StatusRequestHeaderFieldsTooLarge {
		// net/http's own answer, before any handler runs: not hookd's, and
		// not in the document.
		return ""
	}
	ctx := context.Background()
	probe := req.Clone(ctx)
	probe.Body = bodyOf(body)
	if len(body) > 0 {
		// hookd reads every request body as JSON, whatever its
		// Content-Type says (curl -d sends a form's): so does the check.
		probe.Header.Set("Content-Type", "application/json")
	}
	route, params, err := c.router.FindRoute(probe)
	if err != nil {
		// Not a documented operation: only a refusal, the router's own
		// (404, 405) or authentication's, which comes first (401, 429).
		switch resp.StatusCode {
		case http.StatusNotFound, http.StatusMethodNotAllowed, http.StatusUnauthorized, http.StatusTooManyRequests:
		default:
			return fmt.Sprintf("the document has no such operation (%v), yet the server answered %d", err, resp.StatusCode)
		}
		return c.errorBody(respBody)
	}
	in := &openapi3filter.RequestValidationInput{
		Request: probe, PathParams: params, Route: route,
		Options: &openapi3filter.Options{MultiError: true, AuthenticationFunc: bearerScheme},
	}
	reqErr := openapi3filter.ValidateRequest(ctx, in)
	if reqErr != nil && resp.StatusCode < 400 {
		return fmt.Sprintf("the document refuses the request (%v), yet the server answered %d", reqErr, resp.StatusCode)
	}
	out := &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in,
		Status:                 resp.StatusCode,
		Header:                 resp.Header,
		Options:                &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true},
	}
	out.SetBodyBytes(respBody)
	if err := openapi3filter.ValidateResponse(ctx, out); err != nil {
		return "the answer: " + err.Error()
	}
	return ""
}

// errorBody checks an answer is the API's error body.
func (c *contractChecker) errorBody(raw []byte) string {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "the answer is not JSON: " + err.Error()
	}
	if err := c.doc.Components.Schemas["ErrorBody"].Value.VisitJSON(v, openapi3.MultiErrors()); err != nil {
		return "the answer is not the error body: " + err.Error()
	}
	return ""
}

// bearerScheme checks the request's credential could be of the scheme
// the document asks for: a tenant token (htk_) for tenantToken, anything
// else for the platform's apiKey. The server decides whether it is valid.
func bearerScheme(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	scheme, cred, ok := strings.Cut(in.RequestValidationInput.Request.Header.Get("Authorization"), " ")
	switch {
	case !ok || !strings.EqualFold(scheme, "Bearer") || cred == "":
		return in.NewError(errors.New("no bearer credential"))
	case in.SecuritySchemeName == "tenantToken" && !strings.HasPrefix(cred, authz.TokenPrefix):
		return in.NewError(errors.New("not a tenant token"))
	case in.SecuritySchemeName == "apiKey" && strings.HasPrefix(cred, authz.TokenPrefix):
		return in.NewError(errors.New("a tenant token, not the API key"))
	}
	return nil
}

func (c *contractChecker) record(msg string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.violations = append(c.violations, msg)
}

// contractReport ends the suite: every violation again, and a failing
// exit code if there was one (so a test that ignored its request's error
// still fails the run).
func contractReport(code int) int {
	contract.mu.Lock()
	defer contract.mu.Unlock()
	if len(contract.violations) > 0 {
		fmt.Fprintf(os.Stderr, "\n%d of %d exchanges with the API broke internal/api/openapi.yaml:\n", len(contract.violations), contract.checked)
		for _, v := range contract.violations {
			fmt.Fprintln(os.Stderr, "  "+v)
		}
		return 1
	}
	return code
}
