package live

import (
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
