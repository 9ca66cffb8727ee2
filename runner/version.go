package runner

import (
	"runtime"
	"runtime/debug"

	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/results"
)

// What the rules follow and what the end-to-end suite runs. A test keeps
// them equal to the Makefile's pinned versions, to the CRDs and to
// docs/compatibility.md.
const (
	// OMECRDVersion is the API version of OME's objects the tool reads.
	OMECRDVersion = "ome.io/v1beta1"
	// GatekeeperVersion is the Gatekeeper (and gator) that `make e2e` and
	// `make gator-verify` run (the Makefile's GATOR_VERSION).
	GatekeeperVersion = "v3.23.1"
	// KubernetesVersion is the kube-apiserver that `make e2e` runs (the
	// Makefile's KUBE_VERSION).
	KubernetesVersion = "v1.35.4"
	// KyvernoVersion is the Kyverno whose CLI `make kyverno-verify` and
	// whose admission controller `make e2e` run (the Makefile's
	// KYVERNO_VERSION).
	KyvernoVersion = "v1.19.1"
)

// BuildVersion gathers the facts of version and revision, stamped into
// the binary when it was built ("" when not), and of the binary's build
// information. A build without VCS information (such as
// GOFLAGS=-buildvcs=false, or a copy of the source without .git) has the
// revision "unknown"; a build inside the module has the version "devel".
func BuildVersion(version, revision string) results.Version {
	v := results.Version{
		Version:     version,
		Revision:    revision,
		Go:          runtime.Version(),
		CELGo:       "unknown",
		OPA:         "unknown",
		OMEReleases: policyset.EmbeddedReleases(),
		OMECRDs:     OMECRDVersion,
		Gatekeeper:  GatekeeperVersion,
		Kubernetes:  KubernetesVersion,
		Kyverno:     KyvernoVersion,
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v.Version = bi.Main.Version
		}
		for _, d := range bi.Deps {
			if d.Replace != nil {
				d = d.Replace
			}
			switch d.Path {
			case "github.com/google/cel-go":
				v.CELGo = d.Version
			case "github.com/open-policy-agent/opa":
				v.OPA = d.Version
			}
		}
		if v.Revision == "" {
			v.Revision = VCSRevision(bi.Settings)
		}
	}
	if v.Version == "" {
		v.Version = "devel"
	}
	if v.Revision == "" {
		v.Revision = "unknown"
	}
	return v
}

// VCSRevision is the commit the go command stamped, with "-dirty" when the
// tree had changes; empty when it stamped none.
func VCSRevision(settings []debug.BuildSetting) string {
	var rev, modified string
	for _, s := range settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" && modified == "true" {
		rev += "-dirty"
	}
	return rev
}
