package live

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"regexp"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/clientcmd"
)

// errNoKubeconfig is a run without kubeconfig, --server or a pod's
// service account, where kubectl would try http://localhost:8080.
var errNoKubeconfig = errors.New("no kubeconfig: none at $KUBECONFIG or ~/.kube/config, and not in a pod; give --kubeconfig, set KUBECONFIG, or give --server with credentials")

// configError says what is wrong with the kubeconfig or the flags.
func configError(err error, flags Flags) error {
	msg := err.Error()
	context, user, cluster := flags.Overrides.CurrentContext, flags.Overrides.Context.AuthInfo, flags.Overrides.Context.Cluster
	switch {
	case clientcmd.IsEmptyConfig(err):
		return errNoKubeconfig
	case context != "" && strings.Contains(msg, fmt.Sprintf("context %q does not exist", context)):
		return fmt.Errorf("the kubeconfig has no context %q (kubectl config get-contexts lists them)", context)
	case user != "" && strings.Contains(msg, fmt.Sprintf("auth info %q does not exist", user)):
		return fmt.Errorf("the kubeconfig has no user %q (--user; kubectl config get-users lists them)", user)
	case cluster != "" && strings.Contains(msg, fmt.Sprintf("cluster %q does not exist", cluster)):
		return fmt.Errorf("the kubeconfig has no cluster %q (--cluster=NAME; kubectl config get-clusters lists them)", cluster)
	}
	return fmt.Errorf("kubeconfig: %s", oneLine(err))
}

// cluster names the cluster in a message.
func (c *Client) cluster() string {
	if c.context != "" {
		return fmt.Sprintf("the cluster of context %q", c.context)
	}
	return "the cluster at " + c.server
}

// who is the kubeconfig's user, for a message: ` of user "admin"`.
func (c *Client) who() string {
	if c.user == "" {
		return ""
	}
	return fmt.Sprintf(" of user %q", c.user)
}

func (c *Client) authProviderError(name string) error {
	hint := "an exec credential plugin (users[].user.exec), as kubectl needs since 1.26"
	switch name {
	case "gcp":
		hint = "the exec plugin gke-gcloud-auth-plugin (gcloud components install gke-gcloud-auth-plugin, then gcloud container clusters get-credentials)"
	case "azure":
		hint = "the exec plugin kubelogin (kubelogin convert-kubeconfig)"
	}
	return fmt.Errorf("user %q of %s authenticates with the auth-provider %q, which is not compiled in (only oidc is): use %s", c.user, c.cluster(), name, hint)
}

// scope says where a request of verb on resource went ("in namespace
// "team-a"", "in every namespace", "(cluster-scoped)") and the kubectl
// command that checks the right to it (without --as).
func (c *Client) scope(verb, resource string, namespaced bool, ns string) (where, canI string) {
	where = "in every namespace"
	canI = "kubectl auth can-i " + verb + " " + resource
	switch {
	case !namespaced:
		where = "(cluster-scoped)"
	case ns != "":
		where = fmt.Sprintf("in namespace %q", ns)
		canI += " -n " + ns
	default:
		canI += " -A"
	}
	if c.context != "" {
		canI += " --context " + c.context
	}
	return where, canI
}

// forbiddenUser is who the API server says was refused.
var forbiddenUser = regexp.MustCompile(`User "([^"]*)"`)

// listError says why listing resource r (in namespace ns; "" for every
// namespace or a cluster-scoped resource) failed, and what to do.
func (c *Client) listError(err error, r Resource, ns string) error {
	resource := r.Plural + "." + group
	where, canI := c.scope("list", resource, r.Namespaced, ns)
	if c.as != "" {
		canI += " --as " + c.as
	}
	if c.redirected != "" {
		return fmt.Errorf("%s at %s redirected the list of %s to %s, which is not followed: the credentials are for %s only", c.cluster(), c.server, resource, c.redirected, c.server)
	}
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		st := se.Status()
		msg := oneLine(errors.New(st.Message))
		switch {
		case apierrors.IsUnauthorized(err):
			return fmt.Errorf("%s refused the credentials%s (401 Unauthorized) listing %s %s: they are wrong or expired; renew them, then check with: %s", c.cluster(), c.who(), resource, where, canI)
		case apierrors.IsForbidden(err):
			user := c.user
			if m := forbiddenUser.FindStringSubmatch(st.Message); m != nil {
				user = m[1]
			}
			if strings.Contains(st.Message, "cannot impersonate") {
				return fmt.Errorf("%s forbids user %q to impersonate %q (--as; 403 Forbidden): %s", c.cluster(), user, c.as, msg)
			}
			return fmt.Errorf("%s forbids user %q to list %s %s (403 Forbidden): ask for the right, and check it with: %s", c.cluster(), user, resource, where, canI)
		case apierrors.IsNotFound(err):
			return fmt.Errorf("%s has no OME CRDs (the server doesn't have a resource type %q in %s): OME is not installed in that cluster; install OME, or choose another cluster with --context", c.cluster(), r.Plural, groupVersion)
		}
		return fmt.Errorf("listing %s %s from %s: %s (%d %s)", resource, where, c.cluster(), msg, st.Code, st.Reason)
	}
	if ce := c.connError(err, "listing "+resource+" "+where); ce != nil {
		return ce
	}
	return fmt.Errorf("listing %s %s from %s: %s", resource, where, c.cluster(), oneLine(err))
}

// connError says why a request (doing: "listing basemodels.ome.io in
// every namespace") got no answer: a cluster that cannot be reached, that
// did not answer in time, or a credential plugin that failed; nil when
// err is none of those.
func (c *Client) connError(err error, doing string) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return nil
	}
	inner := ue.Err
	var ne net.Error
	var oe *net.OpError
	switch {
	case errors.As(inner, &ne) && ne.Timeout() || strings.Contains(inner.Error(), "Client.Timeout exceeded"):
		return fmt.Errorf("%s at %s did not answer in time (--request-timeout) %s: %s", c.cluster(), c.server, doing, oneLine(inner))
	case errors.As(inner, &oe):
		return fmt.Errorf("cannot reach %s at %s: %s", c.cluster(), c.server, oneLine(inner))
	case strings.HasPrefix(inner.Error(), "getting credentials"):
		return fmt.Errorf("the credential plugin%s of %s failed: %s", c.who(), c.cluster(), oneLine(inner))
	}
	return fmt.Errorf("cannot connect to %s at %s: %s", c.cluster(), c.server, oneLine(inner))
}

// oneLine is an error's message on one line: client-go's may hold several
// (an exec plugin's install hint, a list of configuration errors).
func oneLine(err error) string {
	var parts []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if l = strings.TrimSpace(l); l != "" {
			parts = append(parts, l)
		}
	}
	return strings.Join(parts, " ")
}
