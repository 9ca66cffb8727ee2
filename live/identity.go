package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// Identity is which cluster a client reaches: the kubeconfig context that
// named it, the API server, and the UID of its kube-system namespace,
// which no other cluster shares (empty when the user may not read it).
type Identity struct {
	Context string
	Server  string
	UID     string
}

// Key is what tells two clusters apart: the kube-system UID where it was
// read, else the API server's address (scheme, host and port, in lower
// case, without a trailing slash).
func (id Identity) Key() string {
	if id.UID != "" {
		return "uid:" + id.UID
	}
	s := strings.ToLower(strings.TrimRight(id.Server, "/"))
	if u, err := url.Parse(s); err == nil && u.Host != "" {
		host := u.Host
		if u.Port() == "" {
			switch u.Scheme {
			case "https":
				host += ":443"
			case "http":
				host += ":80"
			}
		}
		s = u.Scheme + "://" + host + u.Path
	}
	return "server:" + s
}

// Context is the kubeconfig context the client was made for ("" without
// one: --server alone, or in a pod).
func (c *Client) Context() string { return c.context }

// Server is the API server's address.
func (c *Client) Server() string { return c.server }

// Identity reads which cluster the client reaches (one GET of the
// kube-system namespace, read as JSON). The API server's refusal (401,
// 403, 404) leaves the UID empty and is no error: the reads that follow
// say what is wrong, if anything. A cluster that cannot be reached is an
// error that names it.
func (c *Client) Identity(ctx context.Context) (Identity, error) {
	id := Identity{Context: c.context, Server: c.server}
	res := c.rest.Get().AbsPath("/api", "v1", "namespaces", "kube-system").Do(ctx)
	raw, err := res.Raw()
	if err != nil {
		err = res.Error()
		var se apierrors.APIStatus
		if errors.As(err, &se) {
			return id, nil
		}
		if c.redirected != "" {
			return id, fmt.Errorf("%s at %s redirected to %s, which is not followed: the credentials are for %s only", c.cluster(), c.server, c.redirected, c.server)
		}
		if ce := c.connError(err, "reading the kube-system namespace"); ce != nil {
			return id, ce
		}
		return id, fmt.Errorf("reading the kube-system namespace of %s: %s", c.cluster(), oneLine(err))
	}
	var ns struct {
		Metadata struct {
			UID string `json:"uid"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(raw, &ns); err == nil {
		id.UID = ns.Metadata.UID
	}
	return id, nil
}

// Contexts are the kubeconfig's contexts, sorted by name (--all-contexts).
func Contexts(flags Flags) ([]string, error) {
	raw, err := flags.loader().RawConfig()
	if err != nil {
		return nil, configError(err, flags)
	}
	names := make([]string, 0, len(raw.Contexts))
	for name := range raw.Contexts {
		names = append(names, name)
	}
	if len(names) == 0 {
		return nil, errors.New("--all-contexts: the kubeconfig has no context (kubectl config get-contexts lists them)")
	}
	sort.Strings(names)
	return names, nil
}

// Describe names the cluster in a message: `the cluster of context "prod"`.
func (c *Client) Describe() string { return c.cluster() }
