package results

import (
	"fmt"
	"strings"
)

// Cluster is the cluster a result comes from: its name (the first context
// given that reaches it), every context given that reaches it, the API
// server, and the UID of its kube-system namespace (when it could be read).
type Cluster struct {
	Name     string   `json:"name" yaml:"name"`
	Contexts []string `json:"contexts" yaml:"contexts"`
	Server   string   `json:"server" yaml:"server"`
	UID      string   `json:"uid,omitempty" yaml:"uid,omitempty"`
}

// ClusterRead is a cluster of the fleet and, when it could not be read,
// why.
type ClusterRead struct {
	Cluster `yaml:",inline"`
	Error   string `json:"error,omitempty" yaml:"error,omitempty"`
}

// Header is the line that heads a cluster's results in the formats for
// people: "cluster prod (contexts prod, prod-admin; server https://...;
// kube-system UID ...)".
func (c Cluster) Header() string {
	word := "context"
	if len(c.Contexts) > 1 {
		word = "contexts"
	}
	s := fmt.Sprintf("cluster %s (%s %s; server %s", c.Name, word, strings.Join(c.Contexts, ", "), c.Server)
	if c.UID != "" {
		s += "; kube-system UID " + c.UID
	}
	return s + ")"
}
