package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/gitref"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output/diffout"
)

// readBase reads NEW from the paths as they are, and OLD from the same
// paths as git has them at ref: each path is taken out of the repository
// that holds it (gitref.Checkout) into a temporary folder and read there, its
// objects' files named as the path, and its problems' as REF:PATH.
func readBase(g *globalOptions, cmd *cobra.Command, in *inputOptions, ref string, args []string) (old, new []*objects.Object, problems []*objects.InputError, sides diffout.Sides, err error) {
	all := append(append([]string{}, args...), in.files...)
	for _, p := range all {
		if p == "-" {
			return nil, nil, nil, sides, badInput(fmt.Errorf("--base: standard input (-) has no version in git; give files or folders"))
		}
	}
	tmp, err := os.MkdirTemp("", "evaluate-diff-")
	if err != nil {
		return nil, nil, nil, sides, err
	}
	defer os.RemoveAll(tmp)
	// Each path's copy at ref, under a folder of its own.
	copyOf := func(i int, p string) (string, error) {
		at, found, err := gitref.Checkout(ref, p, filepath.Join(tmp, fmt.Sprint(i)))
		if err != nil {
			return "", badInput(fmt.Errorf("--base %s: %w", ref, err))
		}
		if !found {
			fmt.Fprintf(cmd.ErrOrStderr(), "notice: %s is not in %s: nothing of it before the change\n", p, ref)
			return "", nil
		}
		return at, nil
	}
	var oldArgs, oldFiles []string
	shown := map[string]string{} // a copy's path -> the path as given
	for i, p := range all {
		at, err := copyOf(i, p)
		if err != nil {
			return nil, nil, nil, sides, err
		}
		if at == "" {
			continue
		}
		shown[at] = p
		if i < len(args) {
			oldArgs = append(oldArgs, at)
		} else {
			oldFiles = append(oldFiles, at)
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
	o, err := readSide(g, cmd, in, oldArgs, oldFiles, rename)
	if err != nil {
		return nil, nil, nil, sides, err
	}
	for _, p := range o.Problems {
		p.File = ref + ":" + p.File
	}
	n, err := readSide(g, cmd, in, args, in.files, nil)
	if err != nil {
		return nil, nil, nil, sides, err
	}
	label := strings.Join(all, " ")
	return o.Objects, n.Objects, append(o.Problems, n.Problems...),
		diffout.Sides{Old: ref + ":" + label, New: label}, nil
}
