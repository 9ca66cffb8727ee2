package runner

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/rules"
	"github.com/ome-policy/evaluator/rules/admit"
)

// A team's Gatekeeper template gives a rule OME's decisions as evaluate
// does: a rule that says the whole decision about each object, run as
// Gatekeeper's OPA runs its template (input the review, data.inventory
// the models and runtimes synced), says what Decider gives, on every
// release, for models, runtimes and InferenceServices of several
// namespaces and of the cluster.
func TestTemplateDecisionsAreEvaluates(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "show.rego"), []byte(`package team.show

deny contains json.marshal(data.evaluate.decision)
`), 0o644))
	objs, err := input.Load([]string{"../testdata/diff/before", "../testdata/rules/prod.yaml"}, input.LoadOptions{})
	require.NoError(t, err)
	inventory := map[string]any{}
	for _, o := range objs {
		if !o.IsModel() && !o.IsRuntime() {
			continue
		}
		at := []string{"cluster"}
		if o.Namespace != "" {
			at = []string{"namespace", o.Namespace}
		}
		m := inventory
		for _, k := range append(at, o.APIVersion, o.Kind) {
			if m[k] == nil {
				m[k] = map[string]any{}
			}
			m = m[k].(map[string]any)
		}
		m[o.Name] = o.Value
	}
	all, err := policyset.Embedded()
	require.NoError(t, err)
	seen := map[string]int{}
	for _, release := range all.Releases() {
		t.Run(release, func(t *testing.T) {
			set, err := all.ForRelease(release)
			require.NoError(t, err)
			compiled, err := BundleRules(set, []string{dir}, nil, []string{admit.TargetGatekeeper}, "evaluate gatekeeper", rules.Sandbox{})
			require.NoError(t, err)
			require.Len(t, compiled.Gatekeeper, 1)
			c := compiled.Gatekeeper[0]
			opts := []func(*rego.Rego){rego.Module(c.Name+".rego", c.Rego), rego.Query("data." + c.Name + ".violation"),
				rego.Store(inmem.NewFromObject(map[string]any{"inventory": inventory}))}
			for _, l := range c.Libs {
				opts = append(opts, rego.Module(l.Path, l.Text))
			}
			q, err := rego.New(opts...).PrepareForEval(context.Background())
			require.NoError(t, err)
			decisions, err := Decider("cel", set)(objs)
			require.NoError(t, err)
			for _, o := range objs {
				want, err := json.Marshal(decisions[o])
				require.NoError(t, err)
				input, err := ast.InterfaceToValue(map[string]any{"review": map[string]any{"object": o.Value}, "parameters": map[string]any{"warn": false}})
				require.NoError(t, err)
				rs, err := q.Eval(context.Background(), rego.EvalParsedInput(input))
				require.NoError(t, err)
				got := rs[0].Expressions[0].Value.([]any)
				require.Len(t, got, 1, "%s: one violation, the decision", o.Ref())
				require.JSONEq(t, string(want), got[0].(map[string]any)["msg"].(string), "%s on %s", o.Ref(), release)
				seen[o.Kind]++
			}
		})
	}
	for _, kind := range []string{"BaseModel", "ClusterBaseModel", "ServingRuntime", "ClusterServingRuntime", "InferenceService"} {
		require.Positive(t, seen[kind], "no %s judged", kind)
	}
}
