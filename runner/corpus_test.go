package runner

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"testing"

	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/open-policy-agent/opa/v1/storage/inmem"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/rules"
	"github.com/ome-policy/evaluator/rules/admit"
)

// The Rego rule forms of testdata/rules/corpus, each in its Gatekeeper
// template run as Gatekeeper's OPA runs it (no Go builtin, input the
// review, data.inventory the synced models and runtimes), with its deny
// constraint and its warn one: each object of the folder gets the messages
// that evaluate lint --rules gives it, of the constraint's severities; and
// each rule fires on some object and spares another, so that the agreement
// is not that of silence.
func TestCorpusRegoInGatekeeper(t *testing.T) {
	dirs, err := filepath.Glob("../testdata/rules/corpus/rego-*")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	all, err := policyset.Embedded()
	require.NoError(t, err)
	set, err := all.ForRelease(all.Newest())
	require.NoError(t, err)
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			compiled, err := BundleRules(set, []string{filepath.Join(dir, "rules")}, nil, []string{admit.TargetGatekeeper}, "evaluate gatekeeper", rules.Sandbox{})
			require.NoError(t, err)
			objs, err := input.Load([]string{filepath.Join(dir, "objects.yaml")}, input.LoadOptions{})
			require.NoError(t, err)
			require.NoError(t, compiled.Judge(objs, set.Release))
			lint := lintFindings(t, set, compiled.Set, objs)
			require.Len(t, compiled.Gatekeeper, len(compiled.Set.Rules), "a template per rule")
			for _, c := range compiled.Gatekeeper {
				fired, spared := 0, 0
				for _, tc := range compiled.CasesOf(c.Team.ID) {
					for _, warn := range []bool{false, true} {
						sev := []string{rules.Error}
						if warn {
							sev = []string{rules.Warning}
						}
						want := tc.Messages(c.Team.ID, sev)
						assert.ElementsMatch(t, lint[key(tc.Object)][c.Team.ID+"/"+sev[0]], want, "%s: the suite expects what lint gives", tc.Name)
						got := gatekeeperViolations(t, c, tc.Object, tc.Inventory, warn)
						sort.Strings(want)
						assert.Equal(t, want, got, "%s on %s (warn=%v)", c.Team.ID, tc.Name, warn)
						if len(got) > 0 {
							fired++
						}
					}
					if len(tc.Messages(c.Team.ID, []string{rules.Error, rules.Warning})) == 0 {
						spared++
					}
				}
				assert.Positive(t, fired, "%s fires on no object", c.Team.ID)
				assert.Positive(t, spared, "%s fires on every object", c.Team.ID)
			}
		})
	}
}

func key(o *objects.Object) string {
	return fmt.Sprint(objects.RefOf(o)) + "@" + objects.FileLine(o.File, o.Line)
}

// lintFindings are the messages of the team's rules that evaluate lint
// --rules gives each object, by object (key), then rule and severity.
func lintFindings(t *testing.T, set *policyset.Set, team *rules.Set, objs []*objects.Object) map[string]map[string][]string {
	ome, err := engine.LintRules(set)
	require.NoError(t, err)
	all := WithRules(ome, team)
	run, err := NewLint("cel", set, all, team, nil, nil, false)
	require.NoError(t, err)
	for _, o := range objs {
		run.Object(o)
	}
	require.NoError(t, run.Finish())
	require.Empty(t, run.Problems)
	out := map[string]map[string][]string{}
	// The findings an object's ignore annotation turns off for lint are
	// still admission's.
	for _, f := range append(run.Findings, run.Ignored...) {
		k := fmt.Sprint(f.Object) + "@" + objects.FileLine(f.File, f.ObjectLine)
		if out[k] == nil {
			out[k] = map[string][]string{}
		}
		out[k][f.Rule+"/"+f.Severity] = append(out[k][f.Rule+"/"+f.Severity], f.Message)
	}
	return out
}

// gatekeeperViolations are the messages of the violations of check c's
// Rego (its entry and libraries, with no Go builtin) on o, with inventory
// synced, with the parameter warn; sorted.
func gatekeeperViolations(t *testing.T, c *admission.Check, o *objects.Object, inventory []*objects.Object, warn bool) []string {
	store := map[string]any{}
	for _, x := range inventory {
		at := []string{"cluster"}
		if x.Namespace != "" {
			at = []string{"namespace", x.Namespace}
		}
		m := store
		for _, k := range append(at, x.APIVersion, x.Kind) {
			if m[k] == nil {
				m[k] = map[string]any{}
			}
			m = m[k].(map[string]any)
		}
		m[x.Name] = x.Value
	}
	opts := []func(*rego.Rego){rego.Module(c.Name+".rego", c.Rego), rego.Query("data." + c.Name + ".violation"),
		rego.Store(inmem.NewFromObject(map[string]any{"inventory": store}))}
	for _, l := range c.Libs {
		opts = append(opts, rego.Module(l.Path, l.Text))
	}
	input, err := ast.InterfaceToValue(map[string]any{"review": map[string]any{"object": o.Value}, "parameters": map[string]any{"warn": warn}})
	require.NoError(t, err)
	rs, err := rego.New(append(opts, rego.ParsedInput(input))...).Eval(context.Background())
	require.NoError(t, err)
	var out []string
	for _, v := range rs[0].Expressions[0].Value.([]any) {
		out = append(out, v.(map[string]any)["msg"].(string))
	}
	sort.Strings(out)
	return out
}
