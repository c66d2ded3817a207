// Package e2e holds hookd's end-to-end tests: the real `hookd dev` wiring
// (embedded Temporal server, worker, endpoint store, HTTP API) against
// loopback receivers, driven only through the public API.
package e2e
