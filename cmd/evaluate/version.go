package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/engine/policyset"
)

// Set with -ldflags "-X main.version=... -X main.revision=..." by `make
// build` and `make install`; empty otherwise, and then the module's build
// information says what it can.
var (
	version  string
	revision string
)

// What the rules follow and what the end-to-end suite runs. A test keeps
// them equal to the Makefile's pinned versions, to the CRDs and to
// docs/compatibility.md.
const (
	// omeCRDVersion is the API version of OME's objects the tool reads.
	omeCRDVersion = "ome.io/v1beta1"
	// gatekeeperVersion is the Gatekeeper (and gator) that `make e2e` and
	// `make gator-verify` run (the Makefile's GATOR_VERSION).
	gatekeeperVersion = "v3.23.1"
	// kubernetesVersion is the kube-apiserver that `make e2e` runs (the
	// Makefile's KUBE_VERSION).
	kubernetesVersion = "v1.35.4"
	// kyvernoVersion is the Kyverno whose CLI `make kyverno-verify` and
	// whose admission controller `make e2e` run (the Makefile's
	// KYVERNO_VERSION).
	kyvernoVersion = "v1.19.1"
)

// versionInfo is what `evaluate version` prints.
type versionInfo struct {
	Version  string `json:"version" yaml:"version"`
	Revision string `json:"revision" yaml:"revision"`
	Go       string `json:"go" yaml:"go"`
	CELGo    string `json:"celGo" yaml:"celGo"`
	OPA      string `json:"opa" yaml:"opa"`
	// OMEReleases are the OME releases the policies state, newest (the
	// default) first.
	OMEReleases []string `json:"omeReleases" yaml:"omeReleases"`
	OMECRDs     string   `json:"omeCRDs" yaml:"omeCRDs"`
	Gatekeeper  string   `json:"gatekeeper" yaml:"gatekeeper"`
	Kubernetes  string   `json:"kubernetes" yaml:"kubernetes"`
	Kyverno     string   `json:"kyverno" yaml:"kyverno"`
}

// buildVersion gathers the facts from the stamped variables and the
// binary's build information. A build without VCS information (such as
// GOFLAGS=-buildvcs=false, or a copy of the source without .git) has the
// revision "unknown"; a build inside the module has the version "devel".
func buildVersion() versionInfo {
	v := versionInfo{
		Version:     version,
		Revision:    revision,
		Go:          runtime.Version(),
		CELGo:       "unknown",
		OPA:         "unknown",
		OMEReleases: policyset.EmbeddedReleases(),
		OMECRDs:     omeCRDVersion,
		Gatekeeper:  gatekeeperVersion,
		Kubernetes:  kubernetesVersion,
		Kyverno:     kyvernoVersion,
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
			v.Revision = vcsRevision(bi.Settings)
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

// vcsRevision is the commit the go command stamped, with "-dirty" when the
// tree had changes; empty when it stamped none.
func vcsRevision(settings []debug.BuildSetting) string {
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

// firstLine is what --version prints, and the first line of `evaluate version`.
func (v versionInfo) firstLine() string {
	return fmt.Sprintf("evaluate %s (revision %s)", v.Version, v.Revision)
}

func newVersionCommand() *cobra.Command {
	var format string
	cmd := &cobra.Command{
		Use:     "version",
		Short:   "Print the version, and the OME, Gatekeeper, Kubernetes and Kyverno versions it follows",
		Long:    helpText("version"),
		Example: exampleText("version"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return writeVersion(cmd, buildVersion(), format)
		},
	}
	addFormatFlag(cmd, &format, []string{"text", "json", "yaml"})
	return cmd
}

func writeVersion(cmd *cobra.Command, v versionInfo, format string) error {
	out := cmd.OutOrStdout()
	switch format {
	case "json":
		data, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return err
		}
		_, err = fmt.Fprintf(out, "%s\n", data)
		return err
	case "yaml":
		data, err := yaml.Marshal(v)
		if err != nil {
			return err
		}
		_, err = out.Write(data)
		return err
	}
	fmt.Fprintln(out, v.firstLine())
	tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	for _, row := range versionRows(v) {
		fmt.Fprintf(tw, "  %s\t%s\n", row[0], row[1])
	}
	return tw.Flush()
}

// versionRows are the facts after the first line, as label and value; the
// rows from cel-go on are what docs/compatibility.md states.
func versionRows(v versionInfo) [][2]string {
	return [][2]string{
		{"go", v.Go},
		{"cel-go", v.CELGo},
		{"opa", v.OPA},
		{"ome releases", releasesText(v.OMEReleases)},
		{"ome crds", v.OMECRDs},
		{"gatekeeper (e2e)", v.Gatekeeper},
		{"kubernetes (e2e)", v.Kubernetes},
		{"kyverno (e2e)", v.Kyverno},
	}
}

// releasesText is "v1.2.2 (default), v0.1.5, v0.1.4".
func releasesText(releases []string) string {
	if len(releases) == 0 {
		return "none"
	}
	return strings.Join(append([]string{releases[0] + " (default)"}, releases[1:]...), ", ")
}
