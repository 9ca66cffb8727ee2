package rules

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/objects"
)

// FuzzLoad loads what a pull request may hold as a team's rules (a Rego
// file, its test, a YAML file of policies) and runs them on an object,
// within small limits (the corpus is testdata/fuzz/FuzzLoad). Whatever
// they are: every problem names its file, no rule that loads calls a
// builtin the sandbox refuses, and a run ends within the limits, never
// with a panic.
func FuzzLoad(f *testing.F) {
	f.Add("package a\n\ndeny contains \"x\" if input.kind == \"ClusterServingRuntime\"\n", "", vap(runtimesOnly+"  validations:\n  - {expression: 'true'}\n"))
	f.Add("package a\n\ndeny contains msg if {\n\tresp := http.send({\"url\": \"http://127.0.0.1:1\", \"method\": \"GET\"})\n\tmsg := resp.body\n}\n", "", "")
	f.Add("package a\n\ndeny contains \"n\" if to_number(input.metadata.name) > 1\n", "package a_test\n\ntest_x if time.now_ns() > 0\n", "")
	f.Add("package a\n\nwarn contains \"w\" if count(numbers.range(1, 100000000)) > 1\n", "", "")
	f.Add("", "", vap(runtimesOnly+"  validations:\n  - {expression: 'lists.range(1000).all(a, lists.range(1000).all(b, a + b >= 0))'}\n"))
	f.Add("", "", vap(runtimesOnly+"  failurePolicy: Ignore\n  validations:\n  - {expression: 'object.spec.x == 1'}\n"))
	obj := func(t *testing.T) *objects.Object { return object(t, runtimeDoc) }
	f.Fuzz(func(t *testing.T, rego, test, policy string) {
		dir := t.TempDir()
		for name, text := range map[string]string{"r.rego": rego, "r_test.rego": test, "p.yaml": policy} {
			if text != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
			}
		}
		s, err := LoadWith([]string{dir}, nil, Sandbox{Timeout: 200 * time.Millisecond, Memory: 64 << 20})
		if err != nil {
			var probs Problems
			require.ErrorAs(t, err, &probs)
			for _, p := range probs {
				require.NotEmpty(t, p.File, "a problem names its file: %s", p)
			}
			return
		}
		require.Empty(t, SandboxProblems(s.Modules), "a rule that loads calls no builtin the sandbox refuses")
		start := time.Now()
		_, probs := s.Check(obj(t))
		for _, p := range probs {
			require.NotEmpty(t, p.File, "a problem names its file: %s", p)
		}
		require.Less(t, time.Since(start), 5*time.Second, "the limits hold")
	})
}
