package live

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/require"
)

// AddFlags binds kubectl's flags of a connection, each with kubectl's
// name, shorthand, kind and default, to what kubectl's flag sets.
func TestAddFlags(t *testing.T) {
	var bound Flags
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	bound.AddFlags(fs)
	var names []string
	fs.VisitAll(func(f *pflag.Flag) { names = append(names, f.Name) })
	require.Equal(t, []string{"as", "as-group", "as-uid", "as-user-extra", "certificate-authority", "client-certificate", "client-key", "context",
		"insecure-skip-tls-verify", "kubeconfig", "namespace", "request-timeout", "server", "tls-server-name", "token", "user"}, names)

	for _, c := range []struct {
		args        []string
		short, kind string
		def         string
		set         func(*Flags)
	}{
		{args: []string{"--kubeconfig", "k"}, kind: "string", set: func(f *Flags) { f.Kubeconfig = "k" }},
		{args: []string{"--context", "c"}, kind: "string", set: func(f *Flags) { f.Overrides.CurrentContext = "c"; f.Contexts = []string{"c"} }},
		{args: []string{"--context", "c,d", "--context", "e"}, kind: "string", set: func(f *Flags) { f.Overrides.CurrentContext = "c"; f.Contexts = []string{"c", "d", "e"} }},
		{args: []string{"--user", "u"}, kind: "string", set: func(f *Flags) { f.Overrides.Context.AuthInfo = "u" }},
		{args: []string{"--namespace", "ns/team-a"}, short: "n", kind: "string", set: func(f *Flags) { f.Overrides.Context.Namespace = "ns/team-a" }},
		{args: []string{"--server", "https://h:6443"}, short: "s", kind: "string", set: func(f *Flags) { f.Overrides.ClusterInfo.Server = "https://h:6443" }},
		{args: []string{"--token", "t"}, kind: "string", set: func(f *Flags) { f.Overrides.AuthInfo.Token = "t" }},
		{args: []string{"--as", "alice"}, kind: "string", set: func(f *Flags) { f.Overrides.AuthInfo.Impersonate = "alice" }},
		{args: []string{"--as-group", "a", "--as-group", "b"}, kind: "stringArray", def: "[]", set: func(f *Flags) { f.Overrides.AuthInfo.ImpersonateGroups = []string{"a", "b"} }},
		{args: []string{"--as-uid", "1"}, kind: "string", set: func(f *Flags) { f.Overrides.AuthInfo.ImpersonateUID = "1" }},
		{args: []string{"--as-user-extra", "k=v", "--as-user-extra", "k=w"}, kind: "stringArray", def: "[]", set: func(f *Flags) { f.UserExtra = []string{"k=v", "k=w"} }},
		{args: []string{"--certificate-authority", "ca.crt"}, kind: "string", set: func(f *Flags) { f.Overrides.ClusterInfo.CertificateAuthority = "ca.crt" }},
		{args: []string{"--client-certificate", "c.crt"}, kind: "string", set: func(f *Flags) { f.Overrides.AuthInfo.ClientCertificate = "c.crt" }},
		{args: []string{"--client-key", "c.key"}, kind: "string", set: func(f *Flags) { f.Overrides.AuthInfo.ClientKey = "c.key" }},
		{args: []string{"--insecure-skip-tls-verify"}, kind: "bool", def: "false", set: func(f *Flags) { f.Overrides.ClusterInfo.InsecureSkipTLSVerify = true }},
		{args: []string{"--tls-server-name", "api"}, kind: "string", set: func(f *Flags) { f.Overrides.ClusterInfo.TLSServerName = "api" }},
		{args: []string{"--request-timeout", "5s"}, kind: "string", def: "0", set: func(f *Flags) { f.Overrides.Timeout = "5s" }},
	} {
		t.Run(c.args[0], func(t *testing.T) {
			f := fs.Lookup(strings.TrimPrefix(c.args[0], "--"))
			require.NotNil(t, f)
			require.Equal(t, c.short, f.Shorthand)
			require.Equal(t, c.kind, f.Value.Type())
			require.Equal(t, c.def, f.DefValue)
			want := flags(t, "")
			c.set(&want)
			require.Equal(t, want, flags(t, "", c.args...))
		})
	}
}

// --as-user-extra's entries, grouped by key; one without "=" is ignored.
func TestUserExtra(t *testing.T) {
	for _, c := range []struct {
		in   []string
		want map[string][]string
	}{
		{in: nil, want: map[string][]string{}},
		{in: []string{"scopes=a", "scopes=b", "team=x=y"}, want: map[string][]string{"scopes": {"a", "b"}, "team": {"x=y"}}},
		{in: []string{"no-value", "k="}, want: map[string][]string{"k": {""}}},
	} {
		require.Equal(t, c.want, userExtra(c.in), "%q", c.in)
	}
}
