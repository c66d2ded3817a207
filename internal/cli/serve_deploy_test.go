package cli

import (
	"bytes"
	"errors"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"
)

// envNames returns the environment variables `hookd <mode>` reads, taken
// from its flag definitions, so the manifests cannot drift from them.
func envNames(t *testing.T, mode string) map[string]bool {
	t.Helper()
	fs := newServeFlagSet(mode, &serveFlags{})
	re := regexp.MustCompile(`\(\$([A-Z0-9_]+)\)$`)
	names := map[string]bool{}
	fs.VisitAll(func(f *pflag.Flag) {
		m := re.FindStringSubmatch(f.Usage)
		if m == nil {
			t.Errorf("flag -%s names no environment variable", f.Name)
			return
		}
		names[m[1]] = true
	})
	return names
}

// required lists what each mode cannot start without.
var required = map[string][]string{
	"api":    {"TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "HOOKD_DATABASE_URL", "HOOKD_MASTER_KEY", "HOOKD_PAYLOAD_KEYS", "HOOKD_API_KEYS", "HOOKD_HTTP_ADDR"},
	"worker": {"TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "HOOKD_DATABASE_URL", "HOOKD_MASTER_KEY", "HOOKD_PAYLOAD_KEYS", "HOOKD_HTTP_ADDR"},
}

// secretEnv must come from a Secret, never a ConfigMap or a literal.
var secretEnv = []string{"HOOKD_DATABASE_URL", "HOOKD_MASTER_KEY", "HOOKD_PAYLOAD_KEYS", "HOOKD_API_KEYS", "TEMPORAL_API_KEY"}

const hookdImage = "ghcr.io/hookd/hookd:"

func TestDeployEnvNamesComeFromFlags(t *testing.T) {
	api, worker := envNames(t, "api"), envNames(t, "worker")
	for _, want := range []string{"TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE", "TEMPORAL_TLS_CERT", "TEMPORAL_TLS_KEY", "TEMPORAL_TLS_CA", "TEMPORAL_TLS_SERVER_NAME", "TEMPORAL_API_KEY", "HOOKD_DATABASE_URL", "HOOKD_MASTER_KEY", "HOOKD_ALLOW_CIDRS", "HOOKD_HTTP_ADDR", "HOOKD_METRICS_ADDR"} {
		if !api[want] || !worker[want] {
			t.Errorf("%s: api %v, worker %v; want both", want, api[want], worker[want])
		}
	}
	if !api["HOOKD_API_KEYS"] || worker["HOOKD_API_KEYS"] {
		t.Error("HOOKD_API_KEYS belongs to the API only")
	}
}

// k8sObject is the part of a Kubernetes object the test checks.
type k8sObject struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
	StringData map[string]string `yaml:"stringData"`
	Spec       struct {
		Selector struct {
			MatchLabels map[string]string `yaml:"matchLabels"`
		} `yaml:"selector"`
		ServiceSelector map[string]string `yaml:"-"`
		Template        struct {
			Metadata struct {
				Labels map[string]string `yaml:"labels"`
			} `yaml:"metadata"`
			Spec struct {
				TerminationGracePeriodSeconds int         `yaml:"terminationGracePeriodSeconds"`
				Containers                    []container `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
		Ports []struct {
			TargetPort string `yaml:"targetPort"`
		} `yaml:"ports"`
		ScaleTargetRef struct {
			Kind string `yaml:"kind"`
			Name string `yaml:"name"`
		} `yaml:"scaleTargetRef"`
		MinReplicas int `yaml:"minReplicas"`
	} `yaml:"spec"`
	raw map[string]any
}

type container struct {
	Image string   `yaml:"image"`
	Args  []string `yaml:"args"`
	Env   []struct {
		Name      string `yaml:"name"`
		Value     string `yaml:"value"`
		ValueFrom *struct {
			SecretKeyRef *struct {
				Name string `yaml:"name"`
				Key  string `yaml:"key"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	EnvFrom []struct {
		ConfigMapRef *struct {
			Name string `yaml:"name"`
		} `yaml:"configMapRef"`
		SecretRef *struct {
			Name string `yaml:"name"`
		} `yaml:"secretRef"`
	} `yaml:"envFrom"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	LivenessProbe  *probe `yaml:"livenessProbe"`
	ReadinessProbe *probe `yaml:"readinessProbe"`
}

type probe struct {
	HTTPGet *struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
}

// decodeAll decodes every YAML document in path with fn.
func decodeAll(t *testing.T, path string, fn func(dec func(any) error)) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	d := yaml.NewDecoder(bytes.NewReader(b))
	for {
		var node yaml.Node
		err := d.Decode(&node)
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		fn(func(v any) error { return node.Decode(v) })
	}
}

func loadK8s(t *testing.T) map[string]*k8sObject {
	t.Helper()
	files, _ := filepath.Glob("../../deploy/k8s/*.yaml")
	if len(files) == 0 {
		t.Fatal("no manifests in deploy/k8s")
	}
	objs := map[string]*k8sObject{}
	for _, f := range files {
		decodeAll(t, f, func(dec func(any) error) {
			var o k8sObject
			if err := dec(&o); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if err := dec(&o.raw); err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if o.Kind == "Service" {
				sel, _ := o.raw["spec"].(map[string]any)["selector"].(map[string]any)
				o.Spec.ServiceSelector = map[string]string{}
				for k, v := range sel {
					o.Spec.ServiceSelector[k], _ = v.(string)
				}
			}
			objs[o.Kind+"/"+o.Metadata.Name] = &o
		})
	}
	return objs
}

func TestDeployKubernetes(t *testing.T) {
	objs := loadK8s(t)
	cm, sec := objs["ConfigMap/hookd"], objs["Secret/hookd"]
	if cm == nil || sec == nil {
		t.Fatalf("want ConfigMap/hookd and Secret/hookd; have %v", slices.Sorted(maps.Keys(objs)))
	}
	for _, name := range secretEnv {
		if _, ok := cm.Data[name]; ok {
			t.Errorf("ConfigMap holds the secret %s", name)
		}
	}
	httpPort := portOf(cm.Data["HOOKD_HTTP_ADDR"])
	for mode, name := range map[string]string{"api": "hookd-api", "worker": "hookd-worker"} {
		d := objs["Deployment/"+name]
		if d == nil {
			t.Errorf("missing Deployment/%s", name)
			continue
		}
		known := envNames(t, mode)
		cs := d.Spec.Template.Spec.Containers
		if len(cs) != 1 {
			t.Fatalf("%s: %d containers", name, len(cs))
		}
		c := cs[0]
		if !strings.HasPrefix(c.Image, hookdImage) || !slices.Equal(c.Args, []string{mode}) {
			t.Errorf("%s: image %q args %v; want %s* and [%s]", name, c.Image, c.Args, hookdImage, mode)
		}
		// The environment: ConfigMap and Secret keys through envFrom,
		// plus env entries.
		env := map[string]string{} // name -> source
		for _, ef := range c.EnvFrom {
			switch {
			case ef.ConfigMapRef != nil && ef.ConfigMapRef.Name == "hookd":
				for k := range cm.Data {
					env[k] = "configmap"
				}
			case ef.SecretRef != nil && ef.SecretRef.Name == "hookd":
				for k := range sec.StringData {
					env[k] = "secret"
				}
			default:
				t.Errorf("%s: envFrom names an unknown source", name)
			}
		}
		for _, e := range c.Env {
			env[e.Name] = "literal"
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				ref := e.ValueFrom.SecretKeyRef
				if _, ok := sec.StringData[ref.Key]; ref.Name != "hookd" || !ok {
					t.Errorf("%s: %s refers to a missing secret key %s/%s", name, e.Name, ref.Name, ref.Key)
				}
				env[e.Name] = "secret"
			}
		}
		for k, src := range env {
			if !known[k] {
				t.Errorf("%s: environment variable %s is not read by hookd %s", name, k, mode)
			}
			if slices.Contains(secretEnv, k) && src != "secret" {
				t.Errorf("%s: %s comes from a %s, want a Secret", name, k, src)
			}
		}
		for _, k := range required[mode] {
			if _, ok := env[k]; !ok {
				t.Errorf("%s: required %s not set", name, k)
			}
		}
		ports := map[string]int{}
		for _, p := range c.Ports {
			ports[p.Name] = p.ContainerPort
		}
		if ports["http"] != httpPort {
			t.Errorf("%s: containerPort http %d, HOOKD_HTTP_ADDR port %d", name, ports["http"], httpPort)
		}
		if mp := portOf(cm.Data["HOOKD_METRICS_ADDR"]); mp != 0 && ports["metrics"] != mp {
			t.Errorf("%s: containerPort metrics %d, HOOKD_METRICS_ADDR port %d", name, ports["metrics"], mp)
		}
		for kind, p := range map[string]*probe{"/healthz": c.LivenessProbe, "/readyz": c.ReadinessProbe} {
			if p == nil || p.HTTPGet == nil || p.HTTPGet.Path != kind || p.HTTPGet.Port != "http" {
				t.Errorf("%s: probe %s missing or not on port http", name, kind)
			}
		}
		if !subset(d.Spec.Selector.MatchLabels, d.Spec.Template.Metadata.Labels) {
			t.Errorf("%s: selector does not match the pod labels", name)
		}
		if d.Spec.Template.Spec.TerminationGracePeriodSeconds < 30 {
			t.Errorf("%s: terminationGracePeriodSeconds %d leaves no time to drain", name, d.Spec.Template.Spec.TerminationGracePeriodSeconds)
		}
	}
	svc, hpa, api := objs["Service/hookd-api"], objs["HorizontalPodAutoscaler/hookd-api"], objs["Deployment/hookd-api"]
	switch {
	case svc == nil || hpa == nil || api == nil:
		t.Fatal("want Service, HorizontalPodAutoscaler and Deployment hookd-api")
	case !subset(svc.Spec.ServiceSelector, api.Spec.Template.Metadata.Labels) || len(svc.Spec.ServiceSelector) == 0:
		t.Error("Service/hookd-api selects no API pods")
	case len(svc.Spec.Ports) == 0 || svc.Spec.Ports[0].TargetPort != "http":
		t.Error("Service/hookd-api does not target port http")
	case hpa.Spec.ScaleTargetRef.Kind != "Deployment" || hpa.Spec.ScaleTargetRef.Name != "hookd-api" || hpa.Spec.MinReplicas < 2:
		t.Error("HPA does not scale Deployment/hookd-api from at least 2 replicas")
	}
}

func TestDeployCompose(t *testing.T) {
	var compose struct {
		Services map[string]struct {
			Image       string            `yaml:"image"`
			Command     []string          `yaml:"command"`
			Environment map[string]string `yaml:"environment"`
			Ports       []string          `yaml:"ports"`
		} `yaml:"services"`
	}
	decodeAll(t, "../../deploy/docker-compose.yml", func(dec func(any) error) {
		if err := dec(&compose); err != nil {
			t.Fatal(err)
		}
	})
	images := map[string]string{
		"postgresql": "postgres:", "temporal": "temporalio/server:", "temporal-ui": "temporalio/ui:",
		"temporal-schema": "temporalio/admin-tools:", "hookd-api": hookdImage, "hookd-worker": hookdImage,
	}
	for svc, prefix := range images {
		if s, ok := compose.Services[svc]; !ok || !strings.HasPrefix(s.Image, prefix) {
			t.Errorf("service %s: image %q, want %s*", svc, s.Image, prefix)
		}
	}
	for mode, svc := range map[string]string{"api": "hookd-api", "worker": "hookd-worker"} {
		s := compose.Services[svc]
		known := envNames(t, mode)
		if !slices.Equal(s.Command, []string{mode}) {
			t.Errorf("%s: command %v, want [%s]", svc, s.Command, mode)
		}
		for k := range s.Environment {
			if !known[k] {
				t.Errorf("%s: environment variable %s is not read by hookd %s", svc, k, mode)
			}
		}
		for _, k := range required[mode] {
			if s.Environment[k] == "" {
				t.Errorf("%s: required %s not set", svc, k)
			}
		}
		if addr := s.Environment["TEMPORAL_ADDRESS"]; addr != "temporal:7233" {
			t.Errorf("%s: TEMPORAL_ADDRESS %q, want the temporal service", svc, addr)
		}
	}
	api := compose.Services["hookd-api"]
	if want := portOf(api.Environment["HOOKD_HTTP_ADDR"]); len(api.Ports) == 0 || !strings.HasSuffix(api.Ports[0], ":"+strconv.Itoa(want)) {
		t.Errorf("hookd-api publishes %v, listens on %d", api.Ports, want)
	}
}

func TestDeployDockerfile(t *testing.T) {
	b, err := os.ReadFile("../../deploy/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	df := string(b)
	var froms []string
	for line := range strings.SplitSeq(df, "\n") {
		if f, ok := strings.CutPrefix(line, "FROM "); ok {
			froms = append(froms, f)
		}
	}
	switch {
	case len(froms) < 2:
		t.Errorf("want a multi-stage build, have FROM %v", froms)
	case !strings.HasPrefix(froms[len(froms)-1], "gcr.io/distroless/static") && froms[len(froms)-1] != "scratch":
		t.Errorf("final stage %q is not distroless static or scratch", froms[len(froms)-1])
	}
	for _, want := range []string{"CGO_ENABLED=0", `ENTRYPOINT ["/hookd"]`, "EXPOSE 8080", "USER nonroot", "./cmd/hookd"} {
		if !strings.Contains(df, want) {
			t.Errorf("Dockerfile lacks %q", want)
		}
	}
}

// portOf returns the port of a listen address, or 0.
func portOf(addr string) int {
	_, port, _ := net.SplitHostPort(addr)
	n, _ := strconv.Atoi(port)
	return n
}

func subset(sub, of map[string]string) bool {
	for k, v := range sub {
		if of[k] != v {
			return false
		}
	}
	return true
}
