package e2e

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/ome-policy/evaluator/e2e/cluster"
)

// diffDoc is what the test reads of `evaluate diff -o json`.
type diffDoc struct {
	Summary struct{ Regressions, Changes int }
	Models  []struct {
		Model        struct{ Kind, Namespace, Name string }
		NoRuntime    bool
		Regression   bool
		Gained, Lost []diffRuntime
		File         string
		Line         int
		Change       string
	}
	InferenceServices []struct {
		InferenceService struct{ Namespace, Name string }
		Change           string
		Regression       bool
		Before, After    *struct {
			Admitted bool
			Runtime  *struct{ Kind, Namespace, Name string }
			Score    int64
			Scope    string
		}
	}
	Unmoved []struct {
		Kind, Namespace, Name, Change string
	}
	Errors []any
}

type diffRuntime struct {
	Runtime struct{ Kind, Namespace, Name string }
	Change  string
	Reason  string
	File    string
	Line    int
}

// decisions says a diff's report in lines that do not depend on where the
// objects were read: each model's gains and losses (with the reasons and,
// for a changed runtime, the line of the file changed), each
// InferenceService's runtime before and after, and the objects that move
// no decision. Refusal messages are left out: they list the runtimes
// newest first, and the cluster's have creation times that files do not.
func (d diffDoc) decisions() []string {
	var out []string
	for _, m := range d.Models {
		head := fmt.Sprintf("model %s/%s noRuntime=%v regression=%v", m.Model.Namespace, m.Model.Name, m.NoRuntime, m.Regression)
		for verb, l := range map[string][]diffRuntime{"gains": m.Gained, "loses": m.Lost} {
			for _, r := range l {
				at := ""
				if r.Change == "changed" || r.Change == "added" {
					at = fmt.Sprintf(" at %s:%d", r.File, r.Line)
				}
				out = append(out, fmt.Sprintf("%s: %s %s/%s (%s): %s%s", head, verb, r.Runtime.Namespace, r.Runtime.Name, r.Change, r.Reason, at))
			}
		}
	}
	for _, s := range d.InferenceServices {
		side := func(sel *struct {
			Admitted bool
			Runtime  *struct{ Kind, Namespace, Name string }
			Score    int64
			Scope    string
		}) string {
			switch {
			case sel == nil:
				return "none"
			case sel.Runtime != nil:
				return fmt.Sprintf("%s %s/%s score %d %s", sel.Runtime.Kind, sel.Runtime.Namespace, sel.Runtime.Name, sel.Score, sel.Scope)
			}
			return fmt.Sprintf("admitted=%v", sel.Admitted)
		}
		out = append(out, fmt.Sprintf("isvc %s/%s %s regression=%v: %s -> %s", s.InferenceService.Namespace, s.InferenceService.Name, s.Change, s.Regression, side(s.Before), side(s.After)))
	}
	for _, u := range d.Unmoved {
		out = append(out, fmt.Sprintf("unmoved %s %s %s/%s", u.Change, u.Kind, u.Namespace, u.Name))
	}
	sort.Strings(out)
	return out
}

// testDiffCluster puts testdata/diff/before in the cluster and checks that
// `evaluate diff --cluster -f testdata/diff/after` (the cluster as OLD, the
// cluster with the files applied as NEW) says what the diff of the two
// folders says, on both engines: the cluster's copies, which the API server
// gave its defaults and metadata, are no change of their own.
func testDiffCluster(t *testing.T) {
	withAction(t, selectionConstraint(t), "dryrun", waitSelectionEnforced)
	waitAdmitted(t, selectionProbe("ome-e2e-probe"))
	read, err := cluster.ReadObjects(filepath.Join(repo, "testdata", "diff", "before"))
	if err != nil {
		t.Fatal(err)
	}
	var objs, isvcs []*unstructured.Unstructured
	for _, o := range read {
		if o.GetKind() == "InferenceService" {
			isvcs = append(isvcs, o)
		} else {
			objs = append(objs, o)
		}
	}
	stored := applyAndReadBack(t, objs)
	storedIsvcs := applyAndReadBack(t, isvcs)
	t.Cleanup(func() { deleteAll(t, append(storedIsvcs, stored...)) })

	files, _, code := run(t, "diff", "-R", "testdata/diff/before", "testdata/diff/after", "-o", "json")
	if code != 1 {
		t.Fatalf("evaluate diff of the folders: exit %d, want 1", code)
	}
	var want diffDoc
	mustJSON(t, []byte(files), &want)
	for _, eng := range []string{"cel", "rego"} {
		out, errOut, code := run(t, "diff", "--kubeconfig", state.Kubeconfig, "-A", "-R", "testdata/diff/after", "-o", "json", "--engine", eng)
		if code != 1 {
			t.Fatalf("evaluate diff --kubeconfig -A testdata/diff/after --engine %s: exit %d, want 1\n%s", eng, code, errOut)
		}
		var got diffDoc
		mustJSON(t, []byte(out), &got)
		if g, w := strings.Join(got.decisions(), "\n"), strings.Join(want.decisions(), "\n"); g != w {
			t.Errorf("--engine %s: the cluster with the files applied:\n%s\nthe folders:\n%s", eng, g, w)
		} else {
			t.Logf("--engine %s: evaluate diff --cluster says what the folders' diff says (%d lines, %d regressions)", eng, len(got.decisions()), got.Summary.Regressions)
		}
		if got.Summary != want.Summary || len(got.Errors) > 0 {
			t.Errorf("--engine %s: summary %+v (errors %v), want %+v", eng, got.Summary, got.Errors, want.Summary)
		}
	}
	// The same files again: nothing changes, and the cluster's copies
	// (defaults filled in, uid, resourceVersion, creationTimestamp) are no
	// change.
	out, errOut, code := run(t, "diff", "--kubeconfig", state.Kubeconfig, "-A", "-R", "testdata/diff/before", "-o", "json", "--fail-on", "changes")
	var same diffDoc
	mustJSON(t, []byte(out), &same)
	if code != 0 || len(same.decisions()) > 0 {
		t.Errorf("evaluate diff --cluster of what the cluster holds: exit %d, want 0 and nothing: %v\n%s", code, same.decisions(), errOut)
	}
	// Without -A, an object of another namespace counts as new, with a
	// notice.
	_, errOut, _ = run(t, "diff", "--kubeconfig", state.Kubeconfig, "-n", "team-b", "-R", "testdata/diff/before", "-o", "json")
	if !strings.Contains(errOut, "BaseModel/team-a/qwen2-7b-instruct is in namespace team-a, which was not read (the cluster was read in team-b)") {
		t.Errorf("evaluate diff --cluster -n team-b: no notice of team-a's objects:\n%s", errOut)
	}
}
