package admission

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"

	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/objects"
)

// The selection cases as admission reviews them: the InferenceService,
// the models and runtimes in the cluster, and the messages it must give.

// SuiteCase is one case of an admission test (a gator case): the object to review, the inventory, and
// the messages of the violations it must give (none when admitted).
type SuiteCase struct {
	Name      string
	Object    map[string]any
	Inventory []map[string]any
	Messages  []string
}

// SelectionCases turns selection cases into gator cases: the
// InferenceService is the object under review and the case's models and
// runtimes are the inventory (one per kind, namespace and name, the later
// one kept, as applying them would leave them; gator syncs an object that
// says a namespace under that namespace, even a cluster-scoped one, and
// the template looks for cluster-scoped objects there too). A case expects
// no violation when the case expects an admission, and exactly its message
// otherwise.
func SelectionCases(cases []cases.Case) ([]SuiteCase, error) {
	var out []SuiteCase
	for _, c := range cases {
		if c.InferenceService == nil {
			continue
		}
		sc := SuiteCase{Name: c.Name, Object: DeepCopy(c.InferenceService.Value)}
		kept, _ := objects.Deduplicate(c.Objects)
		for _, o := range kept {
			sc.Inventory = append(sc.Inventory, DeepCopy(o.Value))
		}
		if c.Expect.Admitted == nil {
			return nil, fmt.Errorf("%s: case %q expects no verdict", c.File, c.Name)
		}
		if !*c.Expect.Admitted {
			if c.Expect.Message == nil {
				return nil, fmt.Errorf("%s: case %q expects a rejection without a message", c.File, c.Name)
			}
			sc.Messages = []string{*c.Expect.Message}
		}
		out = append(out, sc)
	}
	return out, nil
}

// NamedRuntimeCaseFile reads the cases of the validate-named-runtime test
// (src/named-runtime-cases.yaml): their expect is the constraint's verdict
// with validateNamedRuntime: true, not the webhook's.
func NamedRuntimeCaseFile() ([]cases.Case, error) {
	data, err := fs.ReadFile(sources, "src/named-runtime-cases.yaml")
	if err != nil {
		return nil, err
	}
	// The list is called validateNamedRuntimeCases, so that `evaluate test`
	// does not run it as webhook cases; as cases, it reads like any other.
	data = bytes.Replace(data, []byte("\nvalidateNamedRuntimeCases:"), []byte("\ncases:"), 1)
	return cases.ParseCases("policies/gatekeeper/src/named-runtime-cases.yaml", data)
}

// DeepCopy copies a decoded object through JSON, which also turns every
// value into the types Gatekeeper's input holds.
func DeepCopy(v map[string]any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := json.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}
