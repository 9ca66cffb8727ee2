package cluster

import (
	"fmt"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
)

// Kustomize renders the kustomization in dir as `kubectl apply -k dir` (or
// `kubectl kustomize dir`) does, with kustomize's own Go API, and returns
// its objects in the kustomization's order.
func Kustomize(dir string) ([]object, error) {
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	resources, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		return nil, fmt.Errorf("kustomize %s: %w", dir, err)
	}
	data, err := resources.AsYaml()
	if err != nil {
		return nil, fmt.Errorf("kustomize %s: %w", dir, err)
	}
	return decodeObjects(dir+"/kustomization.yaml", data)
}
