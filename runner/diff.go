package runner

import (
	"fmt"
	"strings"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/rules"
)

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

// Diff is one run of evaluate diff: where its two sides come from, and
// the rules that judge them. The sides are one of: the files Old and New;
// In's files as git has them at Base (OLD) and now (NEW); Cluster (OLD)
// and Cluster with In's files applied (NEW); or, with ToRelease, In's
// objects judged under Policies' release (OLD) and ToRelease (NEW).
type Diff struct {
	Engine    string
	Policies  *Policies
	In        input.Options
	Old, New  string
	Base      string
	Cluster   diff.LiveCluster // nil: not read
	ToRelease string
	// Sources names In's objects, for the sides of an upgrade ("x.yaml on
	// OME v0.1.5").
	Sources string
	// Comparing, when set, is called once both sides are read, as the
	// comparing begins.
	Comparing func()
	// Rules are a team's own rules (LoadRules: files and folders), run on
	// both sides: the findings the change makes or clears are in the
	// report (diff.RuleChanges). Their problems are a rules.Problems
	// error.
	Rules []string
	// Sandbox is what the rules may do (rules.Sandbox).
	Sandbox rules.Sandbox
}

// Sides sets where d's two sides come from, as a command line names them:
// its arguments (args: OLD and NEW, or the files of the change), how many
// paths -f, -m and -r give (flagged), and the cluster's flags; d.Base and
// d.ToRelease are set before. A command line that names no two sides is
// an error that says what to give.
func (d *Diff) Sides(args []string, flagged int, cluster *input.ClusterSource) error {
	paths, inCluster := len(args)+flagged, cluster.Enabled()
	switch {
	case d.ToRelease != "" && d.Base != "":
		return fmt.Errorf("--to-ome-version compares the same objects under two OME releases, --base two versions of the files: give one")
	case d.ToRelease != "":
		if paths == 0 && !inCluster {
			return fmt.Errorf("give the objects to judge under both releases: PATH..., -f PATH or --cluster")
		}
	case d.Base != "" && inCluster:
		return fmt.Errorf("--base and --cluster compare with different things: give one")
	case d.Base != "" || inCluster:
		if paths == 0 {
			return fmt.Errorf("give the files of the change: PATH... or -f PATH")
		}
	case len(args) != 2:
		return fmt.Errorf("give OLD and NEW, or --base REF PATH..., or --cluster -f PATH... (got %d argument(s))", len(args))
	case flagged > 0:
		// Each of OLD and NEW is a whole side.
		return fmt.Errorf("OLD and NEW are each a whole side: -f, -m and -r go with --base, --cluster and --to-ome-version")
	default:
		d.Old, d.New = args[0], args[1]
	}
	if inCluster && d.Base == "" {
		d.Cluster = cluster
	}
	return nil
}

// DiffResult is what a diff found.
type DiffResult struct {
	// Report is nil when neither side holds an OME object.
	Report *diff.Report
	// Old and New say what each side is; From and To are the OME
	// releases whose rules judge them.
	Old, New, From, To string
	Problems           []*objects.InputError
}

// Run reads both sides while the policies compile, and says what the
// change does.
func (d *Diff) Run() (DiffResult, error) {
	if d.ToRelease != "" {
		return d.upgrade()
	}
	// The team's rules are read first: a bad rule ends the run at once.
	set, team, err := d.teamRules(func() (*policyset.Set, error) { return d.Policies.For(d.Engine) })
	if err != nil {
		return DiffResult{}, err
	}
	ready := Compile(d.Engine, func() (*policyset.Set, error) { return d.Policies.For(d.Engine) }, CompileMatch|CompileSelect)
	sides, err := d.read()
	if err != nil {
		return DiffResult{}, err
	}
	r := DiffResult{Old: sides.OldLabel, New: sides.NewLabel, Problems: sides.Problems}
	d.comparing()
	if len(sides.Old)+len(sides.New) > 0 {
		for _, side := range [][]*objects.Object{sides.Old, sides.New} {
			if err := objects.CheckTimestamps(side); err != nil {
				return r, err
			}
		}
	}
	c := <-ready
	if c.Err != nil {
		return r, c.Err
	}
	r.From, r.To = c.Release, c.Release
	if len(sides.Old)+len(sides.New) == 0 {
		return r, nil
	}
	// The team's rules first: comparing drops the objects' positions.
	changes, err := team.judge(&r, sides.Old, sides.New, Decider(d.Engine, set), Decider(d.Engine, set))
	if err != nil {
		return r, err
	}
	r.Report, err = diff.Compute(c.Matcher, c.Selector, sides.Old, sides.New)
	if err == nil {
		r.Report.Rules = changes
	}
	return r, err
}

// teamRules reads the team's rules of d beside the lint rules of the
// policies that set gives, and gives those policies too; nothing (and set
// is not asked) without rules.
func (d *Diff) teamRules(set func() (*policyset.Set, error)) (*policyset.Set, *sideRules, error) {
	if len(d.Rules) == 0 {
		return nil, nil, nil
	}
	s, err := set()
	if err != nil {
		return nil, nil, err
	}
	ome, team, err := RulesFor(s, d.Rules, d.Sandbox)
	if err != nil {
		return nil, nil, err
	}
	if d.In.Notice != nil {
		for _, n := range team.Notices {
			d.In.Notice(n)
		}
	}
	return s, &sideRules{team: team, all: WithRules(ome, team)}, nil
}

// sideRules are a team's rules that judge both sides of a diff: team,
// and with OME's, all the rule ids an object's ignore annotation may name.
type sideRules struct {
	team *rules.Set
	all  []engine.Rule
}

// judge gives the findings of the team's rules that the change makes or
// clears, from old to new, each side with OME's decisions about it
// (decideOld's, decideNew's); their problems go with r's. Without rules,
// nil.
func (t *sideRules) judge(r *DiffResult, old, new []*objects.Object, decideOld, decideNew rules.Decide) ([]diff.RuleChange, error) {
	if t == nil {
		return nil, nil
	}
	before, err := t.findings(r, old, decideOld)
	if err != nil {
		return nil, err
	}
	after, err := t.findings(r, new, decideNew)
	if err != nil {
		return nil, err
	}
	return diff.RuleChanges(before, after), nil
}

// findings are the findings of the team's rules on a side's objects, as
// kubectl apply would leave them, but those that an object's ignore
// annotation turns off (runner.IgnoredRules; the annotation's own
// problems are lint's to tell).
func (t *sideRules) findings(r *DiffResult, objs []*objects.Object, decide rules.Decide) ([]engine.Finding, error) {
	kept, _ := objects.Deduplicate(objs)
	fs, problems, err := t.team.CheckAll(kept, decide)
	if err != nil {
		return nil, err
	}
	r.Problems = append(r.Problems, problems...)
	ignored := map[objects.Ref]map[string]bool{}
	for _, o := range kept {
		ignored[objects.RefOf(o)], _ = IgnoredRules(o, t.all)
	}
	out := fs[:0]
	for _, f := range fs {
		if !ignored[f.Object][f.Rule] {
			out = append(out, f)
		}
	}
	return out, nil
}

// read reads OLD and NEW.
func (d *Diff) read() (diff.Sides, error) {
	in := d.In
	switch {
	case d.Base != "":
		return diff.ReadBase(in, d.Base)
	case d.Cluster != nil:
		all, err := d.Policies.All()
		if err != nil {
			return diff.Sides{}, err
		}
		release, err := d.Policies.Chosen(all)
		if err != nil {
			return diff.Sides{}, err
		}
		return diff.ReadClusterChange(in, d.Cluster, release)
	}
	return diff.ReadOldNew(in, d.Old, d.New)
}

// upgrade judges In's objects, with the cluster's when it is read, under
// both releases.
func (d *Diff) upgrade() (DiffResult, error) {
	up, err := NewUpgrade(d.Policies, d.ToRelease, d.Engine)
	if err != nil {
		return DiffResult{}, err
	}
	// The team's rules are read first: a bad rule ends the run at once.
	from, team, err := d.teamRules(func() (*policyset.Set, error) { return up.all.Only(d.Engine).ForRelease(up.From) })
	if err != nil {
		return DiffResult{}, err
	}
	up.Compile()
	in := d.In
	if d.Cluster != nil {
		in.Cluster, in.Resources = d.Cluster, diff.LiveResources
	}
	got, err := input.Read(in)
	if err != nil {
		return DiffResult{}, err
	}
	r := DiffResult{Old: d.Sources + " on OME " + up.From, New: d.Sources + " on OME " + up.To, From: up.From, To: up.To, Problems: got.Problems}
	if len(got.Objects) == 0 {
		return r, nil
	}
	if err := objects.CheckTimestamps(got.Objects); err != nil {
		return r, err
	}
	d.comparing()
	// The team's rules first: comparing drops the objects' positions.
	var changes []diff.RuleChange
	if team != nil {
		to, err := up.all.Only(d.Engine).ForRelease(up.To)
		if err != nil {
			return r, err
		}
		if changes, err = team.judge(&r, got.Objects, got.Objects, Decider(d.Engine, from), Decider(d.Engine, to)); err != nil {
			return r, err
		}
	}
	r.Report, err = up.Report(got.Objects)
	if err == nil {
		r.Report.Rules = changes
	}
	return r, err
}

func (d *Diff) comparing() {
	if d.Comparing != nil {
		d.Comparing()
	}
}
