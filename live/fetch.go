package live

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"time"
)

// Options says which cluster, context and namespace to read, as kubectl's
// flags of the same names do.
type Options struct {
	Kubeconfig    string // --kubeconfig; default $KUBECONFIG, then ~/.kube/config
	Context       string // --context; default the current context
	Namespace     string // -n; default the context's namespace, then "default"
	AllNamespaces bool   // -A
	Timeout       time.Duration
}

// Resource is one of OME's resources (group ome.io, version v1beta1).
type Resource struct {
	Kind, Plural string
	Namespaced   bool
}

// OME's resources that evaluate reads.
var (
	BaseModels             = Resource{"BaseModel", "basemodels", true}
	ClusterBaseModels      = Resource{"ClusterBaseModel", "clusterbasemodels", false}
	ServingRuntimes        = Resource{"ServingRuntime", "servingruntimes", true}
	ClusterServingRuntimes = Resource{"ClusterServingRuntime", "clusterservingruntimes", false}
	InferenceServices      = Resource{"InferenceService", "inferenceservices", true}
)

// Models and Runtimes are the resources of each sort; ModelsAndRuntimes
// both, in that order.
var (
	Models            = []Resource{BaseModels, ClusterBaseModels}
	Runtimes          = []Resource{ServingRuntimes, ClusterServingRuntimes}
	ModelsAndRuntimes = []Resource{BaseModels, ClusterBaseModels, ServingRuntimes, ClusterServingRuntimes}
)

const groupVersion = "ome.io/v1beta1"

// List is one resource's objects as a JSON `kind: List` document; Name says
// where they come from ("cluster ome-local: basemodels in llama-demo"),
// for the loader's messages.
type List struct {
	Name string
	Data []byte
}

// Fetch lists each resource, in the order given. Namespaced resources come
// from the namespace (all namespaces with AllNamespaces). Every failure is
// one line: a cluster that cannot be reached, credentials it refuses, a
// cluster without OME's CRDs.
func Fetch(ctx context.Context, o Options, resources []Resource) ([]List, error) {
	ep, err := resolve(o)
	if err != nil {
		return nil, err
	}
	if o.Namespace != "" {
		ep.Namespace = o.Namespace
	}
	timeout := o.Timeout
	if timeout == 0 {
		timeout = 30 * time.Second
	}
	c, err := newClient(ctx, ep, timeout)
	if err != nil {
		return nil, err
	}
	// Discovery first: no OME group, or a resource missing from it, means
	// OME's CRDs are not installed.
	var disc struct {
		Resources []struct{ Name string } `json:"resources"`
	}
	if err := c.get(ctx, "/apis/"+groupVersion, &disc); err != nil {
		var se *statusError
		if errors.As(err, &se) && se.code == http.StatusNotFound {
			return nil, fmt.Errorf("the cluster of context %q has no OME CRDs (%s is not served): install OME's CRDs", ep.Context, groupVersion)
		}
		return nil, err
	}
	served := map[string]bool{}
	for _, r := range disc.Resources {
		served[r.Name] = true
	}
	var out []List
	for _, r := range resources {
		if !served[r.Plural] {
			return nil, fmt.Errorf("the cluster of context %q does not serve %s.%s: install OME's CRDs", ep.Context, r.Plural, groupVersion)
		}
		path := "/apis/" + groupVersion + "/" + r.Plural
		name := fmt.Sprintf("cluster %s: %s", ep.Context, r.Plural)
		if r.Namespaced && !o.AllNamespaces {
			path = "/apis/" + groupVersion + "/namespaces/" + url.PathEscape(ep.Namespace) + "/" + r.Plural
			name += " in " + ep.Namespace
		}
		items, err := c.list(ctx, path, r.Kind)
		if err != nil {
			return nil, err
		}
		data, err := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "List", "items": items})
		if err != nil {
			return nil, err
		}
		out = append(out, List{Name: name, Data: data})
	}
	return out, nil
}

type client struct {
	ep   *endpoint
	http *http.Client
}

func newClient(ctx context.Context, ep *endpoint, timeout time.Duration) (*client, error) {
	tc := &tls.Config{InsecureSkipVerify: ep.Insecure, ServerName: ep.TLSName} //nolint:gosec // as the kubeconfig asks
	if len(ep.CA) > 0 {
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(ep.CA) {
			return nil, fmt.Errorf("context %q: the certificate authority holds no PEM certificate", ep.Context)
		}
		tc.RootCAs = pool
	}
	if ep.Exec != nil {
		if err := runExec(ctx, ep); err != nil {
			return nil, err
		}
	}
	if len(ep.CertPEM) > 0 || len(ep.KeyPEM) > 0 {
		cert, err := tls.X509KeyPair(ep.CertPEM, ep.KeyPEM)
		if err != nil {
			return nil, fmt.Errorf("context %q: client certificate: %w", ep.Context, err)
		}
		tc.Certificates = []tls.Certificate{cert}
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = tc
	return &client{ep: ep, http: &http.Client{Transport: tr, Timeout: timeout}}, nil
}

// runExec runs a client-go credential plugin (ExecCredential) and takes
// its token or client certificate.
func runExec(ctx context.Context, ep *endpoint) error {
	x := ep.Exec
	apiVersion := x.APIVersion
	if apiVersion == "" {
		apiVersion = "client.authentication.k8s.io/v1"
	}
	cmd := exec.CommandContext(ctx, x.Command, x.Args...)
	cmd.Env = os.Environ()
	for _, e := range x.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	info, _ := json.Marshal(map[string]any{"apiVersion": apiVersion, "kind": "ExecCredential", "spec": map[string]any{"interactive": false}})
	cmd.Env = append(cmd.Env, "KUBERNETES_EXEC_INFO="+string(info))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("context %q: credential plugin %s: %v %s", ep.Context, x.Command, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var cred struct {
		Status struct {
			Token                 string `json:"token"`
			ClientCertificateData string `json:"clientCertificateData"`
			ClientKeyData         string `json:"clientKeyData"`
		} `json:"status"`
	}
	if err := json.Unmarshal(out, &cred); err != nil {
		return fmt.Errorf("context %q: credential plugin %s: %w", ep.Context, x.Command, err)
	}
	if cred.Status.Token != "" {
		ep.Token = cred.Status.Token
	}
	if cred.Status.ClientCertificateData != "" {
		ep.CertPEM, ep.KeyPEM = []byte(cred.Status.ClientCertificateData), []byte(cred.Status.ClientKeyData)
	}
	return nil
}

// statusError is an HTTP answer other than 200.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string { return e.msg }

func (c *client) get(ctx context.Context, path string, into any) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.ep.Server+path, nil)
	if err != nil {
		return fmt.Errorf("context %q: %w", c.ep.Context, err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("User-Agent", "evaluate (ome-policy)")
	switch {
	case c.ep.Token != "":
		req.Header.Set("Authorization", "Bearer "+c.ep.Token)
	case c.ep.Username != "":
		req.SetBasicAuth(c.ep.Username, c.ep.Password)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("cannot reach the cluster of context %q at %s: %v", c.ep.Context, c.ep.Server, rootCause(err))
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return fmt.Errorf("reading %s from the cluster of context %q: %w", path, c.ep.Context, err)
	}
	if resp.StatusCode != http.StatusOK {
		var st struct{ Message string }
		_ = json.Unmarshal(body, &st)
		msg := st.Message
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
		switch resp.StatusCode {
		case http.StatusUnauthorized:
			return &statusError{resp.StatusCode, fmt.Sprintf("the cluster of context %q refused the credentials (401 Unauthorized): %s", c.ep.Context, msg)}
		case http.StatusForbidden:
			return &statusError{resp.StatusCode, fmt.Sprintf("the cluster of context %q forbids reading %s (403 Forbidden): %s", c.ep.Context, path, msg)}
		}
		return &statusError{resp.StatusCode, fmt.Sprintf("GET %s from the cluster of context %q: %s: %s", path, c.ep.Context, resp.Status, msg)}
	}
	if err := json.Unmarshal(body, into); err != nil {
		return fmt.Errorf("GET %s from the cluster of context %q: %w", path, c.ep.Context, err)
	}
	return nil
}

// list reads every page of a list, and gives each item the apiVersion and
// kind that a list leaves out.
func (c *client) list(ctx context.Context, path, kind string) ([]any, error) {
	var items []any
	cont := ""
	for {
		q := url.Values{"limit": {"500"}}
		if cont != "" {
			q.Set("continue", cont)
		}
		var page struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
			Items []map[string]any `json:"items"`
		}
		if err := c.get(ctx, path+"?"+q.Encode(), &page); err != nil {
			return nil, err
		}
		for _, it := range page.Items {
			it["apiVersion"], it["kind"] = groupVersion, kind
			if meta, ok := it["metadata"].(map[string]any); ok {
				delete(meta, "managedFields")
			}
			items = append(items, it)
		}
		if page.Metadata.Continue == "" {
			return items, nil
		}
		cont = page.Metadata.Continue
	}
}

// rootCause is the innermost error of a failed request (such as
// "connection refused"), without the URL that the message already names.
func rootCause(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}
