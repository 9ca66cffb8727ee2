package admit

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/rules"
)

// celCode runs a policy's CEL code (matchConditions, variables,
// validations with their messages, failurePolicy) in a CEL environment as
// Kubernetes' validator runs it (k8s.io/apiserver's
// admission/plugin/policy/validating, which Gatekeeper's
// K8sNativeValidation runs too): a matchCondition that is false spares
// the object, one that fails (none being false) fails the review; a
// validation that fails is an error; one that is false is refused with
// its messageExpression's string (trimmed, when it is one line of at most
// 5 KiB, not empty), else its message (trimmed), else "failed expression:
// " and the expression (trimmed). Each expression runs under Kubernetes'
// per-call cost limit.
//
// With kyverno, it runs as Kyverno's engine runs a ValidatingPolicy
// (pkg/cel/policies/vpol/compiler): it stops at the first validation that
// fails or refuses, and gives a messageExpression's value as it is (its
// error, when it fails, and "CEL expression validation failed at index
// N" when it is empty).
type celCode struct {
	kyverno     bool
	block       *admission.CELBlock
	conds, vars []cel.Program
	vals, msgs  []cel.Program
}

// kubernetesPerCallLimit is Kubernetes' cost limit of one CEL expression
// (k8s.io/apiserver/pkg/apis/cel.PerCallLimit).
const kubernetesPerCallLimit = 1000000

func newCELCode(t *testing.T, env *cel.Env, block *admission.CELBlock) *celCode {
	t.Helper()
	prg := func(expr string) cel.Program {
		a, iss := env.Compile(expr)
		require.NoError(t, iss.Err(), "%.300s", expr)
		p, err := env.Program(a, cel.CostLimit(kubernetesPerCallLimit))
		require.NoError(t, err)
		return p
	}
	c := &celCode{block: block}
	for _, x := range block.MatchConditions {
		c.conds = append(c.conds, prg(x.Expression))
	}
	for _, x := range block.Variables {
		c.vars = append(c.vars, prg(x.Expression))
	}
	for _, v := range block.Validations {
		c.vals = append(c.vals, prg(v.Expression))
		var m cel.Program
		if v.MessageExpression != "" {
			m = prg(v.MessageExpression)
		}
		c.msgs = append(c.msgs, m)
	}
	return c
}

// review gives the messages of the refusals of o, and those of the
// errors (as "error: ..."), unless the failurePolicy ignores them.
func (c *celCode) review(o *objects.Object) []string {
	vars := map[string]any{}
	act := map[string]any{"object": o.Value, "oldObject": nil, "params": nil, "namespaceObject": nil, "variables": vars,
		"request": map[string]any{"operation": "CREATE", "name": o.Name, "namespace": o.Namespace}}
	var out []string
	fail := func(err error) {
		if c.block.FailurePolicy != "Ignore" {
			out = append(out, "error: "+err.Error())
		}
	}
	var condErr error
	for _, p := range c.conds {
		v, _, err := p.Eval(act)
		switch {
		case err != nil:
			condErr = err
		case v == types.False:
			return nil
		}
	}
	if condErr != nil {
		fail(condErr)
		return out
	}
	for i, p := range c.vars {
		if v, _, err := p.Eval(act); err == nil {
			vars[c.block.Variables[i].Name] = v
		}
	}
	for i, p := range c.vals {
		v, _, err := p.Eval(act)
		if err != nil {
			fail(err)
			if c.kyverno {
				return out
			}
			continue
		}
		if v == types.True {
			continue
		}
		val := c.block.Validations[i]
		if c.kyverno {
			msg := val.Message
			if c.msgs[i] != nil {
				m, _, err := c.msgs[i].Eval(act)
				if err != nil {
					msg = "failed to evaluate message expression: " + err.Error()
				} else if s, ok := m.Value().(string); ok {
					msg = s
				} else {
					msg = "failed to convert message expression to string"
				}
			}
			if msg == "" {
				msg = fmt.Sprintf("CEL expression validation failed at index %d", i)
			}
			return append(out, msg)
		}
		msg := ""
		if c.msgs[i] != nil {
			if m, _, err := c.msgs[i].Eval(act); err == nil {
				if s, ok := m.Value().(string); ok {
					if s = strings.TrimSpace(s); len(s) <= 5*1024 && !strings.Contains(s, "\n") {
						msg = s
					}
				}
			}
		}
		if msg == "" {
			msg = strings.TrimSpace(val.Message)
		}
		if msg == "" {
			msg = "failed expression: " + strings.TrimSpace(val.Expression)
		}
		out = append(out, msg)
	}
	return out
}

// celTargets are the CEL environments of the targets: Kubernetes' (the
// ValidatingAdmissionPolicies, Gatekeeper's K8sNativeValidation) and
// Kyverno's.
func celTargets(t *testing.T) (kubernetes, kyverno *cel.Env) {
	t.Helper()
	kubernetes, err := teamEnv(false)
	require.NoError(t, err)
	kyverno, err = teamEnv(true)
	require.NoError(t, err)
	return kubernetes, kyverno
}

// corpusCEL are the folders of the CEL rule forms of testdata/rules/corpus.
func corpusCEL(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob("../../testdata/rules/corpus/cel-*")
	require.NoError(t, err)
	require.NotEmpty(t, dirs)
	return dirs
}

// TestCorpusCELOnEveryTarget runs each CEL rule form of
// testdata/rules/corpus in each CEL target, in process: the
// ValidatingAdmissionPolicy (--native-out) and the Gatekeeper template's
// K8sNativeValidation code in Kubernetes' CEL (teamEnv, as rules reads a
// policy, without the ome library), the Kyverno ValidatingPolicy in
// Kyverno's, each as Kubernetes' validator decides (celCode). Every
// object of the folder gets the messages that evaluate lint --rules gives
// it, with the severity of the rule's binding; and each rule refuses some
// object and admits another, so that the agreement is not that of
// silence. (gator verify runs the Gatekeeper bundle of each folder in make
// gator-verify, kubectl-kyverno test the Kyverno one in make
// kyverno-verify.)
func TestCorpusCELOnEveryTarget(t *testing.T) {
	k8s, kyv := celTargets(t)
	for _, dir := range corpusCEL(t) {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			set, err := rules.Load([]string{filepath.Join(dir, "rules")}, nil)
			require.NoError(t, err)
			objs, err := input.Load([]string{filepath.Join(dir, "objects.yaml")}, input.LoadOptions{})
			require.NoError(t, err)
			compiled, err := Compile(set, []string{TargetGatekeeper, TargetNative, TargetKyverno}, nil, "v1.2.2", "evaluate gatekeeper", nil)
			require.NoError(t, err, "every CEL form of the corpus is enforced")
			for _, r := range set.Rules {
				require.Equal(t, rules.CEL, r.Language)
				// Each target's policies of the rule (Kyverno's, one a
				// validation).
				targets := map[string][]*celCode{}
				for _, d := range compiled.Native {
					if d.Rule.ID == r.ID {
						targets["native"] = append(targets["native"], newCELCode(t, k8s, PolicyCode(d.Policy)))
						assert.Equal(t, r.Bindings, d.Rule.Bindings, "the policy keeps its bindings, and their actions")
					}
				}
				for _, d := range compiled.Kyverno {
					if d.Rule.ID == r.ID {
						code := newCELCode(t, kyv, PolicyCode(d.Policy))
						code.kyverno = true
						targets["kyverno"] = append(targets["kyverno"], code)
					}
				}
				for _, c := range compiled.Gatekeeper {
					if c.Team.ID == r.ID {
						targets["gatekeeper"] = append(targets["gatekeeper"], newCELCode(t, k8s, c.CEL))
					}
				}
				require.Len(t, targets, 3, "%s goes to every CEL target", r.ID)
				assert.Len(t, targets["kyverno"], len(PolicyCode(r.Policy).Validations), "%s is a Kyverno policy a validation", r.ID)
				fired, spared := 0, 0
				for _, o := range objs {
					var want []string
					fs, probs := set.Check(o)
					require.Empty(t, probs)
					for _, f := range fs {
						if f.Rule == r.ID {
							want = append(want, f.Message)
							assert.Equal(t, r.Severities[0], f.Severity)
						}
					}
					if !slices.Contains(r.Kinds, o.Kind) {
						require.Empty(t, want, "%s judges no %s", r.ID, o.Kind)
						continue
					}
					sort.Strings(want)
					for name, codes := range targets {
						var got []string
						for _, code := range codes {
							got = append(got, code.review(o)...)
						}
						sort.Strings(got)
						assert.Equal(t, want, got, "%s on %s %s (%s)", r.ID, o.Kind, o.Name, name)
					}
					if len(want) > 0 {
						fired++
					} else {
						spared++
					}
				}
				assert.Positive(t, fired, "%s refuses no object of %s", r.ID, dir)
				assert.Positive(t, spared, "%s refuses every object of %s", r.ID, dir)
				t.Logf("%s: %d objects refused, %d admitted, alike on every target", r.ID, fired, spared)
			}
		})
	}
}

// The CEL targets' refusals of a corpus rule name it: a rule whose call
// has no stand-in is refused by every CEL target, naming the rule, the
// file and the call (the corpus itself holds none: every form there is
// enforced).
func TestCorpusCELRefusalsNameTheRule(t *testing.T) {
	dir := t.TempDir()
	src, err := filepath.Glob("../../testdata/rules/corpus/cel-compareto/rules/*.yaml")
	require.NoError(t, err)
	require.Len(t, src, 1)
	text := readFile(t, src[0])
	text = strings.Replace(text, `omeVersion(f.modelFramework.version).compareTo(omeVersion("4.40.1")) >= 0)`, `omeSizeCompare(f.modelFramework.version, "4.40.1") >= 0)`, 1)
	writeFile(t, filepath.Join(dir, "p.yaml"), text)
	set, err := rules.Load([]string{dir}, nil)
	require.NoError(t, err)
	_, err = Compile(set, []string{TargetGatekeeper, TargetNative, TargetKyverno}, nil, "v1.2.2", "", nil)
	var refusals Refusals
	require.ErrorAs(t, err, &refusals)
	require.Len(t, refusals, 3)
	for _, r := range refusals {
		assert.Contains(t, r.Error(), fmt.Sprintf("p.yaml:4: rule corpus-transformers-floor cannot go into %s: spec.validations[0].expression: calls omeSizeCompare, which has no stand-in there", r.Target))
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	return string(b)
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

// manyEntries is o with its supportedModelFormats repeated to n entries
// (itself when it has none).
func manyEntries(o *objects.Object, n int) *objects.Object {
	spec, _ := o.Value["spec"].(map[string]any)
	entries := objects.MapsAt(spec, "supportedModelFormats")
	if len(entries) == 0 {
		return o
	}
	var list []any
	for len(list) < n {
		for _, e := range entries {
			list = append(list, admission.DeepCopy(e))
		}
	}
	big := *o
	big.Value = admission.DeepCopy(o.Value)
	big.Value["spec"].(map[string]any)["supportedModelFormats"] = list[:n]
	return &big
}

// Each CEL rule form of the corpus, as each CEL target runs it, judges a
// runtime of 250 entries (each runtime of its folder, its entries
// repeated) within Kubernetes' cost limit of one expression, as CEL
// counts the cost: the stand-ins of the ome library keep a team's rule
// within it on runtimes larger than OME's catalog has.
func TestCorpusCELWithinKubernetesCostLimit(t *testing.T) {
	k8s, kyv := celTargets(t)
	for _, dir := range corpusCEL(t) {
		set, err := rules.Load([]string{filepath.Join(dir, "rules")}, nil)
		require.NoError(t, err)
		objs, err := input.Load([]string{filepath.Join(dir, "objects.yaml")}, input.LoadOptions{})
		require.NoError(t, err)
		compiled, err := Compile(set, []string{TargetNative, TargetKyverno}, nil, "v1.2.2", "", nil)
		require.NoError(t, err)
		var codes []*celCode
		for _, d := range compiled.Native {
			codes = append(codes, newCELCode(t, k8s, PolicyCode(d.Policy)))
		}
		for _, d := range compiled.Kyverno {
			codes = append(codes, newCELCode(t, kyv, PolicyCode(d.Policy)))
		}
		for _, o := range objs {
			if !o.IsRuntime() {
				continue
			}
			big := manyEntries(o, 250)
			for _, c := range codes {
				for _, m := range c.review(big) {
					assert.NotContains(t, m, "cost limit", "%s: %s", filepath.Base(dir), o.Name)
				}
			}
		}
	}
}
