package input

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/ome-policy/evaluator/gitref"
	"github.com/ome-policy/evaluator/objects"
)

// Sides are the two sides of a diff: the objects before and after the
// change, the problems of both, and how the output names each side.
type Sides struct {
	Old, New           []*objects.Object
	Problems           []*objects.InputError
	OldLabel, NewLabel string
}

// side reads paths (with their folders), and models and runtimes apart,
// as one side, as o reads.
func side(o Options, paths, models, runtimes []string, showFile func(string) string) (*Result, error) {
	s := Options{Paths: paths, Models: models, Runtimes: runtimes, Recursive: o.Recursive, Namespace: o.Namespace, Stdin: o.Stdin,
		ShowFile: showFile, Notice: o.Notice, FailOnEmpty: o.FailOnEmpty, UnreadIsProblem: o.UnreadIsProblem}
	return Read(s)
}

// ReadOldNew reads OLD and NEW, each a path read as o reads. A side from
// which no object is read, when the other has some, is named in a notice
// (every object of the other side counts as added or removed), or with
// FailOnEmpty is a problem; when neither has any, the command says so.
func ReadOldNew(o Options, oldPath, newPath string) (Sides, error) {
	old, err := side(o, []string{oldPath}, nil, nil, nil)
	if err != nil {
		return Sides{}, err
	}
	new, err := side(o, []string{newPath}, nil, nil, nil)
	if err != nil {
		return Sides{}, err
	}
	if old.Taken()+new.Taken() > 0 {
		for _, s := range []*Result{old, new} {
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
func ReadBase(o Options, ref string) (Sides, error) {
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
	old, err := side(o, atRef[0], atRef[1], atRef[2], rename)
	if err != nil {
		return Sides{}, err
	}
	for _, p := range old.Problems {
		p.File = ref + ":" + p.File
	}
	new, err := side(o, o.Paths, o.Models, o.Runtimes, nil)
	if err != nil {
		return Sides{}, err
	}
	label := strings.Join(all, " ")
	return Sides{Old: old.Objects, New: new.Objects, Problems: append(old.Problems, new.Problems...), OldLabel: ref + ":" + label, NewLabel: label}, nil
}
