package admit

import (
	"bytes"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/rules"
)

// kyvernoTestResult is one result of a Kyverno Test, with the comment
// that says a refusal's message.
type kyvernoTestResult struct {
	policy, resource, result, message string
}

// readTeamTests reads the results of team/.kyverno-test/kyverno-test.yaml,
// and checks that each Test's resources file holds its resources.
func readTeamTests(t *testing.T, b admission.Bundle) []kyvernoTestResult {
	t.Helper()
	var out []kyvernoTestResult
	dec := yaml.NewDecoder(bytes.NewReader(b["kyverno-test.yaml"]))
	for {
		var n yaml.Node
		if dec.Decode(&n) != nil {
			break
		}
		var test struct {
			Policies  []string
			Resources []string
			Results   []struct {
				Policy    string
				Kind      string
				Resources []string
				Result    string
			}
		}
		require.NoError(t, n.Decode(&test))
		require.Len(t, test.Resources, 1)
		resources := string(b[test.Resources[0]])
		results := n.Content[0]
		for i := 0; i < len(results.Content); i += 2 {
			if results.Content[i].Value != "results" {
				continue
			}
			for j, r := range test.Results {
				require.Equal(t, []string{"../" + r.Policy + ".yaml"}, test.Policies)
				name := r.Resources[0][strings.LastIndex(r.Resources[0], "/")+1:]
				assert.Contains(t, resources, "name: "+name, "the Test's resources hold %s", r.Resources[0])
				msg := strings.TrimPrefix(results.Content[i+1].Content[j].HeadComment, "# ")
				out = append(out, kyvernoTestResult{r.Policy, r.Kind + " " + r.Resources[0], r.Result, msg})
			}
		}
	}
	return out
}

// TestTeamTestsAreLints holds the Tests of a team's Kyverno policies
// (team/.kyverno-test) to evaluate lint --rules, for each CEL rule form
// of testdata/rules/corpus and the example team's CEL rule: every object
// that a rule's policies review is a result of each, and the refusals
// (fail, their messages in the comments) are the rule's findings, one a
// validation; a rule refuses some object and admits another.
func TestTeamTestsAreLints(t *testing.T) {
	for rulesDir, files := range teamRuleSets(t) {
		t.Run(filepath.Base(filepath.Dir(rulesDir))+"/"+filepath.Base(rulesDir), func(t *testing.T) {
			set, err := rules.Load([]string{rulesDir}, nil)
			require.NoError(t, err)
			var rego []string
			for _, r := range set.Rules {
				if r.Language != rules.CEL {
					rego = append(rego, r.ID)
				}
			}
			compiled, err := Compile(set, []string{TargetKyverno}, rego, "v1.2.2", "", nil)
			require.NoError(t, err)
			objs, err := input.Load(files, input.LoadOptions{Lenient: true})
			require.NoError(t, err)
			objs, _ = objects.Deduplicate(objs)
			results := readTeamTests(t, teamTests(compiled, objs))
			for _, r := range set.Rules {
				if r.Language != rules.CEL {
					continue
				}
				fails, passes := 0, 0
				for _, o := range objs {
					ref := o.Kind + " " + o.Name
					if o.Namespace != "" {
						ref = o.Kind + " " + o.Namespace + "/" + o.Name
					}
					var want, got []string
					fs, _ := set.Check(o)
					for _, f := range fs {
						if f.Rule == r.ID {
							want = append(want, f.Message)
						}
					}
					seen := 0
					for _, x := range results {
						if x.resource == ref && (x.policy == r.ID || strings.HasPrefix(x.policy, r.ID+"-")) {
							seen++
							switch x.result {
							case "fail":
								got = append(got, x.message)
							case "pass", "skip":
							default:
								t.Errorf("%s on %s: %s", x.policy, ref, x.result)
							}
						}
					}
					kyvernoPolicies := len(KyvernoDocs(r, r.Policy))
					if !containsKind(r, o.Kind) {
						assert.Zero(t, seen, "%s does not review %s", r.ID, ref)
						continue
					}
					assert.Equal(t, kyvernoPolicies, seen, "%s: a result of each policy of %s", ref, r.ID)
					sort.Strings(want)
					sort.Strings(got)
					assert.Equal(t, want, got, "%s on %s", r.ID, ref)
					if len(want) > 0 {
						fails++
					} else {
						passes++
					}
				}
				assert.Positive(t, fails, "%s refuses no object", r.ID)
				assert.Positive(t, passes, "%s refuses every object", r.ID)
			}
			compiled.Lint = objs
			assert.Empty(t, compiled.KyvernoNotices(), "every rule refuses some object")
			compiled.Lint = nil
			notices := compiled.KyvernoNotices()
			for _, r := range set.Rules {
				if r.Language == rules.CEL {
					assert.Contains(t, strings.Join(notices, "\n"), "rule "+r.ID+": no object of --lint makes its Kyverno policy refuse it")
				}
			}
		})
	}
}

func containsKind(r rules.Rule, kind string) bool {
	for _, k := range r.Kinds {
		if k == kind {
			return true
		}
	}
	return false
}

func findings(objs []*objects.Object) []admission.ObjectFindings {
	out := make([]admission.ObjectFindings, len(objs))
	for i, o := range objs {
		out[i] = admission.ObjectFindings{Object: o}
	}
	return out
}
