// Package input reads what a command reads, one way for every command:
// paths given as arguments or with -f (any mix of objects, as kubectl takes
// them), -m and -r (models only, runtimes only), then a cluster's
// resources; of the objects of one kind, namespace and name, the one read
// last is kept, as on kubectl apply, so that every command sees and counts
// the same objects. It also reads the two sides of a diff (OLD and NEW,
// files at a git commit, a cluster and the files applied to it).
//
// It reads through package objects, gitref and live, and imports nothing
// of the engines; what it would print comes back as notices through the
// caller's function.
package input

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
)

// Cluster reads resources of a live cluster into an input, after the
// files.
type Cluster interface {
	ReadInto(resources []live.Resource, in *Result, opts ReadOptions) error
}

// Options say what to read. Every path, whichever way it is given, is read
// by kubectl's rule: a folder's own files, and the model folders
// (<model>/config.json) directly in it, each one model; the folders inside
// it only with Recursive, else a notice names them.
type Options struct {
	Paths     []string // any mix of objects
	Models    []string // models only (-m)
	Runtimes  []string // runtimes only (-r)
	Recursive bool
	// Namespace is the namespace of the objects of the files that give
	// none.
	Namespace string
	Stdin     io.Reader
	// Lenient keeps an object whose fields have the wrong types.
	Lenient bool
	// FailOnEmpty makes each path given from which nothing was read a
	// problem, when other paths gave objects (else a notice names it);
	// when nothing at all was read, the command says so.
	FailOnEmpty bool
	// UnreadIsProblem makes each folder left unread inside a folder given
	// (no -R) a problem rather than a notice: diff compares whole sides,
	// and a change in a folder it does not read would pass unseen.
	UnreadIsProblem bool
	// Cluster, when not nil, is read after the files: Resources of it.
	Cluster   Cluster
	Resources []live.Resource
	// ShowFile, when not nil, names each file read as the user knows it
	// (diff --base reads copies of the files).
	ShowFile func(string) string
	// Visit, when not nil, gets each object instead of the Input's
	// Objects.
	Visit func(*objects.Object)
	// Count, when not nil, is told after each object how many were read.
	Count func(read int)
	// Notice gets each notice: objects replaced, documents skipped,
	// folders left unread.
	Notice func(string)
}

// Read reads every input the options name and gives back every problem,
// for the command to report after its results; only a cluster that cannot
// be read is an error.
func Read(o Options) (*Result, error) {
	in := &Result{}
	read := 0
	in.Visit = func(obj *objects.Object) {
		if read++; o.Count != nil {
			o.Count(read)
		}
		if o.Visit != nil {
			o.Visit(obj)
		} else {
			in.Objects = append(in.Objects, obj)
		}
	}
	opts := ReadOptions{Stdin: o.Stdin, Lenient: o.Lenient, ModelFolders: true, Recursive: o.Recursive, Namespace: o.Namespace}
	in.Read(o.Paths, opts)
	for _, sorted := range []struct {
		paths      []string
		flag, sort string
		want       func(*objects.Object) bool
	}{
		{o.Models, "-m", "model", (*objects.Object).IsModel},
		{o.Runtimes, "-r", "runtime", (*objects.Object).IsRuntime},
	} {
		if len(sorted.paths) == 0 {
			continue
		}
		n, wrong := 0, 0
		part := &Result{Visit: func(obj *objects.Object) {
			if !sorted.want(obj) {
				wrong++
				in.Problems = append(in.Problems, &objects.InputError{File: obj.File, Line: obj.Line,
					Msg: fmt.Sprintf("%s is not a %s; %s takes %ss (-f takes any mix)", obj.Ref(), sorted.sort, sorted.flag, sorted.sort)})
				return
			}
			n++
			in.Take(obj)
		}}
		opts.ModelFolders = sorted.flag == "-m"
		part.Read(sorted.paths, opts)
		in.Problems = append(in.Problems, part.Problems...)
		in.Skipped = append(in.Skipped, part.Skipped...)
		in.Unread = append(in.Unread, part.Unread...)
		in.Links = append(in.Links, part.Links...)
		if n > 0 {
			in.Empty = append(in.Empty, part.Empty...)
		}
		if n == 0 && wrong == 0 && len(part.Problems) == 0 {
			msg := fmt.Sprintf("no %s found", sorted.sort)
			if len(part.Unread) > 0 {
				msg += " (the folders inside are read with -R)"
			}
			in.Problems = append(in.Problems, &objects.InputError{File: sorted.flag + " " + strings.Join(sorted.paths, " "), Msg: msg})
		}
	}
	if o.Cluster != nil && len(o.Resources) > 0 {
		if err := o.Cluster.ReadInto(o.Resources, in, ReadOptions{Lenient: o.Lenient}); err != nil {
			return nil, err
		}
	}
	if o.ShowFile != nil {
		in.Rename(o.ShowFile)
	}
	if o.FailOnEmpty && in.Taken() > 0 {
		for _, e := range in.Empty {
			in.Problems = append(in.Problems, &objects.InputError{File: e.Path, Msg: e.Message() + " (--fail-on-empty)"})
		}
		in.Empty = nil
	}
	if o.UnreadIsProblem {
		for _, u := range in.Unread {
			in.Problems = append(in.Problems, &objects.InputError{File: u, Msg: "a folder inside a folder given, not read: -R reads it"})
		}
		in.Unread = nil
	}
	Finish(in, o.Notice)
	return in, nil
}

// Finish ends the read of in, the same way for every read: of the objects
// of one kind, namespace and name, the one read last replaces the others,
// as on kubectl apply; then the notices (objects replaced, documents
// skipped, folders left unread).
func Finish(in *Result, notice func(string)) {
	in.Done()
	for _, n := range in.Notices() {
		if notice != nil {
			notice(n)
		}
	}
}

// Only keeps the objects for which want holds.
func Only(objs []*objects.Object, want func(*objects.Object) bool) []*objects.Object {
	var out []*objects.Object
	for _, o := range objs {
		if want(o) {
			out = append(out, o)
		}
	}
	return out
}

// SkippedNotice says in one notice how many OME objects of other kinds
// (left, by kind) a command skipped; "" when it skipped none.
func SkippedNotice(command, reads string, left map[string]int) string {
	if len(left) == 0 {
		return ""
	}
	kinds := make([]string, 0, len(left))
	n := 0
	for k, c := range left {
		kinds = append(kinds, fmt.Sprintf("%d %s", c, k))
		n += c
	}
	sort.Strings(kinds)
	return fmt.Sprintf("notice: %s reads %s; skipped %d other OME object(s) (%s)", command, reads, n, strings.Join(kinds, ", "))
}

// Others counts, by kind, the objects for which want does not hold.
func Others(objs []*objects.Object, want func(*objects.Object) bool) map[string]int {
	left := map[string]int{}
	for _, o := range objs {
		if !want(o) {
			left[o.Kind]++
		}
	}
	return left
}
