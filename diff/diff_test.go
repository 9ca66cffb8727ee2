package diff

import (
	"fmt"
	"math/rand"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// engines are the matcher and selector of each engine.
func engines(t testing.TB) map[string]struct {
	m engine.Matcher
	s engine.Selector
} {
	t.Helper()
	set, err := policyset.Embedded()
	require.NoError(t, err)
	out := map[string]struct {
		m engine.Matcher
		s engine.Selector
	}{}
	for _, name := range []string{engine.CEL, engine.Rego} {
		m, err := engine.New(name, set)
		require.NoError(t, err)
		s, err := engine.NewSelector(name, set)
		require.NoError(t, err)
		out[name] = struct {
			m engine.Matcher
			s engine.Selector
		}{m, s}
	}
	return out
}

// fullReport evaluates every pair and every InferenceService on both sides
// and derives the report from that: what Compute must equal.
func fullReport(t *testing.T, m engine.Matcher, s engine.Selector, old, new []*objects.Object) *Report {
	t.Helper()
	var om, or, oi, nm, nr, ni []*objects.Object
	for _, side := range []struct {
		objs       []*objects.Object
		ms, rs, is *[]*objects.Object
	}{{old, &om, &or, &oi}, {new, &nm, &nr, &ni}} {
		for _, o := range side.objs {
			switch {
			case o.IsModel():
				*side.ms = append(*side.ms, o)
			case o.IsRuntime():
				*side.rs = append(*side.rs, o)
			default:
				*side.is = append(*side.is, o)
			}
		}
	}
	models, runtimes, services := pairUp(om, nm), pairUp(or, nr), pairUp(oi, ni)
	verdict := func(mo, ro *objects.Object) (engine.Verdict, bool) {
		if mo == nil || ro == nil || !objects.InScope(mo, ro) {
			return engine.Verdict{}, false
		}
		v, err := m.Match(mo.Spec(), ro.Spec())
		require.NoError(t, err)
		return v, true
	}
	r := &Report{Models: []ModelChange{}, InferenceServices: []ServiceChange{}, Unmoved: []ObjectChange{}}
	for _, mi := range models.items {
		if mi.new == nil {
			continue
		}
		mc := ModelChange{Model: mi.ref, Position: mi.position(), Gained: []RuntimeChange{}, Lost: []RuntimeChange{}, Reworded: []RuntimeChange{}}
		if mi.specChange {
			mc.Change = mi.change
		}
		servedBefore, servedNow := false, false
		for _, ri := range runtimes.items {
			was, inOld := verdict(mi.old, ri.old)
			now, inNew := verdict(mi.new, ri.new)
			servedBefore = servedBefore || inOld && was.Compatible
			servedNow = servedNow || inNew && now.Compatible
			rc := runtimeChange(ri, now.Reason)
			rc.ReasonBefore = was.Reason
			switch {
			case inNew && now.Compatible && !(inOld && was.Compatible):
				mc.Gained = append(mc.Gained, rc)
			case inOld && was.Compatible && !(inNew && now.Compatible):
				mc.Lost = append(mc.Lost, rc)
			case inOld && inNew && !now.Compatible && was.Reason != now.Reason:
				mc.Reworded = append(mc.Reworded, rc)
			}
		}
		mc.NoRuntime = !servedNow
		mc.Regression = !servedNow && (servedBefore || mi.old == nil)
		if len(mc.Gained)+len(mc.Lost)+len(mc.Reworded) > 0 || mi.old == nil {
			r.Models = append(r.Models, mc)
		}
	}
	sort.SliceStable(r.Models, func(i, j int) bool { return r.Models[i].Regression && !r.Models[j].Regression })
	oldCluster := append(append([]*objects.Object{}, om...), or...)
	newCluster := append(append([]*objects.Object{}, nm...), nr...)
	for _, si := range services.items {
		if si.new == nil {
			continue
		}
		d, err := s.Select(si.new, newCluster)
		require.NoError(t, err)
		after := SelectionOf(d, runtimes.position)
		sc := ServiceChange{InferenceService: si.ref, Position: si.position(), After: after}
		if si.old == nil {
			sc.Change, sc.Regression = ServiceAdded, !after.Admitted
		} else {
			d, err := s.Select(si.old, oldCluster)
			require.NoError(t, err)
			before := SelectionOf(d, runtimes.position)
			sc.Before = before
			if sc.Change, sc.Regression = compare(before, after); sc.Change == "" {
				continue
			}
		}
		r.InferenceServices = append(r.InferenceServices, sc)
	}
	sort.SliceStable(r.InferenceServices, func(i, j int) bool {
		return r.InferenceServices[i].Regression && !r.InferenceServices[j].Regression
	})
	c := &computation{models: models, runtimes: runtimes, services: services, report: r}
	c.unmoved()
	return r
}

// cluster makes random objects from small pools, so that changes often
// move decisions: two namespaces, ClusterBaseModels and BaseModels,
// ClusterServingRuntimes and ServingRuntimes, InferenceServices (some
// naming a model that is not there, a runtime, an accelerator class).
type cluster struct {
	r *rand.Rand
	n int // objects made, for unique names
}

func (c *cluster) pick(xs ...string) string { return xs[c.r.Intn(len(xs))] }
func (c *cluster) maybe(p float64) bool     { return c.r.Float64() < p }

var (
	archs      = []string{"LlamaForCausalLM", "MistralForCausalLM", "Qwen2ForCausalLM"}
	frameworks = []string{"4.42.0", "4.45.0", "4.46.0"}
	sizes      = []string{"3B", "8B", "70B"}
	namespaces = []string{"team-a", "team-b"}
)

func (c *cluster) model() map[string]any {
	c.n++
	kind, meta := "ClusterBaseModel", map[string]any{"name": fmt.Sprintf("model-%d", c.n%9)}
	if c.maybe(0.3) {
		kind, meta["namespace"] = "BaseModel", c.pick(namespaces...)
	}
	spec := map[string]any{
		"modelArchitecture":  c.pick(archs...),
		"modelFormat":        map[string]any{"name": "safetensors", "version": "1.0.0"},
		"modelFramework":     map[string]any{"name": "transformers", "version": c.pick(frameworks...)},
		"modelParameterSize": c.pick(sizes...),
	}
	if c.maybe(0.1) {
		spec["disabled"] = true
	}
	return map[string]any{"apiVersion": objects.APIVersion, "kind": kind, "metadata": meta, "spec": spec}
}

func (c *cluster) entry() map[string]any {
	e := map[string]any{
		"modelArchitecture": c.pick(archs...),
		"modelFormat":       map[string]any{"name": "safetensors", "version": "1.0.0"},
		"modelFramework":    map[string]any{"name": "transformers", "version": c.pick(frameworks...)},
		"autoSelect":        c.maybe(0.8),
		"priority":          int64(1 + c.r.Intn(3)),
	}
	if c.maybe(0.3) {
		e["modelFramework"].(map[string]any)["operator"] = "GreaterThanOrEqual"
	}
	return e
}

func (c *cluster) runtime() map[string]any {
	c.n++
	kind, meta := "ClusterServingRuntime", map[string]any{"name": fmt.Sprintf("runtime-%d", c.n%13)}
	if c.maybe(0.3) {
		kind, meta["namespace"] = "ServingRuntime", c.pick(namespaces...)
	}
	if c.maybe(0.3) {
		meta["creationTimestamp"] = fmt.Sprintf("2025-0%d-01T00:00:00Z", 1+c.r.Intn(9))
	}
	entries := []any{c.entry()}
	if c.maybe(0.3) {
		entries = append(entries, c.entry())
	}
	spec := map[string]any{"supportedModelFormats": entries}
	if c.maybe(0.6) {
		spec["modelSizeRange"] = map[string]any{"min": c.pick("1B", "5B"), "max": c.pick("10B", "100B")}
	}
	if c.maybe(0.1) {
		spec["disabled"] = true
	}
	if c.maybe(0.2) {
		spec["acceleratorRequirements"] = map[string]any{"acceleratorClasses": []any{"nvidia-h100"}}
	}
	return map[string]any{"apiVersion": objects.APIVersion, "kind": kind, "metadata": meta, "spec": spec}
}

func (c *cluster) service() map[string]any {
	c.n++
	meta := map[string]any{"name": fmt.Sprintf("isvc-%d", c.n%7), "namespace": c.pick(namespaces...)}
	spec := map[string]any{"model": map[string]any{"name": fmt.Sprintf("model-%d", c.r.Intn(10))}, "engine": map[string]any{}}
	if c.maybe(0.15) {
		meta["annotations"] = map[string]any{"ome.io/accelerator-class": "nvidia-h100"}
	}
	if c.maybe(0.1) {
		spec["runtime"] = map[string]any{"name": fmt.Sprintf("runtime-%d", c.r.Intn(13))}
	}
	return map[string]any{"apiVersion": objects.APIVersion, "kind": "InferenceService", "metadata": meta, "spec": spec}
}

// mutate changes one object of values in a way that may move a decision.
func (c *cluster) mutate(values []map[string]any) []map[string]any {
	i := c.r.Intn(len(values) + 1)
	if i == len(values) || c.maybe(0.1) {
		switch c.r.Intn(3) {
		case 0:
			return append(values, c.model())
		case 1:
			return append(values, c.runtime())
		}
		return append(values, c.service())
	}
	if c.maybe(0.15) {
		return append(values[:i:i], values[i+1:]...)
	}
	v := copyValue(values[i])
	spec := v["spec"].(map[string]any)
	meta := v["metadata"].(map[string]any)
	switch v["kind"] {
	case "ClusterBaseModel", "BaseModel":
		switch c.r.Intn(4) {
		case 0:
			spec["modelFramework"].(map[string]any)["version"] = c.pick(frameworks...)
		case 1:
			spec["modelParameterSize"] = c.pick(sizes...)
		case 2:
			spec["disabled"] = c.maybe(0.5)
		default:
			meta["labels"] = map[string]any{"team": c.pick(namespaces...)}
		}
	case "ClusterServingRuntime", "ServingRuntime":
		entry := spec["supportedModelFormats"].([]any)[0].(map[string]any)
		switch c.r.Intn(7) {
		case 0:
			entry["modelFramework"].(map[string]any)["version"] = c.pick(frameworks...)
		case 1:
			spec["modelSizeRange"] = map[string]any{"min": c.pick("1B", "5B", "9B"), "max": c.pick("8B", "10B", "50B")}
		case 2:
			spec["disabled"] = c.maybe(0.5)
		case 3:
			entry["priority"] = int64(1 + c.r.Intn(4))
		case 4:
			entry["autoSelect"] = c.maybe(0.5)
		case 5:
			meta["creationTimestamp"] = fmt.Sprintf("2025-1%d-01T00:00:00Z", c.r.Intn(3))
		default:
			spec["image"] = fmt.Sprintf("vllm:%d", c.r.Intn(100))
		}
	default:
		switch c.r.Intn(2) {
		case 0:
			spec["model"] = map[string]any{"name": fmt.Sprintf("model-%d", c.r.Intn(10))}
		default:
			meta["annotations"] = map[string]any{"ome.io/accelerator-class": c.pick("nvidia-h100", "nvidia-a10")}
		}
	}
	out := append([]map[string]any{}, values...)
	out[i] = v
	return out
}

// copyValue is a deep copy of an object's value, through YAML.
func copyValue(v map[string]any) map[string]any {
	b, err := yaml.Marshal(v)
	if err != nil {
		panic(err)
	}
	var out map[string]any
	if err := yaml.Unmarshal(b, &out); err != nil {
		panic(err)
	}
	return out
}

// read turns values into objects as the commands read files: through
// YAML, with positions, the later of two objects of one name kept.
func read(t *testing.T, file string, values []map[string]any) []*objects.Object {
	t.Helper()
	var docs []string
	for _, v := range values {
		b, err := yaml.Marshal(v)
		require.NoError(t, err)
		docs = append(docs, string(b))
	}
	in := &input.Result{}
	in.ReadData(file, []byte(strings.Join(docs, "---\n")), input.ReadOptions{Namespace: "default"})
	require.Empty(t, in.Problems)
	kept, _ := objects.Deduplicate(in.Objects)
	return kept
}

// TestComputeEqualsFullEvaluation holds Compute, which evaluates only what
// a change touches, to an evaluation of every pair and InferenceService on
// both sides, on random clusters and random changes, on each engine.
func TestComputeEqualsFullEvaluation(t *testing.T) {
	trials := 60
	if testing.Short() {
		trials = 15
	}
	for name, e := range engines(t) {
		t.Run(name, func(t *testing.T) {
			c := &cluster{r: rand.New(rand.NewSource(43))}
			moved, partial := 0, 0
			for trial := range trials {
				var values []map[string]any
				for range 8 {
					values = append(values, c.model())
				}
				for range 12 {
					values = append(values, c.runtime())
				}
				for range 6 {
					values = append(values, c.service())
				}
				changed := values
				for range 1 + c.r.Intn(4) {
					changed = c.mutate(changed)
				}
				old, new := read(t, "old.yaml", values), read(t, "new.yaml", changed)
				// Compute lets go of the positions that fullReport reads.
				want := fullReport(t, e.m, e.s, old, new)
				got, err := Compute(e.m, e.s, read(t, "old.yaml", values), read(t, "new.yaml", changed))
				require.NoError(t, err)
				work := got.Work
				got.Work = Work{}
				if !reflect.DeepEqual(want, got) {
					require.Equal(t, want, got, "trial %d", trial)
				}
				if got.Changes() > 0 {
					moved++
				}
				if work.Pairs < work.AllPairs {
					partial++
				}
			}
			// The trials must exercise the report and the reuse of verdicts.
			require.Greater(t, moved, trials/3, "trials whose change moved a decision")
			require.Greater(t, partial, trials/3, "trials that evaluated fewer pairs than a full evaluation")
		})
	}
}

// TestComputeReusesUnchangedPairs: a change to one runtime evaluates that
// runtime's pairs on each side, and a model that lost it is held against
// the unchanged runtimes until one is compatible.
func TestComputeReusesUnchangedPairs(t *testing.T) {
	e := engines(t)[engine.CEL]
	c := &cluster{r: rand.New(rand.NewSource(1))}
	var values []map[string]any
	for range 20 {
		values = append(values, c.model())
	}
	for range 30 {
		values = append(values, c.runtime())
	}
	changed := append([]map[string]any{}, values...)
	v := copyValue(values[25])
	v["spec"].(map[string]any)["disabled"] = true
	changed[25] = v
	old, new := read(t, "old.yaml", values), read(t, "new.yaml", changed)
	var target *objects.Object
	for _, o := range new {
		if disabled, _ := o.Spec()["disabled"].(bool); disabled && o.Name == v["metadata"].(map[string]any)["name"] && o.Kind == v["kind"] {
			target = o
		}
	}
	require.NotNil(t, target, "the changed runtime is kept")
	r, err := Compute(e.m, e.s, old, new)
	require.NoError(t, err)
	lost, reworded := 0, 0
	for _, m := range r.Models {
		require.Empty(t, m.Gained)
		require.Len(t, append(m.Lost, m.Reworded...), 1)
		if len(m.Reworded) == 1 {
			require.Equal(t, "runtime is disabled", m.Reworded[0].Reason)
			require.NotEqual(t, "", m.Reworded[0].ReasonBefore, "it was not compatible before")
			reworded++
			continue
		}
		require.Equal(t, "runtime is disabled", m.Lost[0].Reason)
		require.Equal(t, Changed, m.Lost[0].Change)
		lost++
	}
	require.Positive(t, lost, "models that lost the runtime")
	require.Positive(t, reworded, "models refused by the runtime before, for another reason")
	inScope := 0
	for _, mo := range new {
		if mo.IsModel() && objects.InScope(mo, target) {
			inScope++
		}
	}
	// Two sides of the runtime's pairs, and at most every other pair of
	// the models that lost it.
	require.GreaterOrEqual(t, r.Work.Pairs, 2*inScope)
	require.LessOrEqual(t, r.Work.Pairs, 2*inScope+(lost+reworded)*29)
	require.Equal(t, countPairs(old)+countPairs(new), r.Work.AllPairs)
}

func countPairs(objs []*objects.Object) int {
	n := 0
	for _, m := range objs {
		for _, r := range objs {
			if m.IsModel() && r.IsRuntime() && objects.InScope(m, r) {
				n++
			}
		}
	}
	return n
}

func TestFirstDifference(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want string
	}{
		{"spec: {a: 1}", "spec: {a: 1}", ""},
		{"spec: {a: 1, b: 2}", "spec: {a: 1, b: 3}", "spec.b"},
		{"spec: {a: 1}", "spec: {a: 1, b: 3}", "spec.b"},
		{"spec: {a: 1, b: 3}", "spec: {a: 1}", "spec"},
		{"spec: {l: [{v: 1}, {v: 2}]}", "spec: {l: [{v: 1}, {v: 3}]}", "spec.l[1].v"},
		{"spec: {l: [1]}", "spec: {l: [1, 2]}", "spec.l[1]"},
		{"metadata: {uid: a, name: x}\nstatus: {x: 1}", "metadata: {uid: b, name: x}", ""},
		{"metadata: {annotations: {kubectl.kubernetes.io/last-applied-configuration: x}}", "metadata: {}", ""},
	} {
		var a, b map[string]any
		require.NoError(t, yaml.Unmarshal([]byte(tc.a), &a))
		require.NoError(t, yaml.Unmarshal([]byte(tc.b), &b))
		require.Equal(t, tc.want, FirstDifference(a, b), "%s -> %s", tc.a, tc.b)
	}
}
