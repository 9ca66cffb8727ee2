package admit

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/open-policy-agent/opa/v1/ast"
	"github.com/open-policy-agent/opa/v1/rego"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/rules"
)

const teamExample = "../../examples/company-rules"

// teamObjects are the models and runtimes a team's rules are tried on:
// the examples, the lint fixtures (bad versions among them) and OME's
// catalog.
func teamObjects(t *testing.T) []*objects.Object {
	t.Helper()
	var out []*objects.Object
	for _, dir := range []string{"../../testdata/examples/runtimes", "../../testdata/examples/models", "../../testdata/lint/bad", "../../testdata/catalog/runtimes"} {
		objs, err := input.Load([]string{dir}, input.LoadOptions{Lenient: true})
		require.NoError(t, err)
		out = append(out, objs...)
	}
	require.Greater(t, len(out), 100)
	return out
}

// teamRule is the rule id of set.
func teamRule(t *testing.T, set *rules.Set, id string) rules.Rule {
	t.Helper()
	for _, r := range set.Rules {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no rule %s", id)
	return rules.Rule{}
}

// TestTeamChecksGiveTheRulesMessages runs each Rego rule's template as
// Gatekeeper's OPA runs it (no Go builtin; input Gatekeeper's review) on
// every object, and holds its violations to the rule's own findings: the
// deny constraint's to the errors, the warn constraint's to the warnings.
func TestTeamChecksGiveTheRulesMessages(t *testing.T) {
	set, err := rules.Load([]string{teamExample}, nil)
	require.NoError(t, err)
	objs := teamObjects(t)
	fired := 0
	for _, r := range set.Rules {
		if r.Language != rules.Rego || r.Decisions {
			continue
		}
		t.Run(r.ID, func(t *testing.T) {
			c, err := RegoCheck(r, set, "v1.2.2", "evaluate gatekeeper --rules", nil)
			require.NoError(t, err)
			require.NotContains(t, c.Rego, "ome.version.", "the builtins are called through the stand-in")
			mods := []func(*rego.Rego){rego.Module(c.Name+".rego", c.Rego)}
			for _, l := range c.Libs {
				mods = append(mods, rego.Module(l.Path, l.Text))
			}
			pkg := "data." + c.Name
			q, err := rego.New(append(mods, rego.Query(pkg+".violation"))...).PrepareForEval(context.Background())
			require.NoError(t, err)
			for _, o := range objs {
				want := map[bool][]string{}
				fs, probs := set.Check(o)
				require.Empty(t, probs)
				for _, f := range fs {
					if f.Rule == r.ID {
						want[f.Severity == rules.Warning] = append(want[f.Severity == rules.Warning], f.Message)
					}
				}
				for _, warn := range []bool{false, true} {
					input, err := ast.InterfaceToValue(map[string]any{"review": map[string]any{"object": o.Value}, "parameters": map[string]any{"warn": warn}})
					require.NoError(t, err)
					rs, err := q.Eval(context.Background(), rego.EvalParsedInput(input))
					require.NoError(t, err)
					var got []string
					for _, v := range rs[0].Expressions[0].Value.([]any) {
						got = append(got, v.(map[string]any)["msg"].(string))
					}
					sort.Strings(got)
					sort.Strings(want[warn])
					assert.Equal(t, want[warn], got, "%s, warn=%v", o.Ref(), warn)
					fired += len(got)
				}
			}
		})
	}
	assert.Greater(t, fired, 10, "the rules fire on some objects")
}

// TestTeamPoliciesGiveTheRulesMessages runs each ValidatingAdmissionPolicy
// rewritten for each CEL target, in that target's CEL, on every object,
// and holds its messages to the rule's own.
func TestTeamPoliciesGiveTheRulesMessages(t *testing.T) {
	example, err := rules.Load([]string{teamExample}, nil)
	require.NoError(t, err)
	// A rule that asks no isOmeVersion first: on a version that does not
	// parse, the library fails, and so must the stand-in.
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "p.yaml"), []byte(`apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingAdmissionPolicy
metadata: {name: no-suffix}
spec:
  matchConstraints:
    resourceRules:
    - {apiGroups: [ome.io], apiVersions: ['*'], operations: [CREATE], resources: ['*']}
  validations:
  - expression: >-
      !has(object.spec.supportedModelFormats) || object.spec.supportedModelFormats.all(f,
        !has(f.modelFramework) || !has(f.modelFramework.version) || !omeVersion(f.modelFramework.version).hasSuffix())
    message: a framework version has no suffix
    messageExpression: object.metadata.name + ' has a suffix'
`), 0o644))
	unguarded, err := rules.Load([]string{dir}, nil)
	require.NoError(t, err)
	objs := teamObjects(t)
	for _, tc := range []struct {
		set *rules.Set
		id  string
	}{{example, "company-autoselect-pins-framework"}, {unguarded, "no-suffix"}} {
		r := teamRule(t, tc.set, tc.id)
		for _, kyverno := range []bool{false, true} {
			p, err := Policy(r, TargetNative, kyverno)
			require.NoError(t, err)
			env, err := teamEnv(kyverno)
			require.NoError(t, err)
			val := p["spec"].(map[string]any)["validations"].([]any)[0].(map[string]any)
			prg := func(expr string) cel.Program {
				a, iss := env.Compile(expr)
				require.NoError(t, iss.Err())
				out, err := env.Program(a)
				require.NoError(t, err)
				return out
			}
			check, message := prg(val["expression"].(string)), prg(val["messageExpression"].(string))
			fired, failed := 0, 0
			for _, o := range objs {
				if !o.IsRuntime() {
					continue
				}
				var want []string
				fs, _ := tc.set.Check(o)
				for _, f := range fs {
					if f.Rule == tc.id {
						want = append(want, f.Message)
					}
				}
				vars := map[string]any{"object": o.Value, "variables": map[string]any{}}
				out, _, err := check.Eval(vars)
				if len(want) == 1 && strings.Contains(want[0], "resulted in error") {
					assert.Error(t, err, "%s %s (kyverno=%v): the rule fails, so must the stand-in", tc.id, o.Ref(), kyverno)
					failed++
					continue
				}
				require.NoError(t, err, "%s %s (kyverno=%v)", tc.id, o.Ref(), kyverno)
				var got []string
				if out == types.False {
					m, _, err := message.Eval(vars)
					require.NoError(t, err)
					got = []string{m.Value().(string)}
				}
				assert.Equal(t, want, got, "%s %s (kyverno=%v)", tc.id, o.Ref(), kyverno)
				fired += len(got)
			}
			assert.Greater(t, fired, 1, "%s kyverno=%v", tc.id, kyverno)
			if tc.id == "no-suffix" {
				assert.Greater(t, failed, 1, "versions that do not parse")
			}
		}
	}
}

// TestTeamRulesRefused: a rule that a target cannot hold is refused,
// naming the rule, the target and why (the builtin, where one is missing).
func TestTeamRulesRefused(t *testing.T) {
	policyWith := func(variables, expr string) string {
		return "apiVersion: admissionregistration.k8s.io/v1\nkind: ValidatingAdmissionPolicy\nmetadata: {name: p}\nspec:\n  matchConstraints:\n    resourceRules:\n    - {apiGroups: [ome.io], apiVersions: ['*'], operations: [CREATE], resources: ['*']}\n" +
			variables + "  validations:\n  - expression: '" + expr + "'\n"
	}
	policy := func(expr string) string { return policyWith("", expr) }
	for _, tc := range []struct {
		name, file, text, target string
		kyverno                  bool
		want                     string
	}{
		{"a size in plain CEL", "p.yaml", policy(`omeSize("1B") > 0.0`), TargetNative, false,
			"rule p cannot go into the ValidatingAdmissionPolicies (--native-out): spec.validations[0].expression: calls omeSize, which has no stand-in there: a size is read by Go's strconv.ParseFloat"},
		{"a size in Kyverno", "p.yaml", policy(`omeSizeCompare("1B", "2B") < 0`), TargetKyverno, true,
			"rule p cannot go into the Kyverno bundle: spec.validations[0].expression: calls omeSizeCompare, which has no stand-in there: a size is read by Go's strconv.ParseFloat"},
		{"a float in plain CEL", "p.yaml", policy(`omeIsFloat(object.metadata.name)`), TargetNative, false,
			"spec.validations[0].expression: calls omeIsFloat, which has no stand-in there: Go's strconv.ParseFloat refuses a number beyond float64's range"},
		{"a URL in Kyverno", "p.yaml", policy(`omeParseURL(object.metadata.name).error == ""`), TargetKyverno, true,
			"spec.validations[0].expression: calls omeParseURL, which has no stand-in there: Go's net/url.Parse"},
		{"a version in type()", "p.yaml", policy(`type(omeVersion("1.2")) != string`), TargetNative, false,
			`spec.validations[0].expression: it takes an omeVersion value in type(omeVersion("1.2")), where its stand-in (a map of the version's parts) would not answer as the library does`},
		{"a version in a list with in", "p.yaml", policy(`omeVersion("1.2") in [omeVersion("1.2.0")]`), TargetKyverno, true,
			"spec.validations[0].expression: it takes an omeVersion value in "},
		{"lists of versions compared", "p.yaml", policy(`[omeVersion("1.2")] == [omeVersion("1.2.0")]`), TargetNative, false,
			"spec.validations[0].expression: it takes an omeVersion value in "},
		{"a version compared with a string", "p.yaml", policy(`dyn(omeVersion("1.2")) != "1.2"`), TargetNative, false,
			"spec.validations[0].expression: it takes an omeVersion value in dyn("},
		{"a variable of versions", "p.yaml", policyWith("  variables:\n  - {name: vs, expression: '[omeVersion(\"1.2\")]'}\n", `variables.vs.all(v, v.hasV())`), TargetNative, false,
			"spec.validations[0].expression: it takes an omeVersion value in variables.vs.all(v, v.hasV())"},
		{"a variable read as another", "p.yaml", policyWith("  variables:\n  - {name: v, expression: 'omeVersion(\"1.2\")'}\n  - {name: w, expression: variables.v}\n", `variables.w.hasV()`), TargetNative, false,
			"spec.variables[1].expression: it takes an omeVersion value from another variable (variables.v) as a variable's value"},
		{"a validation without a message, whose expression is rewritten over several lines", "p.yaml", strings.Replace(policy("X"), "'X'", ">-\n      object.spec.supportedModelFormats.all(f,\n        omeVersion(f.modelFramework.version).hasV())", 1), TargetNative, false,
			"spec.validations[0]: it has no message, so a refusal that its messageExpression does not word says \"failed expression: \" and the expression, which is rewritten there, and a message has one line: give the validation a message"},
		{"a two-variable comprehension in Kyverno", "p.yaml", policy(`object.metadata.labels.all(k, v, v != "")`), TargetKyverno, true,
			"rule p cannot go into the Kyverno bundle: spec.validations[0].expression: without the ome library, it does not compile there:"},
		{"a Rego rule that reads a document no file holds", "a.rego", "package a\n\nimport data.c\n\ndeny contains \"x\" if c.y\n", TargetGatekeeper, false,
			"rule a cannot go into the Gatekeeper bundle: a.rego:3: data.c: no file of the rules holds it, and a template holds only the rule's packages and OME's decisions"},
		{"a Rego rule that reads Gatekeeper's inventory", "a.rego", "package a\n\ndeny contains \"x\" if {\n\tsome o in data.inventory.cluster\n\to.kind == \"X\"\n}\n", TargetGatekeeper, false,
			"rule a cannot go into the Gatekeeper bundle: a.rego:4: data.inventory.cluster: evaluate lint has no Gatekeeper inventory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, tc.file), []byte(tc.text), 0o644))
			if strings.HasSuffix(tc.file, ".rego") {
				require.NoError(t, os.WriteFile(filepath.Join(dir, "b.rego"), []byte("package b\n\ny := true\n"), 0o644))
			}
			set, err := rules.Load([]string{dir}, nil)
			require.NoError(t, err)
			r := set.Rules[0]
			if tc.target == TargetGatekeeper {
				_, err = RegoCheck(r, set, "v1.2.2", "", nil)
			} else {
				_, err = Policy(r, tc.target, tc.kyverno)
			}
			var refusal *Refusal
			require.ErrorAs(t, err, &refusal)
			assert.Contains(t, strings.ReplaceAll(err.Error(), dir+"/", ""), tc.want)
		})
	}
}

// Every rule goes into every target that can hold it: the five rules of
// the example, four in Rego and one in CEL, are five Gatekeeper templates,
// and the CEL one a policy for the API server and one for Kyverno.
func TestEveryRuleGetsATemplate(t *testing.T) {
	set, err := rules.Load([]string{teamExample}, nil)
	require.NoError(t, err)
	require.Len(t, set.Rules, 5)
	var rego []string
	for _, r := range set.Rules {
		if r.Language == rules.Rego {
			rego = append(rego, r.ID)
		}
	}
	out, err := Compile(set, []string{TargetGatekeeper, TargetNative, TargetKyverno}, rego, "v1.2.2", "evaluate gatekeeper --rules", selectionCheck(t))
	require.NoError(t, err)
	var ids []string
	for _, c := range out.Gatekeeper {
		ids = append(ids, c.Team.ID)
	}
	var all []string
	for _, r := range set.Rules {
		all = append(all, r.ID)
	}
	require.Equal(t, all, ids)
	require.Len(t, out.Native, 1)
	require.Len(t, out.Kyverno, 1)
	require.Len(t, out.Left, 8, "each Rego rule left out of the two CEL targets, said")
}

// selectionCheck is OMERuntimeSelection's check of the newest release.
func selectionCheck(t *testing.T) *admission.Check {
	t.Helper()
	all, err := policyset.Embedded()
	require.NoError(t, err)
	set, err := all.ForRelease(all.Newest())
	require.NoError(t, err)
	checks, err := admission.Checks(set)
	require.NoError(t, err)
	for _, c := range checks {
		if c.Kind == admission.SelectionKind {
			return c
		}
	}
	t.Fatal("no selection check")
	return nil
}
