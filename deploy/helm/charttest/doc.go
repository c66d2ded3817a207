// Package charttest renders the Helm chart in deploy/helm/hookd and checks
// the Prometheus rules in deploy/prometheus. It is a module of its own so
// the product's go.mod does not carry Helm, Kubernetes or Prometheus.
package charttest
