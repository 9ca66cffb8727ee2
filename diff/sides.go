package diff

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/ome-policy/evaluator/gitref"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/objects/crdschema"
)

// Sides are the two sides of a diff: the objects before and after the
// change, the problems of both, and how the output names each side.
type Sides struct {
	Old, New           []*objects.Object
	Problems           []*objects.InputError
	OldLabel, NewLabel string
}

// readSide reads paths (with their folders), and models and runtimes apart,
// as one side, as o reads.
func readSide(o input.Options, paths, models, runtimes []string, showFile func(string) string) (*input.Result, error) {
	s := input.Options{Paths: paths, Models: models, Runtimes: runtimes, Recursive: o.Recursive, Namespace: o.Namespace, Stdin: o.Stdin,
		ShowFile: showFile, Notice: o.Notice, FailOnEmpty: o.FailOnEmpty, UnreadIsProblem: o.UnreadIsProblem}
	return input.Read(s)
}

// ReadOldNew reads OLD and NEW, each a path read as o reads. A side from
// which no object is read, when the other has some, is named in a notice
// (every object of the other side counts as added or removed), or with
// FailOnEmpty is a problem; when neither has any, the command says so.
func ReadOldNew(o input.Options, oldPath, newPath string) (Sides, error) {
	old, err := readSide(o, []string{oldPath}, nil, nil, nil)
	if err != nil {
		return Sides{}, err
	}
	new, err := readSide(o, []string{newPath}, nil, nil, nil)
	if err != nil {
		return Sides{}, err
	}
	if old.Taken()+new.Taken() > 0 {
		for _, s := range []*input.Result{old, new} {
			for _, e := range s.Empty {
				switch {
				case o.FailOnEmpty:
					s.Problems = append(s.Problems, &objects.InputError{File: e.Path, Msg: e.Message() + " (--fail-on-empty)"})
				case o.Notice != nil:
					o.Notice("notice: " + e.Path + ": " + e.Message())
				}
			}
		}
	}
	return Sides{Old: old.Objects, New: new.Objects, Problems: append(old.Problems, new.Problems...), OldLabel: oldPath, NewLabel: newPath}, nil
}

// ReadBase reads NEW from o's paths (Paths, Models, Runtimes) as they are,
// and OLD from the same paths as git has them at ref: each path is taken
// out of the repository that holds it (gitref.Checkout) into a temporary
// folder and read there, its objects' files named as the path, and its
// problems' as REF:PATH.
func ReadBase(o input.Options, ref string) (Sides, error) {
	given := [][]string{o.Paths, o.Models, o.Runtimes}
	var all []string
	for _, paths := range given {
		for _, p := range paths {
			if p == "-" {
				return Sides{}, fmt.Errorf("--base: standard input (-) has no version in git; give files or folders")
			}
		}
		all = append(all, paths...)
	}
	tmp, err := os.MkdirTemp("", "evaluate-diff-")
	if err != nil {
		return Sides{}, err
	}
	defer os.RemoveAll(tmp)
	var atRef [3][]string
	shown := map[string]string{} // a copy's path -> the path as given
	n := 0
	for k, paths := range given {
		for _, p := range paths {
			// Each path's copy at ref, under a folder of its own.
			n++
			at, found, err := gitref.Checkout(ref, p, filepath.Join(tmp, fmt.Sprint(n)))
			if err != nil {
				return Sides{}, fmt.Errorf("--base %s: %w", ref, err)
			}
			if !found {
				if o.Notice != nil {
					o.Notice(fmt.Sprintf("notice: %s is not in %s: nothing of it before the change", p, ref))
				}
				continue
			}
			shown[at] = p
			atRef[k] = append(atRef[k], at)
		}
	}
	rename := func(file string) string {
		for at, p := range shown {
			if file == at {
				return p
			}
			if rest, ok := strings.CutPrefix(file, at+string(filepath.Separator)); ok {
				return filepath.Join(p, rest)
			}
		}
		return file
	}
	old, err := readSide(o, atRef[0], atRef[1], atRef[2], rename)
	if err != nil {
		return Sides{}, err
	}
	for _, p := range old.Problems {
		p.File = ref + ":" + p.File
	}
	new, err := readSide(o, o.Paths, o.Models, o.Runtimes, nil)
	if err != nil {
		return Sides{}, err
	}
	label := strings.Join(all, " ")
	return Sides{Old: old.Objects, New: new.Objects, Problems: append(old.Problems, new.Problems...), OldLabel: ref + ":" + label, NewLabel: label}, nil
}

// LiveResources are what diff reads of a cluster: every OME resource.
var LiveResources = append(append([]live.Resource{}, live.ModelsAndRuntimes...), live.InferenceServices)

// LiveCluster is a cluster that a diff reads as OLD.
type LiveCluster interface {
	input.Cluster
	// Namespace is the namespace the cluster is read in: -n, else the
	// context's.
	Namespace() string
	// AllNamespaces says whether every namespace is read (-A).
	AllNamespaces() bool
}

// ReadClusterChange reads the cluster as OLD, and NEW as the cluster with
// the files of o applied, as the release's API server would store them:
// the defaults of OME's CRDs filled in; an object of the same kind,
// namespace and name replaced (keeping the cluster's creationTimestamp),
// a new one added (created now). Files without a namespace go where
// kubectl diff would put them: the cluster's namespace.
func ReadClusterChange(o input.Options, cluster LiveCluster, release string) (Sides, error) {
	liveIn := &input.Result{}
	if err := cluster.ReadInto(LiveResources, liveIn, input.ReadOptions{}); err != nil {
		return Sides{}, err
	}
	input.Finish(liveIn, o.Notice)
	ns := cluster.Namespace()
	files, err := input.Read(input.Options{Paths: o.Paths, Models: o.Models, Runtimes: o.Runtimes, Recursive: o.Recursive, Namespace: ns, Stdin: o.Stdin,
		Notice: o.Notice, FailOnEmpty: o.FailOnEmpty, UnreadIsProblem: o.UnreadIsProblem})
	if err != nil {
		return Sides{}, err
	}
	old, applied := liveIn.Objects, files.Objects
	// The API server fills in what OME's CRDs default: without it, a file
	// that says what the cluster holds would differ from it.
	for i, a := range applied {
		if applied[i], err = crdschema.WithDefaults(a, release); err != nil {
			return Sides{}, err
		}
	}
	new := Apply(old, applied, time.Now().UTC())
	for _, a := range applied {
		if a.Namespace != "" && a.Namespace != ns && !cluster.AllNamespaces() && o.Notice != nil {
			o.Notice(fmt.Sprintf("%s:%d: notice: %s is in namespace %s, which was not read (the cluster was read in %s): it counts as new; -A reads every namespace",
				a.File, a.Line, a.Ref(), a.Namespace, ns))
		}
	}
	return Sides{Old: old, New: new, Problems: append(liveIn.Problems, files.Problems...),
		OldLabel: "the cluster", NewLabel: "the cluster with " + strings.Join(slices.Concat(o.Paths, o.Models, o.Runtimes), ", ") + " applied"}, nil
}
