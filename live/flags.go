package live

import (
	"slices"
	"strings"

	"github.com/spf13/pflag"
	"k8s.io/client-go/tools/clientcmd"
)

// Flags are what kubectl's flags say of the connection, in the form
// client-go's clientcmd takes them: the kubeconfig to load, and what the
// other flags override in it. The zero value is kubectl without flags.
type Flags struct {
	// Kubeconfig is --kubeconfig; "": $KUBECONFIG (a list of files,
	// merged), else ~/.kube/config, else a pod's service account.
	Kubeconfig string
	// Overrides are the other flags: --context, --user, -n, --server,
	// --token, --as, --as-group, --as-uid, the certificates,
	// --insecure-skip-tls-verify, --tls-server-name, --request-timeout;
	// and Context.Cluster, kubectl's --cluster NAME, which AddFlags does
	// not bind (the command has a --cluster of its own).
	Overrides clientcmd.ConfigOverrides
	// UserExtra is --as-user-extra, KEY=VALUE each (clientcmd has no flag
	// for it); an entry without "=" is ignored, as kubectl ignores it.
	UserExtra []string
	// Contexts are --context's values, repeated or comma-separated: a
	// run of several contexts reads each one's cluster (a fleet). The
	// first is also Overrides.CurrentContext, so that a run of one
	// context reads it as kubectl does.
	Contexts []string

	fleet bool // the command reads several contexts (ReadsFleet)
}

// ReadsFleet says that the command reads the cluster of each context
// given: --context's help then says it takes several.
func (f *Flags) ReadsFleet() { f.fleet = true }

// ForContext is f for the context name alone: a fleet's member reads its
// cluster with these flags, each with a client of its own.
func (f Flags) ForContext(name string) Flags {
	f.Contexts = []string{name}
	f.Overrides.CurrentContext = name
	return f
}

// contextsFlag is --context: kubectl's one name, here repeatable and
// comma-separated; the first is the current context.
type contextsFlag struct{ f *Flags }

func (c contextsFlag) Set(s string) error {
	for _, name := range strings.Split(s, ",") {
		if name = strings.TrimSpace(name); name != "" && !slices.Contains(c.f.Contexts, name) {
			c.f.Contexts = append(c.f.Contexts, name)
		}
	}
	if len(c.f.Contexts) > 0 {
		c.f.Overrides.CurrentContext = c.f.Contexts[0]
	}
	return nil
}

func (c contextsFlag) String() string { return strings.Join(c.f.Contexts, ",") }

func (c contextsFlag) Type() string {
	if c.f.fleet {
		return "strings"
	}
	return "string"
}

// AddFlags binds kubectl's flags of a connection to f, with the names,
// kinds and defaults kubectl gives them, through clientcmd's own override
// flags (the ones kubectl's flag set wraps). Not bound: kubectl's
// --cluster (see Overrides); --username, --password, --proxy-url and
// --disable-compression, which kubectl has not either (compression does
// not apply to a list). --server has kubectl's -s, which clientcmd leaves
// out; -n is a plain string, as kubectl's is (clientcmd's own would strip
// an "ns/" in front). The help lines are clientcmd's; a command puts its
// own.
func (f *Flags) AddFlags(fs *pflag.FlagSet) {
	names := clientcmd.RecommendedConfigOverrideFlags("")
	names.ClusterOverrideFlags.APIServer.ShortName = "s" // kubectl's -s
	namespace := names.ContextOverrideFlags.Namespace
	for _, info := range []*clientcmd.FlagInfo{
		&names.CurrentContext,
		&names.ContextOverrideFlags.ClusterName,
		&names.ContextOverrideFlags.Namespace,
		&names.AuthOverrideFlags.Username,
		&names.AuthOverrideFlags.Password,
		&names.ClusterOverrideFlags.ProxyURL,
		&names.ClusterOverrideFlags.DisableCompression,
	} {
		info.LongName = "" // an empty name binds no flag
	}
	fs.StringVar(&f.Kubeconfig, clientcmd.RecommendedConfigPathFlag, "", "Path to the kubeconfig file")
	clientcmd.BindOverrideFlags(&f.Overrides, fs, names)
	namespace.BindStringFlag(fs, &f.Overrides.Context.Namespace)
	fs.Var(contextsFlag{f}, clientcmd.FlagContext, "The names of the kubeconfig contexts to use (repeatable, comma-separated)")
	fs.StringArrayVar(&f.UserExtra, "as-user-extra", nil, "User extra to impersonate, KEY=VALUE (repeatable)")
}

// loader is the kubeconfig as kubectl reads it with these flags, not yet
// read: no file is opened before one of its methods is called.
func (f Flags) loader() clientcmd.ClientConfig {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = f.Kubeconfig
	rules.DefaultClientConfig = &clientcmd.DefaultClientConfig
	overrides := f.Overrides
	overrides.ClusterDefaults = clientcmd.ClusterDefaults
	if extra := userExtra(f.UserExtra); len(extra) > 0 {
		overrides.AuthInfo.ImpersonateUserExtra = extra
	}
	return clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &overrides)
}

// userExtra groups --as-user-extra's KEY=VALUE entries by key, in order.
func userExtra(entries []string) map[string][]string {
	out := map[string][]string{}
	for _, e := range entries {
		if k, v, ok := strings.Cut(e, "="); ok {
			out[k] = append(out[k], v)
		}
	}
	return out
}

// ImpliesCluster are kubectl's flags that say which cluster to read or how
// to log in to it: giving one reads the cluster, as --cluster does. -n, -A
// and --request-timeout do not.
var ImpliesCluster = []string{
	"kubeconfig", "context", "user", "server", "token", "as", "as-group", "as-uid", "as-user-extra",
	"certificate-authority", "client-certificate", "client-key", "insecure-skip-tls-verify", "tls-server-name",
}

// FlagUsage are the help lines of kubectl's flags, in this tool's words
// (AddFlags binds clientcmd's).
var FlagUsage = map[string]string{
	"kubeconfig":               "kubeconfig file of the cluster (default $KUBECONFIG, then ~/.kube/config)",
	"context":                  "kubeconfig context to use",
	"user":                     "kubeconfig user to log in as",
	"server":                   "address of the Kubernetes API server",
	"token":                    "bearer token to log in with",
	"as":                       "user to impersonate (RBAC must allow you to)",
	"as-group":                 "group to impersonate (repeatable)",
	"as-uid":                   "UID to impersonate",
	"as-user-extra":            "user extra to impersonate, KEY=VALUE (repeatable)",
	"certificate-authority":    "file of the certificate authority that signed the API server's certificate",
	"client-certificate":       "file of a client certificate to log in with",
	"client-key":               "file of the client certificate's key",
	"insecure-skip-tls-verify": "do not check the API server's certificate (insecure)",
	"tls-server-name":          "server name to check the API server's certificate against",
	"request-timeout":          "how long to wait for each request to the cluster, such as 30s (0: no limit)",
}

// ClusterFlagCurrent is what --cluster alone stands for. It is also what
// the help shows ("--cluster[=NAME]"), so a kubeconfig cluster named NAME
// is chosen with --context, not --cluster=NAME.
const ClusterFlagCurrent = "NAME"

// ClusterFlag is --cluster[=NAME]: kubectl's --cluster NAME (the kubeconfig
// cluster to use) and this tool's --cluster (read the cluster) in one flag.
// Its value must follow an = sign: `--cluster prod` reads the current
// context's cluster, prod being an argument.
type ClusterFlag struct {
	Given bool
	Name  string
}

func (f *ClusterFlag) Set(s string) error {
	f.Given = true
	if s != ClusterFlagCurrent {
		f.Name = s
	}
	return nil
}

func (f *ClusterFlag) String() string { return f.Name }

// Type is empty, so that the help shows --cluster[=NAME].
func (f *ClusterFlag) Type() string { return "" }
