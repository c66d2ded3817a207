// Package cli is hookd's command tree (cobra): the long-running commands
// (dev, serve, worker, api), the reference receiver, and the client
// commands that call the HTTP API through apiclient. Every flag of a
// long-running command also reads an environment variable. cmd/hookd's
// main only calls Main.
package cli
