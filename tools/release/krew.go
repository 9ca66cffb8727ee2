package main

import (
	"bytes"
	"text/template"
)

// krewManifestName is the krew plugin manifest's file: krew names a plugin
// after its manifest, and `kubectl evaluate` runs it.
const krewManifestName = "evaluate.yaml"

// krewPlatform is one platform's archive in the krew manifest.
type krewPlatform struct {
	OS, Arch, Archive, SHA256, Bin string
}

var krewTemplate = template.Must(template.New("krew").Parse(`apiVersion: krew.googlecontainertools.github.com/v1alpha2
kind: Plugin
metadata:
  name: evaluate
spec:
  version: {{.Version}}
  homepage: {{.Home}}
  shortDescription: Check OME's serving-runtime selection as policies
  description: |
    evaluate states OME's runtime selection (which ServingRuntime accepts
    which BaseModel, and what OME's admission webhook does with an
    InferenceService) as CEL and Rego policies, and gives OME's verdicts and
    messages: match, explain, select and lint on files or on the cluster of
    the current context (--cluster), and the same checks as Gatekeeper
    templates, ValidatingAdmissionPolicies and Kyverno policies.
  platforms:
{{- range .Platforms}}
  - selector:
      matchLabels:
        os: {{.OS}}
        arch: {{.Arch}}
    uri: {{$.Download}}/{{.Archive}}
    sha256: {{.SHA256}}
    files:
    - from: {{.Bin}}
      to: .
    - from: LICENSE
      to: .
    bin: {{.Bin}}
{{- end}}
`))

// krewManifest is the krew plugin manifest of the release's archives, as
// published among the release's assets.
func krewManifest(src source, platforms []krewPlatform) ([]byte, error) {
	var b bytes.Buffer
	err := krewTemplate.Execute(&b, map[string]any{
		"Version":   src.Version,
		"Home":      repoURL,
		"Download":  repoURL + "/releases/download/" + src.Version,
		"Platforms": platforms,
	})
	return b.Bytes(), err
}
