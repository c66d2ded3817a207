package charttest

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"
)

const (
	chartDir  = "../hookd"
	release   = "hookd" // so the objects are named like deploy/k8s's
	namespace = "hookd"
)

// objects is a rendered chart: typed Kubernetes objects by "Kind/name",
// and the ServiceMonitor (no Go type here) as a map.
type objects struct {
	typed          map[string]runtime.Object
	serviceMonitor map[string]any
}

func (o objects) deployment(t *testing.T, name string) *appsv1.Deployment {
	t.Helper()
	d, ok := o.typed["Deployment/"+name].(*appsv1.Deployment)
	if !ok {
		t.Fatalf("no Deployment/%s; have %v", name, o.names())
	}
	return d
}

func (o objects) service(t *testing.T, name string) *corev1.Service {
	t.Helper()
	s, ok := o.typed["Service/"+name].(*corev1.Service)
	if !ok {
		t.Fatalf("no Service/%s; have %v", name, o.names())
	}
	return s
}

func (o objects) names() []string { return slices.Sorted(maps.Keys(o.typed)) }

// capabilities is a cluster of Kubernetes 1.30 serving apiVersions on
// top of the built-in ones.
func capabilities(apiVersions ...string) *chartutil.Capabilities {
	caps := *chartutil.DefaultCapabilities
	caps.KubeVersion = chartutil.KubeVersion{Version: "v1.30.0", Major: "1", Minor: "30"}
	caps.APIVersions = append(slices.Clone(caps.APIVersions), apiVersions...)
	return &caps
}

// render renders the chart with vals over its defaults, as helm install
// does: the values are checked against values.schema.json first.
func render(vals map[string]any, caps *chartutil.Capabilities) (map[string]string, error) {
	ch, err := loader.Load(chartDir)
	if err != nil {
		return nil, err
	}
	if caps == nil {
		caps = capabilities()
	}
	opts := chartutil.ReleaseOptions{Name: release, Namespace: namespace, Revision: 1, IsInstall: true}
	top, err := chartutil.ToRenderValues(ch, vals, opts, caps)
	if err != nil {
		return nil, err
	}
	return engine.Render(ch, top)
}

// strict decodes the built-in kinds, refusing unknown and duplicate
// fields: a misspelt field in a template fails here, not at kubectl apply.
var strict = serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()

// mustRender renders and decodes every object.
func mustRender(t *testing.T, vals map[string]any, caps *chartutil.Capabilities) objects {
	t.Helper()
	files, err := render(vals, caps)
	if err != nil {
		t.Fatal(err)
	}
	objs := objects{typed: map[string]runtime.Object{}}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasSuffix(name, ".yaml") {
			continue // NOTES.txt, helpers
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(strings.NewReader(files[name])))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			var head struct {
				Kind     string `json:"kind"`
				Metadata struct {
					Name      string `json:"name"`
					Namespace string `json:"namespace"`
				} `json:"metadata"`
			}
			if err := yaml.Unmarshal(doc, &head); err != nil {
				t.Fatalf("%s: %v\n%s", name, err, doc)
			}
			if head.Kind == "" {
				continue // an empty document
			}
			if head.Metadata.Namespace != namespace {
				t.Errorf("%s/%s: namespace %q, want the release's", head.Kind, head.Metadata.Name, head.Metadata.Namespace)
			}
			key := head.Kind + "/" + head.Metadata.Name
			if _, dup := objs.typed[key]; dup {
				t.Errorf("%s rendered twice", key)
			}
			if head.Kind == "ServiceMonitor" {
				if err := yaml.UnmarshalStrict(doc, &objs.serviceMonitor); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				continue
			}
			obj, _, err := strict.Decode(doc, nil, nil)
			if err != nil {
				t.Fatalf("%s: %s is not a valid Kubernetes object: %v\n%s", name, key, err, doc)
			}
			objs.typed[key] = obj
		}
	}
	return objs
}

// envOf returns a container's environment: literal values, and
// secretKeyRefs as "secret:<name>/<key>".
func envOf(t *testing.T, c corev1.Container) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, e := range c.Env {
		if _, dup := env[e.Name]; dup {
			t.Errorf("%s set twice", e.Name)
		}
		switch {
		case e.ValueFrom == nil:
			env[e.Name] = e.Value
		case e.ValueFrom.SecretKeyRef != nil:
			env[e.Name] = "secret:" + e.ValueFrom.SecretKeyRef.Name + "/" + e.ValueFrom.SecretKeyRef.Key
		default:
			env[e.Name] = "from:?"
		}
	}
	return env
}

// flagEnv reads docs/configuration.md, which internal/cli generates from
// the flag definitions (and fails its tests when it is stale): the
// environment variables each long-running mode reads.
func flagEnv(t *testing.T) map[string]map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../../../docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	head := regexp.MustCompile("^## `hookd ([a-z]+)`")
	row := regexp.MustCompile("^\\| `--[a-z0-9-]+` \\| `([A-Z0-9_]+)` \\|")
	out := map[string]map[string]bool{}
	var mode string
	for line := range strings.SplitSeq(string(b), "\n") {
		if m := head.FindStringSubmatch(line); m != nil {
			mode = m[1]
			out[mode] = map[string]bool{}
		} else if m := row.FindStringSubmatch(line); m != nil && mode != "" {
			out[mode][m[1]] = true
		}
	}
	for _, mode := range []string{"api", "worker", "serve"} {
		if len(out[mode]) < 10 {
			t.Fatalf("docs/configuration.md: %d variables for hookd %s; has its format changed?", len(out[mode]), mode)
		}
	}
	return out
}

// secretEnv must come from a Secret, never a literal.
var secretEnv = []string{"HOOKD_DATABASE_URL", "HOOKD_MASTER_KEY", "HOOKD_PAYLOAD_KEYS", "HOOKD_API_KEYS", "TEMPORAL_API_KEY"}

// required lists what each mode cannot start without.
var required = map[string][]string{
	"api":    {"TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "HOOKD_DATABASE_URL", "HOOKD_MASTER_KEY", "HOOKD_API_KEYS", "HOOKD_HTTP_ADDR"},
	"worker": {"TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "HOOKD_DATABASE_URL", "HOOKD_MASTER_KEY", "HOOKD_HTTP_ADDR"},
	"serve":  {"TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "HOOKD_DATABASE_URL", "HOOKD_MASTER_KEY", "HOOKD_API_KEYS", "HOOKD_HTTP_ADDR"},
}

// checkDeployment checks what every hookd Deployment must have, and
// returns its container's environment.
func checkDeployment(t *testing.T, objs objects, mode string, metrics bool) map[string]string {
	t.Helper()
	name := release + "-" + mode
	d := objs.deployment(t, name)
	pod := d.Spec.Template
	if len(pod.Spec.Containers) != 1 {
		t.Fatalf("%s: %d containers", name, len(pod.Spec.Containers))
	}
	c := pod.Spec.Containers[0]
	if !strings.HasPrefix(c.Image, "ghcr.io/hookd/hookd") || !slices.Equal(c.Args, []string{mode}) || len(c.Command) != 0 {
		t.Errorf("%s: image %q command %v args %v; want the image's entrypoint with [%s]", name, c.Image, c.Command, c.Args, mode)
	}
	env := envOf(t, c)
	known := flagEnv(t)[mode]
	for k, v := range env {
		if !known[k] {
			t.Errorf("%s: hookd %s reads no %s", name, mode, k)
		}
		if slices.Contains(secretEnv, k) && !strings.HasPrefix(v, "secret:") {
			t.Errorf("%s: %s is a literal, want a secretKeyRef", name, k)
		}
	}
	for _, k := range required[mode] {
		if _, ok := env[k]; !ok {
			t.Errorf("%s: required %s not set", name, k)
		}
	}
	if _, ok := env["HOOKD_API_KEYS"]; ok && mode == "worker" {
		t.Errorf("%s: the worker gets the API keys", name)
	}
	_, keys := env["HOOKD_PAYLOAD_KEYS"]
	if off := env["HOOKD_PAYLOAD_ENCRYPTION"] == "off"; keys == off {
		t.Errorf("%s: payload keys set %v with encryption %q", name, keys, env["HOOKD_PAYLOAD_ENCRYPTION"])
	}

	ports := map[string]int32{}
	for _, p := range c.Ports {
		ports[p.Name] = p.ContainerPort
	}
	if want := ":" + fmt.Sprint(ports["http"]); env["HOOKD_HTTP_ADDR"] != want {
		t.Errorf("%s: HOOKD_HTTP_ADDR %q, containerPort http %d", name, env["HOOKD_HTTP_ADDR"], ports["http"])
	}
	if metrics {
		if want := ":" + fmt.Sprint(ports["metrics"]); ports["metrics"] == 0 || env["HOOKD_METRICS_ADDR"] != want {
			t.Errorf("%s: HOOKD_METRICS_ADDR %q, containerPort metrics %d", name, env["HOOKD_METRICS_ADDR"], ports["metrics"])
		}
	} else if _, ok := ports["metrics"]; ok || env["HOOKD_METRICS_ADDR"] != "" {
		t.Errorf("%s: metrics off, yet port %d and HOOKD_METRICS_ADDR %q", name, ports["metrics"], env["HOOKD_METRICS_ADDR"])
	}

	for path, p := range map[string]*corev1.Probe{"/healthz": c.LivenessProbe, "/readyz": c.ReadinessProbe} {
		if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != path || p.HTTPGet.Port.String() != "http" {
			t.Errorf("%s: probe %s missing or not on port http: %+v", name, path, p)
		}
	}
	if p := c.StartupProbe; p == nil || p.HTTPGet == nil || p.HTTPGet.Path != "/healthz" {
		t.Errorf("%s: no startup probe on /healthz", name)
	}

	if !subset(d.Spec.Selector.MatchLabels, pod.Labels) || pod.Labels["app.kubernetes.io/component"] != mode {
		t.Errorf("%s: selector %v, pod labels %v", name, d.Spec.Selector.MatchLabels, pod.Labels)
	}
	if g := pod.Spec.TerminationGracePeriodSeconds; g == nil || *g < 30 {
		t.Errorf("%s: terminationGracePeriodSeconds %v leaves no time to drain", name, g)
	}
	psc, sc := pod.Spec.SecurityContext, c.SecurityContext
	switch {
	case psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot:
		t.Errorf("%s: the pod may run as root", name)
	case sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
		t.Errorf("%s: the root filesystem is writable", name)
	case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
		t.Errorf("%s: privilege escalation allowed", name)
	case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}):
		t.Errorf("%s: capabilities not dropped", name)
	}
	if a := pod.Spec.AutomountServiceAccountToken; a == nil || *a {
		t.Errorf("%s: the service account token is mounted", name)
	}
	if c.Resources.Requests.Cpu().IsZero() || c.Resources.Limits.Memory().IsZero() {
		t.Errorf("%s: no CPU request or memory limit", name)
	}

	if pdb, ok := objs.typed["PodDisruptionBudget/"+name].(*policyv1.PodDisruptionBudget); !ok {
		t.Errorf("no PodDisruptionBudget/%s", name)
	} else if pdb.Spec.Selector == nil || !subset(pdb.Spec.Selector.MatchLabels, pod.Labels) {
		t.Errorf("PodDisruptionBudget/%s selects no %s pods", name, mode)
	}
	return env
}

// checkServices checks the API's Service selects the API's pods on port
// http alone, and the metrics Service every pod's metrics port.
func checkServices(t *testing.T, objs objects, apiMode string, modes []string, metrics bool) {
	t.Helper()
	svc := objs.service(t, release+"-api")
	api := objs.deployment(t, release+"-"+apiMode)
	if len(svc.Spec.Selector) == 0 || !subset(svc.Spec.Selector, api.Spec.Template.Labels) {
		t.Errorf("Service/%s-api selects %v, not the %s pods", release, svc.Spec.Selector, apiMode)
	}
	if len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].TargetPort.String() != "http" {
		t.Errorf("Service/%s-api ports %+v; want port http alone (never metrics)", release, svc.Spec.Ports)
	}
	for _, m := range modes {
		if m != apiMode && subset(svc.Spec.Selector, objs.deployment(t, release+"-"+m).Spec.Template.Labels) {
			t.Errorf("Service/%s-api also selects the %s pods", release, m)
		}
	}
	ms, ok := objs.typed["Service/"+release+"-metrics"].(*corev1.Service)
	if !metrics {
		if ok {
			t.Error("metrics off, yet a metrics Service")
		}
		return
	}
	if !ok {
		t.Fatalf("no Service/%s-metrics; have %v", release, objs.names())
	}
	if ms.Spec.Type != corev1.ServiceTypeClusterIP || len(ms.Spec.Ports) != 1 || ms.Spec.Ports[0].TargetPort.String() != "metrics" {
		t.Errorf("Service/%s-metrics: type %s ports %+v; want ClusterIP on port metrics", release, ms.Spec.Type, ms.Spec.Ports)
	}
	for _, m := range modes {
		if !subset(ms.Spec.Selector, objs.deployment(t, release+"-"+m).Spec.Template.Labels) {
			t.Errorf("Service/%s-metrics does not select the %s pods", release, m)
		}
	}
}

func subset(sub, of map[string]string) bool {
	for k, v := range sub {
		if of[k] != v {
			return false
		}
	}
	return true
}

func TestDefaults(t *testing.T) {
	objs := mustRender(t, nil, nil)
	want := []string{
		"Deployment/hookd-api", "Deployment/hookd-worker",
		"HorizontalPodAutoscaler/hookd-api", "HorizontalPodAutoscaler/hookd-worker",
		"PodDisruptionBudget/hookd-api", "PodDisruptionBudget/hookd-worker",
		"Service/hookd-api", "Service/hookd-metrics", "ServiceAccount/hookd",
	}
	if have := objs.names(); !slices.Equal(have, want) {
		t.Errorf("objects %v, want %v", have, want)
	}
	if objs.serviceMonitor != nil {
		t.Error("a ServiceMonitor without the Prometheus operator's CRD")
	}
	for _, mode := range []string{"api", "worker"} {
		env := checkDeployment(t, objs, mode, true)
		// By default every secret is a key of the Secret hookd.
		for _, k := range secretEnv {
			if v, ok := env[k]; ok && v != "secret:hookd/"+k {
				t.Errorf("%s: %s from %s, want secret:hookd/%s", mode, k, v, k)
			}
		}
		if d := objs.deployment(t, "hookd-"+mode); d.Spec.Replicas != nil {
			t.Errorf("%s: replicas %d fights the HPA", mode, *d.Spec.Replicas)
		}
		hpa := objs.typed["HorizontalPodAutoscaler/hookd-"+mode].(*autoscalingv2.HorizontalPodAutoscaler)
		if ref := hpa.Spec.ScaleTargetRef; ref.Kind != "Deployment" || ref.Name != "hookd-"+mode || hpa.Spec.MinReplicas == nil || *hpa.Spec.MinReplicas < 2 {
			t.Errorf("HPA %s scales %+v from %v", mode, ref, hpa.Spec.MinReplicas)
		}
	}
	checkServices(t, objs, "api", []string{"api", "worker"}, true)
}

// everything turns every option on.
func everything() map[string]any {
	return map[string]any{
		"image":            map[string]any{"digest": "sha256:" + strings.Repeat("ab", 32), "pullPolicy": "Always"},
		"imagePullSecrets": []any{map[string]any{"name": "registry"}},
		"temporal": map[string]any{
			"address":   "hookd.a1b2c.tmprl.cloud:7233",
			"namespace": "hookd.a1b2c",
			"tls": map[string]any{
				"enabled": true, "serverName": "hookd.a1b2c.tmprl.cloud", "existingSecret": "temporal-client",
			},
			"apiKey": map[string]any{"value": "tmprl-key"},
		},
		"database":    map[string]any{"value": "postgres://hookd:pw@db:5432/hookd?sslmode=require"},
		"masterKey":   map[string]any{"value": "bWFzdGVy"},
		"payloadKeys": map[string]any{"existingSecret": "payload-keys", "key": "keys"},
		"apiKeys":     map[string]any{"value": "hk_one,hk_two"},
		"config": map[string]any{
			"allowCIDRs": "10.0.0.0/8", "codecCorsOrigins": "https://temporal.example.com",
			"logLevel": "debug", "logFormat": "text",
		},
		"extraEnv": []any{map[string]any{"name": "HOOKD_TEMPORAL_CONNECT_TIMEOUT", "value": "2m"}},
		"api":      map[string]any{"autoscaling": map[string]any{"enabled": false}, "replicas": 3},
		"worker":   map[string]any{"maxConcurrentAttempts": 64, "workflowCache": 500},
		"metrics": map[string]any{"serviceMonitor": map[string]any{
			"enabled": true, "interval": "15s", "labels": map[string]any{"release": "kube-prometheus"},
		}},
		"service":                   map[string]any{"type": "LoadBalancer", "annotations": map[string]any{"a": "b"}},
		"podAnnotations":            map[string]any{"team": "payments"},
		"podLabels":                 map[string]any{"tier": "backend"},
		"nodeSelector":              map[string]any{"pool": "hookd"},
		"tolerations":               []any{map[string]any{"key": "dedicated", "operator": "Equal", "value": "hookd", "effect": "NoSchedule"}},
		"affinity":                  map[string]any{"podAntiAffinity": map[string]any{}},
		"topologySpreadConstraints": []any{map[string]any{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": map[string]any{"matchLabels": map[string]any{"app.kubernetes.io/name": "hookd"}}}},
		"serviceAccount":            map[string]any{"name": "hookd-sa", "annotations": map[string]any{"iam": "role"}},
	}
}

func TestEveryOption(t *testing.T) {
	objs := mustRender(t, everything(), nil)
	sec, ok := objs.typed["Secret/hookd"].(*corev1.Secret)
	if !ok {
		t.Fatalf("no Secret/hookd for the values; have %v", objs.names())
	}
	if keys := slices.Sorted(maps.Keys(sec.Data)); !slices.Equal(keys, []string{"HOOKD_API_KEYS", "HOOKD_DATABASE_URL", "HOOKD_MASTER_KEY", "TEMPORAL_API_KEY"}) {
		t.Errorf("Secret/hookd keys %v", keys)
	}
	if got := string(sec.Data["HOOKD_API_KEYS"]); got != "hk_one,hk_two" {
		t.Errorf("HOOKD_API_KEYS %q", got)
	}
	for _, mode := range []string{"api", "worker"} {
		env := checkDeployment(t, objs, mode, true)
		for k, want := range map[string]string{
			"TEMPORAL_ADDRESS":               "hookd.a1b2c.tmprl.cloud:7233",
			"TEMPORAL_NAMESPACE":             "hookd.a1b2c",
			"TEMPORAL_TLS":                   "true",
			"TEMPORAL_TLS_SERVER_NAME":       "hookd.a1b2c.tmprl.cloud",
			"TEMPORAL_TLS_CERT":              "/etc/hookd/temporal-tls/tls.crt",
			"TEMPORAL_TLS_KEY":               "/etc/hookd/temporal-tls/tls.key",
			"TEMPORAL_TLS_CA":                "/etc/hookd/temporal-tls/ca.crt",
			"TEMPORAL_API_KEY":               "secret:hookd/TEMPORAL_API_KEY",
			"HOOKD_DATABASE_URL":             "secret:hookd/HOOKD_DATABASE_URL",
			"HOOKD_MASTER_KEY":               "secret:hookd/HOOKD_MASTER_KEY",
			"HOOKD_PAYLOAD_KEYS":             "secret:payload-keys/keys",
			"HOOKD_ALLOW_CIDRS":              "10.0.0.0/8",
			"HOOKD_LOG_LEVEL":                "debug",
			"HOOKD_TEMPORAL_CONNECT_TIMEOUT": "2m",
		} {
			if env[k] != want {
				t.Errorf("%s: %s = %q, want %q", mode, k, env[k], want)
			}
		}
		d := objs.deployment(t, "hookd-"+mode)
		pod := d.Spec.Template
		c := pod.Spec.Containers[0]
		if c.Image != "ghcr.io/hookd/hookd@sha256:"+strings.Repeat("ab", 32) || c.ImagePullPolicy != corev1.PullAlways {
			t.Errorf("%s: image %s %s", mode, c.Image, c.ImagePullPolicy)
		}
		if len(c.VolumeMounts) != 1 || c.VolumeMounts[0].MountPath != "/etc/hookd/temporal-tls" || !c.VolumeMounts[0].ReadOnly {
			t.Errorf("%s: mounts %+v", mode, c.VolumeMounts)
		}
		if v := pod.Spec.Volumes; len(v) != 1 || v[0].Secret == nil || v[0].Secret.SecretName != "temporal-client" || len(v[0].Secret.Items) != 3 {
			t.Errorf("%s: volumes %+v", mode, v)
		}
		if pod.Annotations["checksum/secret"] == "" || pod.Annotations["team"] != "payments" || pod.Labels["tier"] != "backend" {
			t.Errorf("%s: pod annotations %v labels %v", mode, pod.Annotations, pod.Labels)
		}
		if pod.Spec.ServiceAccountName != "hookd-sa" || pod.Spec.NodeSelector["pool"] != "hookd" || len(pod.Spec.Tolerations) != 1 ||
			pod.Spec.Affinity == nil || len(pod.Spec.TopologySpreadConstraints) != 1 || len(pod.Spec.ImagePullSecrets) != 1 {
			t.Errorf("%s: scheduling options lost: %+v", mode, pod.Spec)
		}
	}
	if env := envOf(t, objs.deployment(t, "hookd-api").Spec.Template.Spec.Containers[0]); env["HOOKD_API_KEYS"] != "secret:hookd/HOOKD_API_KEYS" || env["HOOKD_CODEC_CORS_ORIGINS"] != "https://temporal.example.com" {
		t.Errorf("api: API keys %q, CORS %q", env["HOOKD_API_KEYS"], env["HOOKD_CODEC_CORS_ORIGINS"])
	}
	if env := envOf(t, objs.deployment(t, "hookd-worker").Spec.Template.Spec.Containers[0]); env["HOOKD_MAX_CONCURRENT_ATTEMPTS"] != "64" || env["HOOKD_WORKFLOW_CACHE"] != "500" {
		t.Errorf("worker: %v", env)
	}
	if r := objs.deployment(t, "hookd-api").Spec.Replicas; r == nil || *r != 3 {
		t.Errorf("api replicas %v without its HPA", r)
	}
	if _, ok := objs.typed["HorizontalPodAutoscaler/hookd-api"]; ok {
		t.Error("an API HPA although autoscaling is off")
	}
	if _, ok := objs.typed["ServiceAccount/hookd-sa"]; !ok {
		t.Errorf("no ServiceAccount/hookd-sa; have %v", objs.names())
	}
	checkServices(t, objs, "api", []string{"api", "worker"}, true)
	checkServiceMonitor(t, objs, "15s", "kube-prometheus")
}

// checkServiceMonitor checks the ServiceMonitor scrapes port metrics of
// the metrics Service.
func checkServiceMonitor(t *testing.T, objs objects, interval, releaseLabel string) {
	t.Helper()
	var sm struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
		Metadata   struct {
			Name      string            `json:"name"`
			Namespace string            `json:"namespace"`
			Labels    map[string]string `json:"labels"`
		} `json:"metadata"`
		Spec struct {
			Selector struct {
				MatchLabels map[string]string `json:"matchLabels"`
			} `json:"selector"`
			NamespaceSelector struct {
				MatchNames []string `json:"matchNames"`
			} `json:"namespaceSelector"`
			Endpoints []struct {
				Port          string `json:"port"`
				Path          string `json:"path"`
				Interval      string `json:"interval"`
				ScrapeTimeout string `json:"scrapeTimeout"`
			} `json:"endpoints"`
		} `json:"spec"`
	}
	if objs.serviceMonitor == nil {
		t.Fatalf("no ServiceMonitor; have %v", objs.names())
	}
	b, _ := yaml.Marshal(objs.serviceMonitor)
	if err := yaml.UnmarshalStrict(b, &sm); err != nil {
		t.Fatalf("ServiceMonitor: %v\n%s", err, b)
	}
	ms := objs.service(t, release+"-metrics")
	switch {
	case sm.APIVersion != "monitoring.coreos.com/v1":
		t.Errorf("ServiceMonitor apiVersion %s", sm.APIVersion)
	case !subset(sm.Spec.Selector.MatchLabels, ms.Labels) || subset(sm.Spec.Selector.MatchLabels, objs.service(t, release+"-api").Labels):
		t.Errorf("ServiceMonitor selects %v: not the metrics Service alone", sm.Spec.Selector.MatchLabels)
	case !slices.Equal(sm.Spec.NamespaceSelector.MatchNames, []string{namespace}):
		t.Errorf("ServiceMonitor namespaces %v", sm.Spec.NamespaceSelector.MatchNames)
	case len(sm.Spec.Endpoints) != 1 || sm.Spec.Endpoints[0].Port != "metrics" || sm.Spec.Endpoints[0].Path != "/metrics" || sm.Spec.Endpoints[0].Interval != interval:
		t.Errorf("ServiceMonitor endpoints %+v", sm.Spec.Endpoints)
	case releaseLabel != "" && sm.Metadata.Labels["release"] != releaseLabel:
		t.Errorf("ServiceMonitor labels %v", sm.Metadata.Labels)
	}
}

func TestServeMode(t *testing.T) {
	objs := mustRender(t, map[string]any{"mode": "serve"}, nil)
	for _, gone := range []string{"Deployment/hookd-api", "Deployment/hookd-worker"} {
		if _, ok := objs.typed[gone]; ok {
			t.Errorf("mode serve renders %s", gone)
		}
	}
	env := checkDeployment(t, objs, "serve", true)
	for _, k := range []string{"HOOKD_API_KEYS", "HOOKD_MAX_CONCURRENT_ATTEMPTS", "HOOKD_WORKFLOW_CACHE"} {
		if _, ok := env[k]; !ok {
			t.Errorf("serve: no %s", k)
		}
	}
	if d := objs.deployment(t, "hookd-serve"); d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
		t.Errorf("serve: replicas %v", d.Spec.Replicas)
	}
	checkServices(t, objs, "serve", []string{"serve"}, true)
}

// The ServiceMonitor follows the Prometheus operator's CRD unless a value
// says otherwise.
func TestServiceMonitorFollowsTheCRD(t *testing.T) {
	for _, tc := range []struct {
		name    string
		enabled any
		caps    []string
		want    bool
	}{
		{"auto, CRD group served", "auto", []string{"monitoring.coreos.com/v1"}, true},
		{"auto, CRD kind served", "auto", []string{"monitoring.coreos.com/v1/ServiceMonitor"}, true},
		{"auto, no CRD", "auto", nil, false},
		{"on, no CRD", true, nil, true},
		{"off, CRD served", false, []string{"monitoring.coreos.com/v1"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			vals := map[string]any{"metrics": map[string]any{"serviceMonitor": map[string]any{"enabled": tc.enabled}}}
			objs := mustRender(t, vals, capabilities(tc.caps...))
			if got := objs.serviceMonitor != nil; got != tc.want {
				t.Fatalf("ServiceMonitor rendered %v, want %v", got, tc.want)
			}
			if tc.want {
				checkServiceMonitor(t, objs, "30s", "")
			}
		})
	}
}

func TestMetricsOffAndPlaintextPayloads(t *testing.T) {
	vals := map[string]any{
		"metrics":           map[string]any{"enabled": false, "serviceMonitor": map[string]any{"enabled": true}},
		"payloadEncryption": false,
		"payloadKeys":       map[string]any{"existingSecret": ""},
	}
	objs := mustRender(t, vals, capabilities("monitoring.coreos.com/v1"))
	for _, mode := range []string{"api", "worker"} {
		env := checkDeployment(t, objs, mode, false)
		if env["HOOKD_PAYLOAD_ENCRYPTION"] != "off" {
			t.Errorf("%s: HOOKD_PAYLOAD_ENCRYPTION %q", mode, env["HOOKD_PAYLOAD_ENCRYPTION"])
		}
	}
	checkServices(t, objs, "api", []string{"api", "worker"}, false)
	if objs.serviceMonitor != nil {
		t.Error("a ServiceMonitor with metrics off")
	}
}

// set returns the values with one setting at a dotted path.
func set(path string, v any) map[string]any {
	keys := strings.Split(path, ".")
	out := map[string]any{}
	m := out
	for _, k := range keys[:len(keys)-1] {
		next := map[string]any{}
		m[k] = next
		m = next
	}
	m[keys[len(keys)-1]] = v
	return out
}

func TestSchemaRefusesBadValues(t *testing.T) {
	for _, tc := range []struct {
		vals map[string]any
		want string // in the error: the path refused
	}{
		{set("mode", "both"), "'/mode'"},
		{set("mode", 1), "'/mode'"},
		{set("api.replicas", -1), "'/api/replicas'"},
		{set("worker.replicas", "two"), "'/worker/replicas'"},
		{set("serve.replicas", 1.5), "'/serve/replicas'"},
		{set("worker.autoscaling.minReplicas", 0), "'/worker/autoscaling/minReplicas'"},
		{set("worker.maxConcurrentAttempts", 0), "'/worker/maxConcurrentAttempts'"},
		{set("database.existingSecret", ""), "'/database'"},
		{set("masterKey.existingSecret", ""), "'/masterKey'"},
		{set("apiKeys.existingSecret", ""), "'/apiKeys'"},
		{set("payloadKeys.existingSecret", ""), "'/payloadKeys'"},
		{set("payloadEncryption", "off"), "'/payloadEncryption'"},
		{set("database.url", "postgres://x"), "'url' not allowed"},
		{set("replicaCount", 3), "'replicaCount' not allowed"},
		{set("temporal.address", "temporal-frontend"), "'/temporal/address'"},
		{set("temporal.namespace", ""), "'/temporal/namespace'"},
		{set("temporal.tls.enabled", "yes"), "'/temporal/tls/enabled'"},
		{map[string]any{"temporal": map[string]any{"tls": map[string]any{"existingSecret": "t", "certKey": "", "keyKey": "", "caKey": ""}}}, "'/temporal/tls'"},
		{set("config.retention", "7 days"), "'/config/retention'"},
		{set("config.logLevel", "verbose"), "'/config/logLevel'"},
		{set("ports.http", 70000), "'/ports/http'"},
		{set("image.pullPolicy", "Sometimes"), "'/image/pullPolicy'"},
		{set("image.repository", ""), "'/image/repository'"},
		{set("metrics.serviceMonitor.enabled", "yes"), "'/metrics/serviceMonitor/enabled'"},
		{set("service.type", "ExternalName"), "'/service/type'"},
		{set("extraEnv", []any{map[string]any{"name": "BAD NAME"}}), "'/extraEnv/0/name'"},
	} {
		name := fmt.Sprint(tc.vals)
		t.Run(name, func(t *testing.T) {
			_, err := render(tc.vals, nil)
			if err == nil {
				t.Fatalf("accepted %v", tc.vals)
			}
			if !strings.Contains(err.Error(), "schema") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("refused %v, but not by the schema naming %q: %v", tc.vals, tc.want, err)
			}
		})
	}
	// What the schema accepts: a secret given as a value instead of a
	// Secret, and payload keys left out with encryption off.
	for _, ok := range []map[string]any{
		{"database": map[string]any{"existingSecret": "", "value": "postgres://x"}},
		{"payloadEncryption": false, "payloadKeys": map[string]any{"existingSecret": ""}},
		{"temporal": map[string]any{"tls": map[string]any{"existingSecret": "ca-only", "certKey": "", "keyKey": ""}}},
	} {
		if _, err := render(ok, nil); err != nil {
			t.Errorf("refused %v: %v", ok, err)
		}
	}
}

// readK8s reads deploy/k8s's plain manifests (the kustomization lists them
// without patches).
func readK8s(t *testing.T) map[string]runtime.Object {
	t.Helper()
	files, _ := filepath.Glob("../../k8s/*.yaml")
	out := map[string]runtime.Object{}
	for _, f := range files {
		if filepath.Base(f) == "kustomization.yaml" {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(b)))
		for {
			doc, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			obj, gvk, err := strict.Decode(doc, nil, nil)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			name := obj.(interface{ GetName() string }).GetName()
			out[gvk.Kind+"/"+name] = obj
		}
	}
	return out
}

// The kustomize manifests and the chart's defaults run the same
// processes with the same settings.
func TestKustomizeMatchesTheChart(t *testing.T) {
	k8s := readK8s(t)
	cm, _ := k8s["ConfigMap/hookd"].(*corev1.ConfigMap)
	sec, _ := k8s["Secret/hookd"].(*corev1.Secret)
	if cm == nil || sec == nil {
		t.Fatal("deploy/k8s: no ConfigMap/hookd or Secret/hookd")
	}
	chart := mustRender(t, nil, nil)
	appVersion := func() string {
		ch, err := loader.Load(chartDir)
		if err != nil {
			t.Fatal(err)
		}
		return ch.Metadata.AppVersion
	}()
	for _, mode := range []string{"api", "worker"} {
		kd, _ := k8s["Deployment/hookd-"+mode].(*appsv1.Deployment)
		if kd == nil {
			t.Fatalf("deploy/k8s: no Deployment/hookd-%s", mode)
		}
		kc, hc := kd.Spec.Template.Spec.Containers[0], chart.deployment(t, "hookd-"+mode).Spec.Template.Spec.Containers[0]
		// kustomize's environment, resolved like the chart's.
		kenv := map[string]string{}
		for _, ef := range kc.EnvFrom {
			switch {
			case ef.ConfigMapRef != nil && ef.ConfigMapRef.Name == "hookd":
				maps.Copy(kenv, cm.Data)
			case ef.SecretRef != nil && ef.SecretRef.Name == "hookd":
				for k := range sec.StringData {
					kenv[k] = "secret:hookd/" + k
				}
			}
		}
		maps.Copy(kenv, envOf(t, kc))
		henv := envOf(t, hc)
		if a, b := slices.Sorted(maps.Keys(kenv)), slices.Sorted(maps.Keys(henv)); !slices.Equal(a, b) {
			t.Errorf("%s: deploy/k8s sets %v, the chart %v", mode, a, b)
		}
		for k, v := range henv {
			if kv, ok := kenv[k]; ok && kv != v {
				t.Errorf("%s: %s is %q in deploy/k8s, %q in the chart's defaults", mode, k, kv, v)
			}
		}
		if kc.Image != "ghcr.io/hookd/hookd:"+appVersion || hc.Image != kc.Image {
			t.Errorf("%s: image %s in deploy/k8s, %s in the chart (appVersion %s)", mode, kc.Image, hc.Image, appVersion)
		}
		if !slices.Equal(kc.Args, hc.Args) {
			t.Errorf("%s: args %v in deploy/k8s, %v in the chart", mode, kc.Args, hc.Args)
		}
		kp, hp := map[string]int32{}, map[string]int32{}
		for _, p := range kc.Ports {
			kp[p.Name] = p.ContainerPort
		}
		for _, p := range hc.Ports {
			hp[p.Name] = p.ContainerPort
		}
		if !maps.Equal(kp, hp) {
			t.Errorf("%s: ports %v in deploy/k8s, %v in the chart", mode, kp, hp)
		}
		for _, pr := range [][2]*corev1.Probe{{kc.LivenessProbe, hc.LivenessProbe}, {kc.ReadinessProbe, hc.ReadinessProbe}} {
			if pr[0].HTTPGet.Path != pr[1].HTTPGet.Path || pr[0].PeriodSeconds != pr[1].PeriodSeconds || pr[0].FailureThreshold != pr[1].FailureThreshold {
				t.Errorf("%s: probe %+v in deploy/k8s, %+v in the chart", mode, pr[0].HTTPGet, pr[1].HTTPGet)
			}
		}
		for _, rn := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			kr, hr, kl, hl := kc.Resources.Requests[rn], hc.Resources.Requests[rn], kc.Resources.Limits[rn], hc.Resources.Limits[rn]
			if kr.Cmp(hr) != 0 || kl.Cmp(hl) != 0 {
				t.Errorf("%s: %s resources %v in deploy/k8s, %v in the chart", mode, rn, kc.Resources, hc.Resources)
			}
		}
		kg, hg := kd.Spec.Template.Spec.TerminationGracePeriodSeconds, chart.deployment(t, "hookd-"+mode).Spec.Template.Spec.TerminationGracePeriodSeconds
		if kg == nil || hg == nil || *kg != *hg {
			t.Errorf("%s: terminationGracePeriodSeconds %v in deploy/k8s, %v in the chart", mode, kg, hg)
		}
	}
}
