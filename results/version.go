package results

// Version is what evaluate says of itself (`evaluate version`): its
// version and revision, and the versions it follows.
type Version struct {
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
