// Package live reads OME's objects from a running cluster, as kubectl
// does: client-go's clientcmd resolves kubectl's flags (Flags, in the form
// of its loading rules and overrides, which kubectl's own flag set wraps)
// and the kubeconfig (--kubeconfig, else $KUBECONFIG, else ~/.kube/config,
// else the pod's service account) into a connection, with every credential
// kubectl supports but the auth-providers that are not compiled in; the
// namespace is -n, else the context's. Each resource is listed 500 objects
// a page. The package knows nothing of OME's rules: it hands back the lists
// as JSON documents for the engine's loader, and turns client-go's failures
// into one line that names the cause and the fix. It links none of
// Kubernetes' built-in API types (k8s.io/api) nor client-go's registry of
// them: OME's objects are read as JSON.
//
// Nothing here runs before Connect: a command that reads only files never
// reads a kubeconfig nor builds a transport.
package live

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	// The one auth-provider kubectl still runs itself; the others
	// (gcp, azure) are exec plugins today, and are refused by name.
	_ "k8s.io/client-go/plugin/pkg/client/auth/oidc"
)

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

const (
	group        = "ome.io"
	version      = "v1beta1"
	groupVersion = group + "/" + version
)

// PageSize is how many objects one list request asks for (limit), the
// next page following with the server's continue token.
const PageSize = 500

// Options says how to read, beyond what the flags say of the connection.
type Options struct {
	AllNamespaces bool // -A: the namespaced resources of every namespace
	// Progress, when set, is told after each page how many objects the
	// read has brought so far, and whose page it was (the resource's
	// plural). It is called between pages only, never while an exec
	// plugin may be asking something on the terminal.
	Progress func(plural string, read int)
	Warnings io.Writer // the API server's warnings, "Warning: ..." (nil: dropped)
	PageSize int64     // default PageSize
}

// List is one resource's objects, each a JSON document of its own (line
// 2i+1 holds the i-th), so that the loader's limits per document apply to
// each object as they do in a file, whatever the size of the cluster; Name
// says where they come from ("cluster ome-local: basemodels in
// llama-demo"), for the loader's messages.
type List struct {
	Name string
	Data []byte
	N    int // how many objects
}

// Client is a connection to one cluster, resolved from kubectl's flags.
type Client struct {
	opts      Options
	rest      *rest.RESTClient
	server    string // the API server's URL
	context   string // the kubeconfig context, for messages ("" without one)
	user      string // the kubeconfig user, for messages
	as        string // --as (or the kubeconfig's as:)
	namespace string // -n, else the context's, else "default"

	redirected string // where the API server redirected to, not followed
}

// Connect reads the kubeconfig as kubectl does with the same flags, and
// makes the client. It sends no request: an exec credential plugin runs on
// the first one.
func Connect(flags Flags, o Options) (*Client, error) {
	loader := flags.loader()
	cfg, err := loader.ClientConfig()
	if err != nil {
		return nil, configError(err, flags)
	}
	c := &Client{opts: o, server: cfg.Host, as: cfg.Impersonate.UserName}
	if c.opts.PageSize <= 0 {
		c.opts.PageSize = PageSize
	}
	// The names for messages: the flags, else the kubeconfig (absent with
	// --server alone, or in a pod).
	if raw, err := loader.RawConfig(); err == nil {
		// No kubeconfig, no --server, not in a pod: client-go falls back
		// on http://localhost:8080 (as kubectl does), which is never meant.
		if len(raw.Clusters) == 0 && flags.Overrides.ClusterInfo.Server == "" && cfg.Host == clientcmd.ClusterDefaults.Server && os.Getenv("KUBERNETES_MASTER") == "" {
			return nil, errNoKubeconfig
		}
		c.context = raw.CurrentContext
		if flags.Overrides.CurrentContext != "" {
			c.context = flags.Overrides.CurrentContext
		}
		if kc, ok := raw.Contexts[c.context]; ok {
			c.user = kc.AuthInfo
		}
	}
	if flags.Overrides.Context.AuthInfo != "" {
		c.user = flags.Overrides.Context.AuthInfo
	}
	if c.namespace, _, err = loader.Namespace(); err != nil {
		return nil, configError(err, flags)
	}
	if c.namespace == "" {
		c.namespace = metav1.NamespaceDefault
	}
	if cfg.AuthProvider != nil && !compiledAuthProviders[cfg.AuthProvider.Name] {
		return nil, c.authProviderError(cfg.AuthProvider.Name)
	}
	// One request at a time, one page after the other: client-go's
	// default limit of 5 requests a second would only slow a large list.
	cfg.QPS = -1
	cfg.UserAgent = "evaluate (ome-policy) " + rest.DefaultKubernetesUserAgent()
	// The server's warnings (a deprecated version of OME's API) as kubectl
	// prints them, not as client-go's log lines.
	cfg.WarningHandler = rest.NoWarnings{}
	if o.Warnings != nil {
		cfg.WarningHandler = rest.NewWarningWriter(o.Warnings, rest.WarningWriterOptions{Deduplicate: true})
	}
	// A transport of its own: client-go keeps one transport for every
	// client of the same TLS settings, which two contexts of a fleet may
	// share; with a proxy function it keeps none (the function is the one
	// client-go would use).
	if cfg.Proxy == nil {
		cfg.Proxy = http.ProxyFromEnvironment
	}
	hc, err := rest.HTTPClientFor(cfg)
	if err != nil {
		msg := oneLine(err)
		if strings.Contains(msg, "with the insecure flag is not allowed") {
			msg += ": keep either the certificate authority or insecure-skip-tls-verify"
		}
		return nil, fmt.Errorf("%s: %s", c.cluster(), msg)
	}
	hc.CheckRedirect = c.sameOrigin
	// The REST client as the dynamic client makes it (JSON, the server's
	// errors as API status errors), without decoding the lists: each item
	// goes to the loader as the server sent it.
	rc := dynamic.ConfigFor(cfg)
	rc.GroupVersion, rc.APIPath = nil, "/apis"
	if c.rest, err = rest.UnversionedRESTClientForConfigAndClient(rc, hc); err != nil {
		return nil, fmt.Errorf("%s: %s", c.cluster(), oneLine(err))
	}
	return c, nil
}

// sameOrigin follows a redirect only to the same scheme, host and port:
// client-go's transport adds the credentials to every request, so a
// redirect elsewhere would hand them to another server. The redirect
// itself is then the answer, and listError says why.
func (c *Client) sameOrigin(req *http.Request, via []*http.Request) error {
	first := via[0].URL
	if req.URL.Scheme != first.Scheme || req.URL.Host != first.Host {
		c.redirected = req.URL.Scheme + "://" + req.URL.Host
		return http.ErrUseLastResponse
	}
	if len(via) >= 10 {
		return errors.New("stopped after 10 redirects")
	}
	return nil
}

// compiledAuthProviders are the kubeconfig auth-providers this binary runs.
var compiledAuthProviders = map[string]bool{"oidc": true}

// Namespace is the namespace the namespaced resources are read from (when
// not AllNamespaces): -n, else the context's, else "default".
func (c *Client) Namespace() string { return c.namespace }

// Fetch lists each resource, in the order given. Namespaced resources come
// from the namespace (all namespaces with AllNamespaces). Every failure is
// one line that names the cause: a cluster that cannot be reached,
// credentials it refuses, a user who may not list, OME not installed.
func (c *Client) Fetch(ctx context.Context, resources []Resource) ([]List, error) {
	p := progress{report: c.opts.Progress}
	var out []List
	for _, r := range resources {
		path := []string{"/apis", group, version, r.Plural}
		name := fmt.Sprintf("cluster %s: %s", c.name(), r.Plural)
		ns := ""
		if r.Namespaced && !c.opts.AllNamespaces {
			ns = c.namespace
			path = []string{"/apis", group, version, "namespaces", ns, r.Plural}
			name += " in " + ns
		}
		data, n, err := c.list(ctx, path, r, ns, &p)
		if err != nil {
			return nil, err
		}
		out = append(out, List{Name: name, Data: data, N: n})
	}
	return out, nil
}

// list reads every page of one resource and writes each item as a JSON
// document as soon as its page comes, so that only one page is held: each
// as the server sent it, but for the apiVersion and kind that a list may
// leave out, and without its managedFields. A continue token that expired
// (the list took longer than the server keeps it, 5 minutes by default)
// starts the list again, once.
func (c *Client) list(ctx context.Context, path []string, r Resource, ns string, p *progress) ([]byte, int, error) {
	var data bytes.Buffer
	n := 0
	cont := ""
	restarted := false
	apiVersion, kind := json.RawMessage(`"`+groupVersion+`"`), json.RawMessage(`"`+r.Kind+`"`)
	for {
		req := c.rest.Get().AbsPath(path...).Param("limit", strconv.FormatInt(c.opts.PageSize, 10))
		if cont != "" {
			req = req.Param("continue", cont)
		}
		res := req.Do(ctx)
		raw, err := res.Raw()
		if err != nil {
			err = res.Error() // with the server's Status
			if apierrors.IsResourceExpired(err) && cont != "" && !restarted {
				restarted = true
				p.read -= n
				data.Reset()
				n, cont = 0, ""
				continue
			}
			return nil, 0, c.listError(err, r, ns)
		}
		var page struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
			Items []map[string]json.RawMessage `json:"items"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, 0, fmt.Errorf("the list of %s from %s: %w", r.Plural, c.cluster(), err)
		}
		for _, it := range page.Items {
			it["apiVersion"], it["kind"] = apiVersion, kind
			if err := dropManagedFields(it); err != nil {
				return nil, 0, fmt.Errorf("the list of %s from %s: %w", r.Plural, c.cluster(), err)
			}
			b, err := json.Marshal(it)
			if err != nil {
				return nil, 0, fmt.Errorf("the list of %s from %s: %w", r.Plural, c.cluster(), err)
			}
			if n > 0 {
				data.WriteString("\n---\n")
			}
			data.Write(b)
			n++
		}
		p.page(r.Plural, len(page.Items))
		if cont = page.Metadata.Continue; cont == "" {
			return data.Bytes(), n, nil
		}
	}
}

// dropManagedFields removes metadata.managedFields, the server's record of
// who set which field, which no rule reads.
func dropManagedFields(item map[string]json.RawMessage) error {
	raw, ok := item["metadata"]
	if !ok || !bytes.Contains(raw, []byte(`"managedFields"`)) {
		return nil
	}
	var meta map[string]json.RawMessage
	if err := json.Unmarshal(raw, &meta); err != nil {
		return err
	}
	delete(meta, "managedFields")
	b, err := json.Marshal(meta)
	if err != nil {
		return err
	}
	item["metadata"] = b
	return nil
}

// name is the cluster's name in messages: the context, else the server.
func (c *Client) name() string {
	if c.context != "" {
		return c.context
	}
	return c.server
}

// progress counts the objects read, for Options.Progress.
type progress struct {
	report func(plural string, read int)
	read   int
}

func (p *progress) page(plural string, n int) {
	p.read += n
	if p.report != nil {
		p.report(plural, p.read)
	}
}
