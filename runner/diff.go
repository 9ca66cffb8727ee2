package runner

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/objects/crdschema"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// LiveDiffResources are what diff reads of a cluster: every OME resource.
var LiveDiffResources = append(append([]live.Resource{}, live.ModelsAndRuntimes...), live.InferenceServices)

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
func ReadClusterChange(o input.Options, cluster LiveCluster, release string) (input.Sides, error) {
	liveIn := &objects.Input{}
	if err := cluster.ReadInto(LiveDiffResources, liveIn, objects.ReadOptions{}); err != nil {
		return input.Sides{}, err
	}
	input.Finish(liveIn, o.Notice)
	ns := cluster.Namespace()
	files, err := input.Read(input.Options{Paths: o.Paths, Models: o.Models, Runtimes: o.Runtimes, Recursive: o.Recursive, Namespace: ns, Stdin: o.Stdin,
		Notice: o.Notice, FailOnEmpty: o.FailOnEmpty, UnreadIsProblem: o.UnreadIsProblem})
	if err != nil {
		return input.Sides{}, err
	}
	old, applied := liveIn.Objects, files.Objects
	// The API server fills in what OME's CRDs default: without it, a file
	// that says what the cluster holds would differ from it.
	for i, a := range applied {
		if applied[i], err = crdschema.WithDefaults(a, release); err != nil {
			return input.Sides{}, err
		}
	}
	new := diff.Apply(old, applied, time.Now().UTC())
	for _, a := range applied {
		if a.Namespace != "" && a.Namespace != ns && !cluster.AllNamespaces() && o.Notice != nil {
			o.Notice(fmt.Sprintf("%s:%d: notice: %s is in namespace %s, which was not read (the cluster was read in %s): it counts as new; -A reads every namespace",
				a.File, a.Line, a.Ref(), a.Namespace, ns))
		}
	}
	return input.Sides{Old: old, New: new, Problems: append(liveIn.Problems, files.Problems...),
		OldLabel: "the cluster", NewLabel: "the cluster with " + strings.Join(slices.Concat(o.Paths, o.Models, o.Runtimes), ", ") + " applied"}, nil
}

// Upgrade is an OME upgrade: the same objects judged by the rules of From
// and of To, on the engine named.
type Upgrade struct {
	Engine   string
	From, To string

	all           *policyset.Set
	before, after <-chan Compiled
}

// NewUpgrade is the upgrade from the release p chooses to the release to
// names; naming the same release is an error.
func NewUpgrade(p *Policies, to, engineName string) (*Upgrade, error) {
	all, err := p.All()
	if err != nil {
		return nil, err
	}
	from, err := p.Chosen(all)
	if err != nil {
		return nil, err
	}
	if to, err = KnownRelease(all, to, "--to-ome-version"); err != nil {
		return nil, err
	}
	if to == from {
		return nil, fmt.Errorf("--to-ome-version: both sides are OME %s: name another release than --ome-version's (%s)",
			to, strings.Join(policyset.EmbeddedReleases(), ", "))
	}
	return &Upgrade{Engine: engineName, From: from, To: to, all: all}, nil
}

// Compile compiles both sides in the background, so that they compile
// while the objects are read.
func (u *Upgrade) Compile() {
	parts := CompileMatch | CompileSelect | CompileExplain
	u.before = Compile(u.Engine, func() (*policyset.Set, error) { return u.all.Only(u.Engine).ForRelease(u.From) }, parts)
	u.after = Compile(u.Engine, func() (*policyset.Set, error) { return u.all.Only(u.Engine).ForRelease(u.To) }, parts)
}

// Report says what the upgrade does to objs (diff.Upgrade), once both
// sides are compiled.
func (u *Upgrade) Report(objs []*objects.Object) (*diff.Report, error) {
	if u.before == nil {
		u.Compile()
	}
	b, a := <-u.before, <-u.after
	for _, c := range []Compiled{b, a} {
		if c.Err != nil {
			return nil, c.Err
		}
	}
	return diff.Upgrade(diff.Engines{M: b.Matcher, S: b.Selector, X: b.Explainer, Release: u.From},
		diff.Engines{M: a.Matcher, S: a.Selector, X: a.Explainer, Release: u.To}, objs)
}
