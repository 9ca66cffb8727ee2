package live

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// Writing reports into a cluster (evaluate audit): the server-side apply
// of an object of a custom resource under a field manager, the names of
// the objects of a label, and their deletion; a dry run on the server
// with DryRunAll. Each failure is one line that names the cluster, the
// user, the verb, the resource and the check, as a list's does.

// Kind is a custom resource an audit writes: its group, version, plural
// and kind, and whether it is namespaced.
type Kind struct {
	Group, Version, Plural, Kind string
	Namespaced                   bool
}

// resource is "plural.group".
func (k Kind) resource() string { return k.Plural + "." + k.Group }

func (k Kind) path(ns, name string) []string {
	p := []string{"/apis", k.Group, k.Version}
	if k.Namespaced && ns != "" {
		p = append(p, "namespaces", ns)
	}
	p = append(p, k.Plural)
	if name != "" {
		p = append(p, name)
	}
	return p
}

// Served says whether the API server serves the kinds' group and version
// (their CRDs are installed).
func (c *Client) Served(ctx context.Context, k Kind) (bool, error) {
	res := c.rest.Get().AbsPath("/apis", k.Group, k.Version).Do(ctx)
	if _, err := res.Raw(); err != nil {
		err = res.Error()
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return false, c.writeError(err, "get", k, "")
	}
	return true, nil
}

// Apply applies obj (JSON, with apiVersion, kind and metadata.name and
// namespace) server-side as manager, taking over the fields another
// manager set; dryRun asks the server to check it without storing it.
func (c *Client) Apply(ctx context.Context, k Kind, ns, name string, obj []byte, manager string, dryRun bool) error {
	req := c.rest.Patch(types.ApplyPatchType).AbsPath(k.path(ns, name)...).
		Param("fieldManager", manager).Param("force", "true").Body(obj)
	if dryRun {
		req = req.Param("dryRun", "All")
	}
	if err := req.Do(ctx).Error(); err != nil {
		return c.writeError(err, "patch", k, ns)
	}
	return nil
}

// Named is an object's namespace ("" for a cluster-scoped one) and name.
type Named struct{ Namespace, Name string }

// Names lists the objects of kind k that carry the label selector, in
// namespace ns ("" for every namespace, or a cluster-scoped kind).
func (c *Client) Names(ctx context.Context, k Kind, ns, selector string) ([]Named, error) {
	var out []Named
	cont := ""
	for {
		req := c.rest.Get().AbsPath(k.path(ns, "")...).Param("labelSelector", selector).Param("limit", "500")
		if cont != "" {
			req = req.Param("continue", cont)
		}
		res := req.Do(ctx)
		raw, err := res.Raw()
		if err != nil {
			return nil, c.writeError(res.Error(), "list", k, ns)
		}
		var page struct {
			Metadata struct {
				Continue string `json:"continue"`
			} `json:"metadata"`
			Items []struct {
				Metadata struct{ Namespace, Name string } `json:"metadata"`
			} `json:"items"`
		}
		if err := json.Unmarshal(raw, &page); err != nil {
			return nil, fmt.Errorf("the list of %s from %s: %w", k.resource(), c.cluster(), err)
		}
		for _, it := range page.Items {
			out = append(out, Named{Namespace: it.Metadata.Namespace, Name: it.Metadata.Name})
		}
		if cont = page.Metadata.Continue; cont == "" {
			return out, nil
		}
	}
}

// Delete deletes one object; one already gone is no error.
func (c *Client) Delete(ctx context.Context, k Kind, ns, name string, dryRun bool) error {
	req := c.rest.Delete().AbsPath(k.path(ns, name)...)
	if dryRun {
		req = req.Param("dryRun", "All")
	}
	if err := req.Do(ctx).Error(); err != nil && !apierrors.IsNotFound(err) {
		return c.writeError(err, "delete", k, ns)
	}
	return nil
}

// refusedVerb is the verb the API server says it refused: a server-side
// apply (patch) that creates the object needs create as well.
var refusedVerb = regexp.MustCompile(`cannot ([a-z]+) resource`)

// writeError says why a request of verb on kind k (in namespace ns) failed.
func (c *Client) writeError(err error, verb string, k Kind, ns string) error {
	var se apierrors.APIStatus
	if errors.As(err, &se) && apierrors.IsForbidden(err) {
		if m := refusedVerb.FindStringSubmatch(se.Status().Message); m != nil {
			verb = m[1]
		}
	}
	where, canI := c.scope(verb, k.resource(), k.Namespaced, ns)
	where = " " + where
	if errors.As(err, &se) {
		st := se.Status()
		switch {
		case apierrors.IsUnauthorized(err):
			return fmt.Errorf("%s refused the credentials%s (401 Unauthorized) to %s %s%s: they are wrong or expired", c.cluster(), c.who(), verb, k.resource(), where)
		case apierrors.IsForbidden(err):
			user := c.user
			if m := forbiddenUser.FindStringSubmatch(st.Message); m != nil {
				user = m[1]
			}
			return fmt.Errorf("%s forbids user %q to %s %s%s (403 Forbidden): ask for the right, and check it with: %s", c.cluster(), user, verb, k.resource(), where, canI)
		}
		return fmt.Errorf("%s %s%s in %s: %s (%d %s)", verb, k.resource(), where, c.cluster(), oneLine(errors.New(st.Message)), st.Code, st.Reason)
	}
	if ce := c.connError(err, verb+" "+k.resource()+where); ce != nil {
		return ce
	}
	return fmt.Errorf("%s %s%s in %s: %s", verb, k.resource(), where, strings.TrimSpace(c.cluster()), oneLine(err))
}
