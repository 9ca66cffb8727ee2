package cluster

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"
)

// object is one Kubernetes object as read from YAML, with where it came from.
type object = *unstructured.Unstructured

// Kube is a dynamic client on the local cluster with a discovery-backed
// mapper from kinds to resources, refreshed when a new kind appears.
type Kube struct {
	Config  *rest.Config
	Dynamic dynamic.Interface
	mapper  *restmapper.DeferredDiscoveryRESTMapper
	http    *http.Client
}

func newKube(kubeconfig string) (*Kube, error) {
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", kubeconfig, err)
	}
	cfg.QPS, cfg.Burst = 200, 400
	return NewKube(cfg)
}

// NewKube makes a client from a REST config.
func NewKube(cfg *rest.Config) (*Kube, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, err
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return nil, err
	}
	return &Kube{
		Config:  cfg,
		Dynamic: dyn,
		mapper:  restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc)),
		http:    hc,
	}, nil
}

// Connect opens a client on the cluster whose state is in dir.
func Connect(dir string) (*Kube, *State, error) {
	st, err := ReadState(dir)
	if err != nil {
		return nil, nil, err
	}
	kc, err := newKube(st.Kubeconfig)
	return kc, st, err
}

// Resource maps an object's kind to its resource, refreshing discovery once
// when the kind is not known yet.
func (k *Kube) Resource(obj object) (dynamic.ResourceInterface, error) {
	gvk := obj.GroupVersionKind()
	m, err := k.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if meta.IsNoMatchError(err) {
		k.mapper.Reset()
		m, err = k.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	if err != nil {
		return nil, err
	}
	if m.Scope.Name() == meta.RESTScopeNameNamespace {
		ns := obj.GetNamespace()
		if ns == "" {
			ns = "default"
		}
		return k.Dynamic.Resource(m.Resource).Namespace(ns), nil
	}
	return k.Dynamic.Resource(m.Resource), nil
}

// Apply applies one object with server-side apply, as `kubectl apply
// --server-side --force-conflicts` does.
func (k *Kube) Apply(ctx context.Context, obj object) (object, error) {
	ri, err := k.Resource(obj)
	if err != nil {
		return nil, err
	}
	obj = obj.DeepCopy()
	obj.SetResourceVersion("")
	obj.SetManagedFields(nil)
	return ri.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "ome-e2e", Force: true})
}

// Create creates one object (dry run when dryRun), as `kubectl create` does.
func (k *Kube) Create(ctx context.Context, obj object, dryRun bool) (object, error) {
	ri, err := k.Resource(obj)
	if err != nil {
		return nil, err
	}
	opts := metav1.CreateOptions{FieldManager: "ome-e2e"}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	return ri.Create(ctx, obj, opts)
}

// Delete deletes one object and waits until it is gone.
func (k *Kube) Delete(ctx context.Context, obj object) error {
	ri, err := k.Resource(obj)
	if err != nil {
		return err
	}
	err = ri.Delete(ctx, obj.GetName(), metav1.DeleteOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	for {
		_, err := ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s %s was not deleted in time", obj.GetKind(), obj.GetName())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (k *Kube) applyAll(ctx context.Context, objs []object) error {
	for _, obj := range objs {
		if _, err := k.Apply(ctx, obj); err != nil {
			return fmt.Errorf("applying %s %s: %w", obj.GetKind(), obj.GetName(), err)
		}
	}
	return nil
}

// waitCRDsEstablished waits until every CRD among objs is Established.
func (k *Kube) waitCRDsEstablished(ctx context.Context, objs []object) error {
	crds := k.Dynamic.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	for _, obj := range objs {
		if obj.GetKind() != "CustomResourceDefinition" {
			continue
		}
		for {
			got, err := crds.Get(ctx, obj.GetName(), metav1.GetOptions{})
			if err == nil && conditionTrue(got, "Established") {
				break
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("CRD %s was not established in time", obj.GetName())
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	k.mapper.Reset()
	return nil
}

func conditionTrue(obj object, kind string) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == kind && m["status"] == "True" {
			return true
		}
	}
	return false
}

// applyWhenServed applies Gatekeeper constraints once their kinds (made
// from the templates) are served.
func (k *Kube) applyWhenServed(ctx context.Context, gk process, objs []object) error {
	for _, obj := range objs {
		for {
			_, err := k.Apply(ctx, obj)
			if err == nil {
				break
			}
			if !meta.IsNoMatchError(err) && !apierrors.IsNotFound(err) {
				return fmt.Errorf("applying %s %s: %w", obj.GetKind(), obj.GetName(), err)
			}
			if !gk.alive() {
				return gk.died()
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("the constraint kind %s was not served in time (Gatekeeper creates it from the template): %v", obj.GetKind(), err)
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
	return nil
}

// Probes: what Gatekeeper must refuse once both constraints are enforced.
const probeInferenceService = `apiVersion: ome.io/v1beta1
kind: InferenceService
metadata: {name: ome-e2e-probe, namespace: default}
spec:
  model: {name: ome-e2e-no-such-model}
  engine: {}
`

const probeRuntime = `apiVersion: ome.io/v1beta1
kind: ClusterServingRuntime
metadata: {name: ome-e2e-probe}
spec:
  supportedModelFormats:
    - modelFormat: {name: safetensors, version: "1.0.0"}
      modelFramework: {name: transformers, version: "4.46.0", operator: LessThan}
`

// waitEnforced waits until dry-run creates of the two probes are refused
// with the constraints' words: the InferenceService by Gatekeeper's
// webhook, the runtime by the ValidatingAdmissionPolicy that Gatekeeper
// generates from OMEVersionLint's CEL (its binding comes about 30 s after
// the constraint, --default-wait-for-vapb-generation; until then the
// webhook refuses it).
func (k *Kube) waitEnforced(ctx context.Context, gk process) error {
	probes := []struct{ yaml, want string }{
		{probeInferenceService, `denied the request: [ome-runtime-selection] `},
		{probeRuntime, `ValidatingAdmissionPolicy 'gatekeeper-omeversionlint' with binding 'gatekeeper-omeversionlint-ome-version-lint-errors' denied request: [unknown-operator] `},
	}
	for _, p := range probes {
		objs, err := decodeObjects("probe", []byte(p.yaml))
		if err != nil {
			return err
		}
		var last string
		for {
			_, err := k.Create(ctx, objs[0], true)
			if err != nil && strings.Contains(err.Error(), p.want) {
				break
			}
			if err != nil {
				last = err.Error()
			} else {
				last = "admitted"
			}
			if !gk.alive() {
				return gk.died()
			}
			select {
			case <-ctx.Done():
				return fmt.Errorf("Gatekeeper did not refuse a probe %s in time (want %q, last answer: %s); the last lines of %s:\n%s",
					objs[0].GetKind(), p.want, last, gk.logFile(), gk.tail(15))
			case <-time.After(250 * time.Millisecond):
			}
		}
	}
	return nil
}

// pointWebhooks rewrites a ValidatingWebhookConfiguration of Gatekeeper's
// chart to call the local webhook: each clientConfig.service becomes a URL
// on 127.0.0.1 with the same path, and the local CA. Everything else
// (failurePolicy, timeoutSeconds, rules, selectors) stays as the chart has it.
func pointWebhooks(obj object, port int, caPEM []byte) error {
	hooks, _, err := unstructured.NestedSlice(obj.Object, "webhooks")
	if err != nil || len(hooks) == 0 {
		return fmt.Errorf("ValidatingWebhookConfiguration %s has no webhooks", obj.GetName())
	}
	for i, h := range hooks {
		hook := h.(map[string]any)
		path, _, _ := unstructured.NestedString(hook, "clientConfig", "service", "path")
		if path == "" {
			return fmt.Errorf("webhook %v has no service path", hook["name"])
		}
		hook["clientConfig"] = map[string]any{
			"url":      fmt.Sprintf("https://127.0.0.1:%d%s", port, path),
			"caBundle": base64.StdEncoding.EncodeToString(caPEM),
		}
		hooks[i] = hook
	}
	return unstructured.SetNestedSlice(obj.Object, hooks, "webhooks")
}

func base64Std(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// ReadObjects reads every object of the YAML or JSON files given, folders
// recursively (*.yaml, *.yml, *.json) in name order; `kind: List` items
// are flattened.
func ReadObjects(paths ...string) ([]object, error) { return readObjects(paths...) }

func readObjects(paths ...string) ([]object, error) {
	var out []object
	for _, p := range paths {
		files := []string{p}
		if info, err := os.Stat(p); err != nil {
			return nil, err
		} else if info.IsDir() {
			files = nil
			err := filepath.WalkDir(p, func(path string, d os.DirEntry, err error) error {
				if err != nil {
					return err
				}
				switch filepath.Ext(path) {
				case ".yaml", ".yml", ".json":
					if !d.IsDir() {
						files = append(files, path)
					}
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
			sort.Strings(files)
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			objs, err := decodeObjects(f, data)
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
		}
	}
	return out, nil
}

func decodeObjects(name string, data []byte) ([]object, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []object
	for {
		var m map[string]any
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if len(m) == 0 {
			continue
		}
		obj := &unstructured.Unstructured{Object: m}
		if obj.IsList() {
			list, err := obj.ToList()
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			for i := range list.Items {
				out = append(out, &list.Items[i])
			}
			continue
		}
		out = append(out, obj)
	}
}

// Get reads an object back from the API server.
func (k *Kube) Get(ctx context.Context, obj object) (object, error) {
	ri, err := k.Resource(obj)
	if err != nil {
		return nil, err
	}
	return ri.Get(ctx, obj.GetName(), metav1.GetOptions{})
}

// Raw GETs a path of the API server (such as /metrics).
func (k *Kube) Raw(ctx context.Context, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(k.Config.Host, "/")+path, nil)
	if err != nil {
		return nil, err
	}
	resp, err := k.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s", path, resp.Status)
	}
	return body, nil
}
