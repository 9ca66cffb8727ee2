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

// side reads paths (with their folders) as one side, as o reads.
func side(o Options, paths []string, showFile func(string) string) (*objects.Input, error) {
	s := Options{Paths: paths, Recursive: o.Recursive, Namespace: o.Namespace, Stdin: o.Stdin, ShowFile: showFile, Notice: o.Notice, FailOnEmpty: o.FailOnEmpty, UnreadIsProblem: o.UnreadIsProblem}
	return Read(s)
}

// ReadOldNew reads OLD and NEW, each a path read as o reads. A side from
// which no object is read is a problem, as kubectl apply refuses a path
// with no objects: a diff against nothing would say every object was
// added or removed, and one of two folders whose objects sit in folders
// inside them (without -R) would say nothing changed.
func ReadOldNew(o Options, oldPath, newPath string) (Sides, error) {
	old, err := side(o, []string{oldPath}, nil)
	if err != nil {
		return Sides{}, err
	}
	new, err := side(o, []string{newPath}, nil)
	if err != nil {
		return Sides{}, err
	}
	for _, s := range []*objects.Input{old, new} {
		if len(s.Problems) > 0 {
			continue // they say why
		}
		for _, e := range s.Empty {
			s.Problems = append(s.Problems, &objects.InputError{File: e.Path, Msg: e.Message()})
		}
	}
	return Sides{Old: old.Objects, New: new.Objects, Problems: append(old.Problems, new.Problems...), OldLabel: oldPath, NewLabel: newPath}, nil
}

// ReadBase reads NEW from the paths as they are, and OLD from the same
// paths as git has them at ref: each path is taken out of the repository
// that holds it (gitref.Checkout) into a temporary folder and read there,
// its objects' files named as the path, and its problems' as REF:PATH.
func ReadBase(o Options, ref string, paths []string) (Sides, error) {
	for _, p := range paths {
		if p == "-" {
			return Sides{}, fmt.Errorf("--base: standard input (-) has no version in git; give files or folders")
		}
	}
	tmp, err := os.MkdirTemp("", "evaluate-diff-")
	if err != nil {
		return Sides{}, err
	}
	defer os.RemoveAll(tmp)
	var oldPaths []string
	shown := map[string]string{} // a copy's path -> the path as given
	for i, p := range paths {
		// Each path's copy at ref, under a folder of its own.
		at, found, err := gitref.Checkout(ref, p, filepath.Join(tmp, fmt.Sprint(i)))
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
		oldPaths = append(oldPaths, at)
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
	old, err := side(o, oldPaths, rename)
	if err != nil {
		return Sides{}, err
	}
	for _, p := range old.Problems {
		p.File = ref + ":" + p.File
	}
	new, err := side(o, paths, nil)
	if err != nil {
		return Sides{}, err
	}
	label := strings.Join(paths, " ")
	return Sides{Old: old.Objects, New: new.Objects, Problems: append(old.Problems, new.Problems...), OldLabel: ref + ":" + label, NewLabel: label}, nil
}
