// Package activities does hookd's I/O on behalf of its workflows: one signed
// HTTP attempt per activity execution, and the Temporal calls that park a
// dead letter and redrive it. Endpoint URLs and secrets are loaded from the
// endpoint store at each attempt and never returned to the workflow.
package activities
