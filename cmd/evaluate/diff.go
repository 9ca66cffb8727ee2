package main

import (
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/diff"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
)

// The values of diff's --fail-on.
const (
	failOnRegressions = "regressions"
	failOnChanges     = "changes"
	failOnNever       = "never"
)

var failOnChoices = []string{failOnRegressions, failOnChanges, failOnNever}

func newDiffCommand(g *globalOptions) *cobra.Command {
	var (
		in         inputOptions
		engineName string
		format     string
		base       string
		failOn     string
	)
	cmd := &cobra.Command{
		Use:   "diff OLD NEW | --base REF PATH... | --cluster -f PATH...",
		Short: "Say what a change does: runtimes gained and lost, InferenceServices moved or refused",
		Long: `diff compares the objects before a change (OLD) with the objects after it
(NEW), each any mix of models, runtimes and InferenceServices, and says what
the change does to OME's decisions, on the engine chosen (--engine both runs
the two and fails on any disagreement):

- the models left with no compatible runtime, first;
- per model, the runtimes it gains, and the runtimes it loses with OME's
  reason text after the change;
- per InferenceService, the runtime OME's webhook selects before and after
  (with its score and scope), or that it is now refused, with OME's message;
- in one line, the objects added, removed or changed that move no decision.

Pairs are scoped as OME scopes them (a BaseModel never meets the
ServingRuntimes of another namespace). Only what the change touches is
evaluated again: the pairs of a model or runtime whose spec changed, and the
InferenceServices whose model, or any runtime OME looks at for them, changed.

Where OLD and NEW come from:

  evaluate diff OLD NEW              two files or folders (read with their folders)
  evaluate diff --base REF PATH...   OLD is PATH as git has it at REF (a branch,
                                     tag or commit), NEW is PATH as it is now
  evaluate diff --cluster -f PATH... OLD is the cluster (kubectl's flags: the
                                     context's namespace, -n, or -A), NEW is the
                                     cluster with the files applied as the API
                                     server would store them: CRD defaults
                                     filled in, an object of the same kind,
                                     namespace and name replaced (keeping its
                                     creationTimestamp)

-f adds files to NEW (with --base, also to OLD). An object that cannot be
read is reported with its file (REF:PATH for --base), line and field after
the report, and the exit code is 2.

Outputs (-o): text; json; markdown, a pull request's comment (a summary
table, then the details in <details> blocks); github, annotations on the
changed runtime's file and line.

Exit codes: 0 no regression: no model lost its last runtime (nor is new
without one), no InferenceService changed runtime or became refused; 1 a
regression (--fail-on=changes: any decision changed; --fail-on=never:
never); 2 bad input or usage.`,
		Example: `  # Two versions of a deploy folder
  evaluate diff deploy-main/ deploy/

  # What this branch does, against main (in a pull request's CI job)
  evaluate diff --base origin/main deploy/ -o markdown > comment.md

  # What applying these files would do to the cluster (kubectl's context)
  evaluate diff --cluster -f runtimes/vllm.yaml -A

  # Fail on any change of decision, not only on regressions
  evaluate diff --base HEAD~1 deploy/ --fail-on=changes`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkChoice("engine", engineName, engine.Names); err != nil {
				return err
			}
			if err := checkChoice("output", format, output.DiffFormats); err != nil {
				return err
			}
			if err := checkChoice("fail-on", failOn, failOnChoices); err != nil {
				return err
			}
			inCluster := in.cluster.enabled()
			paths := append(append([]string{}, args...), in.files...)
			switch {
			case base != "" && inCluster:
				return badInput(fmt.Errorf("--base and --cluster compare with different things: give one"))
			case base != "" || inCluster:
				if len(paths) == 0 {
					return badInput(fmt.Errorf("give the files of the change: PATH... or -f PATH"))
				}
			case len(args) != 2 || len(in.files) > 0:
				return badInput(fmt.Errorf("give OLD and NEW, or --base REF PATH..., or --cluster -f PATH... (got %d argument(s))", len(args)))
			}
			defer noMemoryLimit()()
			type compiled struct {
				m   engine.Matcher
				s   engine.Selector
				err error
			}
			ready := make(chan compiled, 1)
			go func() {
				set, err := g.policies()
				if err != nil {
					ready <- compiled{err: badInput(err)}
					return
				}
				m, err := engine.New(engineName, set)
				if err != nil {
					ready <- compiled{err: badInput(err)}
					return
				}
				s, err := engine.NewSelector(engineName, set)
				if err != nil {
					err = badInput(err)
				}
				ready <- compiled{m, s, err}
			}()
			var (
				old, new []*objects.Object
				sides    output.DiffSides
				problems []*objects.InputError
				err      error
			)
			switch {
			case base != "":
				old, new, problems, sides, err = readBase(g, cmd, &in, base, args)
			case inCluster:
				old, new, problems, sides, err = readCluster(g, cmd, &in, paths)
			default:
				old, new, problems, sides, err = readOldNew(g, cmd, &in, args[0], args[1])
			}
			if err != nil {
				return err
			}
			if len(old)+len(new) == 0 {
				reportProblems(cmd, problems)
				if len(problems) > 0 {
					return exitAfter(problems, false)
				}
				return in.empty(cmd, "OME objects")
			}
			for _, side := range [][]*objects.Object{old, new} {
				if err := objects.CheckTimestamps(side); err != nil {
					return badInput(err)
				}
			}
			c := <-ready
			if c.err != nil {
				return c.err
			}
			report, err := diff.Compute(c.m, c.s, old, new)
			if err != nil {
				return err
			}
			w, err := output.NewDiffWriter(format, cmd.OutOrStdout())
			if err != nil {
				return badInput(err)
			}
			sides.Problems = output.Problems(problems)
			if err := w.Write(report, sides); err != nil {
				return err
			}
			reportProblems(cmd, problems)
			fail := false
			switch failOn {
			case failOnRegressions:
				fail = report.Regressions() > 0
			case failOnChanges:
				fail = report.Changes() > 0
			}
			return exitAfter(problems, fail)
		},
	}
	addInputFlags(cmd, &in, false)
	cmd.Flags().StringVar(&base, "base", "", "OLD is PATH... as git has it at this commit, branch or tag (NEW: PATH... now)")
	cmd.Flags().StringVar(&failOn, "fail-on", failOnRegressions, "exit 1 on: "+strings.Join(failOnChoices, ", "))
	cmd.Flags().StringVar(&engineName, "engine", engine.CEL, "policy engine: "+strings.Join(engine.Names, ", "))
	cmd.Flags().StringVarP(&format, "output", "o", "text", "output format: "+strings.Join(output.DiffFormats, ", "))
	return cmd
}

// noMemoryLimit lifts main's memory limit for diff, which holds both
// sides' objects and verdicts the whole run: under the limit the collector
// would run without pause. The heap may still grow to four times what is
// live (main's GOGC), which keeps collections few. GOMEMLIMIT still
// decides. It returns what puts the limit back.
func noMemoryLimit() (restore func()) {
	limit := debug.SetMemoryLimit(-1)
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(math.MaxInt64)
	}
	return func() { debug.SetMemoryLimit(limit) }
}

// readSide reads paths (with their folders) and -f's files as one side.
func readSide(g *globalOptions, cmd *cobra.Command, in *inputOptions, paths, files []string) (*objects.Input, error) {
	side := inputOptions{paths: paths, files: files, recursive: in.recursive, cluster: in.cluster}
	return side.read(g, cmd, nil, false, nil)
}

// readOldNew reads OLD and NEW.
func readOldNew(g *globalOptions, cmd *cobra.Command, in *inputOptions, oldPath, newPath string) (old, new []*objects.Object, problems []*objects.InputError, sides output.DiffSides, err error) {
	o, err := readSide(g, cmd, in, []string{oldPath}, nil)
	if err != nil {
		return nil, nil, nil, sides, err
	}
	n, err := readSide(g, cmd, in, []string{newPath}, nil)
	if err != nil {
		return nil, nil, nil, sides, err
	}
	return deduplicate(cmd, o.Objects), deduplicate(cmd, n.Objects), append(o.Problems, n.Problems...),
		output.DiffSides{Old: oldPath, New: newPath}, nil
}

// readCluster reads the cluster as OLD, and NEW as the cluster with the
// files applied, as the API server would store them: the defaults of OME's
// CRDs filled in; an object of the same kind, namespace and name replaced
// (keeping the cluster's creationTimestamp), a new one added (created now).
func readCluster(g *globalOptions, cmd *cobra.Command, in *inputOptions, paths []string) (old, new []*objects.Object, problems []*objects.InputError, sides output.DiffSides, err error) {
	live := &objects.Input{}
	if err := in.cluster.readInto(cmd, liveDiffResources, live, objects.ReadOptions{}); err != nil {
		return nil, nil, nil, sides, err
	}
	// Files without a namespace go where kubectl diff would put them: -n,
	// else the context's namespace.
	side := inputOptions{paths: paths, recursive: in.recursive, cluster: in.cluster}
	ns := in.cluster.client.Namespace()
	side.cluster.flags.Namespace = &ns
	files, err := side.read(g, cmd, nil, false, nil)
	if err != nil {
		return nil, nil, nil, sides, err
	}
	old = deduplicate(cmd, live.Objects)
	applied := deduplicate(cmd, files.Objects)
	// The API server fills in what OME's CRDs default: without it, a file
	// that says what the cluster holds would differ from it.
	for i, o := range applied {
		if applied[i], err = objects.WithCRDDefaults(o); err != nil {
			return nil, nil, nil, sides, err
		}
	}
	new = applyObjects(old, applied, time.Now().UTC())
	for _, o := range applied {
		if o.Namespace != "" && o.Namespace != ns && !in.cluster.allNamespaces {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s:%d: notice: %s is in namespace %s, which was not read (the cluster was read in %s): it counts as new; -A reads every namespace\n",
				o.File, o.Line, o.Ref(), o.Namespace, ns)
		}
	}
	sides = output.DiffSides{Old: "the cluster", New: "the cluster with " + strings.Join(paths, ", ") + " applied"}
	return old, new, append(live.Problems, files.Problems...), sides, nil
}

// liveDiffResources are what diff reads of a cluster: every OME resource.
var liveDiffResources = append(append([]live.Resource{}, live.ModelsAndRuntimes...), live.InferenceServices)

// applyObjects is the cluster after the files are applied: each file
// object replaces the cluster's of the same kind, namespace and name, in
// its place, with the cluster's metadata.creationTimestamp (the API server
// keeps it); the others are added after, created at now.
func applyObjects(cluster, files []*objects.Object, now time.Time) []*objects.Object {
	byRef := map[objects.Ref]*objects.Object{}
	for _, o := range files {
		byRef[objects.RefOf(o)] = o
	}
	out := make([]*objects.Object, 0, len(cluster)+len(files))
	for _, o := range cluster {
		f := byRef[objects.RefOf(o)]
		if f == nil {
			out = append(out, o)
			continue
		}
		delete(byRef, objects.RefOf(o))
		meta, _ := o.Value["metadata"].(map[string]any)
		out = append(out, withCreationTimestamp(f, meta["creationTimestamp"]))
	}
	for _, o := range files {
		if byRef[objects.RefOf(o)] != nil {
			out = append(out, withCreationTimestamp(o, now.Format(time.RFC3339)))
		}
	}
	return out
}

// withCreationTimestamp is o with metadata.creationTimestamp set to ts (a
// copy; o itself is unchanged); o when ts is nil.
func withCreationTimestamp(o *objects.Object, ts any) *objects.Object {
	if ts == nil {
		return o
	}
	c := *o
	c.Value = make(map[string]any, len(o.Value))
	for k, v := range o.Value {
		c.Value[k] = v
	}
	meta, _ := o.Value["metadata"].(map[string]any)
	m := make(map[string]any, len(meta)+1)
	for k, v := range meta {
		m[k] = v
	}
	m["creationTimestamp"] = ts
	c.Value["metadata"] = m
	return &c
}
