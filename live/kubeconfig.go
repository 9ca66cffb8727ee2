// Package live reads OME's objects from a running cluster, as kubectl does:
// the kubeconfig files of --kubeconfig or $KUBECONFIG (default
// ~/.kube/config), --context, the context's namespace unless -n is given,
// and the API server's list of each resource. It owns the connection
// (TLS, client certificates, bearer tokens, exec credential plugins) and
// the HTTP requests; it knows nothing of OME's rules, and hands back the
// lists as JSON documents for the engine's loader.
//
// It uses the standard library only, so that a run that reads files does
// not pay for a Kubernetes client at start-up.
package live

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"gopkg.in/yaml.v3"
)

// kubeconfig is the part of a kubeconfig file this package reads.
type kubeconfig struct {
	CurrentContext string `yaml:"current-context"`
	Clusters       []struct {
		Name    string      `yaml:"name"`
		Cluster clusterInfo `yaml:"cluster"`
	} `yaml:"clusters"`
	Users []struct {
		Name string   `yaml:"name"`
		User authInfo `yaml:"user"`
	} `yaml:"users"`
	Contexts []struct {
		Name    string      `yaml:"name"`
		Context contextInfo `yaml:"context"`
	} `yaml:"contexts"`
}

type clusterInfo struct {
	Server                   string `yaml:"server"`
	CertificateAuthority     string `yaml:"certificate-authority"`
	CertificateAuthorityData string `yaml:"certificate-authority-data"`
	InsecureSkipTLSVerify    bool   `yaml:"insecure-skip-tls-verify"`
	TLSServerName            string `yaml:"tls-server-name"`
}

type contextInfo struct {
	Cluster   string `yaml:"cluster"`
	User      string `yaml:"user"`
	Namespace string `yaml:"namespace"`
}

type authInfo struct {
	ClientCertificate     string      `yaml:"client-certificate"`
	ClientCertificateData string      `yaml:"client-certificate-data"`
	ClientKey             string      `yaml:"client-key"`
	ClientKeyData         string      `yaml:"client-key-data"`
	Token                 string      `yaml:"token"`
	TokenFile             string      `yaml:"tokenFile"`
	Username              string      `yaml:"username"`
	Password              string      `yaml:"password"`
	Exec                  *execConfig `yaml:"exec"`
}

type execConfig struct {
	Command    string   `yaml:"command"`
	Args       []string `yaml:"args"`
	APIVersion string   `yaml:"apiVersion"`
	Env        []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
}

// endpoint is a resolved context: where the API server is and how to
// authenticate, with file paths made absolute against their kubeconfig.
type endpoint struct {
	Context   string
	Server    string
	Namespace string
	CA        []byte
	Insecure  bool
	TLSName   string
	CertPEM   []byte
	KeyPEM    []byte
	Token     string
	Username  string
	Password  string
	Exec      *execConfig
}

// kubeconfigPaths are the files to read: the flag, else $KUBECONFIG (a
// list), else ~/.kube/config.
func kubeconfigPaths(flag string) []string {
	if flag != "" {
		return []string{flag}
	}
	if env := os.Getenv("KUBECONFIG"); env != "" {
		var out []string
		for _, p := range filepath.SplitList(env) {
			if p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return nil
	}
	return []string{filepath.Join(home, ".kube", "config")}
}

// resolve reads the kubeconfig files and picks the context. As kubectl
// does, the first file that sets current-context wins, and the first
// definition of a cluster, user or context name wins.
func resolve(o Options) (*endpoint, error) {
	paths := kubeconfigPaths(o.Kubeconfig)
	if len(paths) == 0 {
		return nil, fmt.Errorf("no kubeconfig: give --kubeconfig or set KUBECONFIG")
	}
	// Each entry with the folder of its file, against which its relative
	// paths are read.
	type located[T any] struct {
		v   T
		dir string
	}
	clusters := map[string]located[clusterInfo]{}
	users := map[string]located[authInfo]{}
	contexts := map[string]located[contextInfo]{}
	current := ""
	read := 0
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			if os.IsNotExist(err) && o.Kubeconfig == "" {
				continue // a missing file of $KUBECONFIG is skipped, as kubectl does
			}
			return nil, fmt.Errorf("kubeconfig %s: %w", p, err)
		}
		var kc kubeconfig
		if err := yaml.Unmarshal(data, &kc); err != nil {
			return nil, fmt.Errorf("kubeconfig %s: %w", p, err)
		}
		read++
		dir := filepath.Dir(p)
		if current == "" {
			current = kc.CurrentContext
		}
		for _, c := range kc.Clusters {
			if _, ok := clusters[c.Name]; !ok {
				clusters[c.Name] = located[clusterInfo]{c.Cluster, dir}
			}
		}
		for _, u := range kc.Users {
			if _, ok := users[u.Name]; !ok {
				users[u.Name] = located[authInfo]{u.User, dir}
			}
		}
		for _, c := range kc.Contexts {
			if _, ok := contexts[c.Name]; !ok {
				contexts[c.Name] = located[contextInfo]{c.Context, dir}
			}
		}
	}
	if read == 0 {
		return nil, fmt.Errorf("no kubeconfig found (looked at %s)", strings.Join(paths, ", "))
	}
	name := o.Context
	if name == "" {
		name = current
	}
	if name == "" {
		return nil, fmt.Errorf("the kubeconfig sets no current-context: give --context")
	}
	cl, ok := contexts[name]
	if !ok {
		return nil, fmt.Errorf("context %q is not in the kubeconfig", name)
	}
	ctx := cl.v
	cc, ok := clusters[ctx.Cluster]
	if !ok {
		return nil, fmt.Errorf("context %q names cluster %q, which is not in the kubeconfig", name, ctx.Cluster)
	}
	c := cc.v
	if c.Server == "" {
		return nil, fmt.Errorf("cluster %q has no server", ctx.Cluster)
	}
	ep := &endpoint{Context: name, Server: strings.TrimRight(c.Server, "/"), Namespace: ctx.Namespace, Insecure: c.InsecureSkipTLSVerify, TLSName: c.TLSServerName}
	if ep.Namespace == "" {
		ep.Namespace = "default"
	}
	var err error
	if ep.CA, err = dataOrFile(c.CertificateAuthorityData, c.CertificateAuthority, cc.dir, "certificate-authority"); err != nil {
		return nil, err
	}
	if ctx.User != "" {
		u, ok := users[ctx.User]
		if !ok {
			return nil, fmt.Errorf("context %q names user %q, which is not in the kubeconfig", name, ctx.User)
		}
		a := u.v
		if ep.CertPEM, err = dataOrFile(a.ClientCertificateData, a.ClientCertificate, u.dir, "client-certificate"); err != nil {
			return nil, err
		}
		if ep.KeyPEM, err = dataOrFile(a.ClientKeyData, a.ClientKey, u.dir, "client-key"); err != nil {
			return nil, err
		}
		ep.Token, ep.Username, ep.Password, ep.Exec = a.Token, a.Username, a.Password, a.Exec
		if ep.Token == "" && a.TokenFile != "" {
			tok, err := os.ReadFile(absolute(a.TokenFile, u.dir))
			if err != nil {
				return nil, fmt.Errorf("user %q: tokenFile: %w", ctx.User, err)
			}
			ep.Token = strings.TrimSpace(string(tok))
		}
	}
	return ep, nil
}

// dataOrFile is a kubeconfig's inline base64 data, else the named file.
func dataOrFile(data, file, dir, field string) ([]byte, error) {
	if data != "" {
		b, err := base64.StdEncoding.DecodeString(data)
		if err != nil {
			return nil, fmt.Errorf("%s-data: %w", field, err)
		}
		return b, nil
	}
	if file == "" {
		return nil, nil
	}
	b, err := os.ReadFile(absolute(file, dir))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", field, err)
	}
	return b, nil
}

func absolute(path, dir string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(dir, path)
}
