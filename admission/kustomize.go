package admission

// The kustomizations that let `kubectl apply -k` install a bundle's folder.

// Kustomization is a Kustomization of the resources, with a comment
// that says how it is generated (generated) and what it installs.
func Kustomization(generated, comment string, resources []string) []byte {
	list := Strs(resources)
	list.Style = 0 // one resource a line
	doc := Mapping(
		"apiVersion", "kustomize.config.k8s.io/v1beta1",
		"kind", "Kustomization",
		"resources", list,
	)
	return Document(WithComment(doc, generated+"\n"+comment))
}
