package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/engine/answer"
	"github.com/ome-policy/evaluator/engine/policyset"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/objects/crdschema"
	"github.com/ome-policy/evaluator/output"
)

// selectOptions are select's flags.
type selectOptions struct {
	in         inputOptions
	engineName string
	format     string
	strict     bool
}

func newSelectCommand(g *globalOptions) *cobra.Command {
	o := &selectOptions{}
	cmd := &cobra.Command{
		Use:     "select [PATH...] [-f PATH...] [-m PATH...] [-r PATH...]",
		Short:   "Say what OME's webhook will do with each InferenceService",
		Long:    helpText("select"),
		Example: exampleText("select"),
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	addInputFlags(cmd, &o.in, true)
	takePathArgs(cmd, &o.in)
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addReleaseFlag(cmd, g)
	addFormatFlag(cmd, &o.format, output.SelectFormats)
	cmd.Flags().BoolVar(&o.strict, "strict-named-runtime", false, "reject an InferenceService whose named runtime OME's controller would refuse")
	return cmd
}

// run reads the InferenceServices and the cluster's models and runtimes,
// decides on each InferenceService as OME's webhook does, and writes the
// decisions, then the problems of the input.
func (o *selectOptions) run(cmd *cobra.Command, g *globalOptions) error {
	if !o.in.given() {
		return badInput(fmt.Errorf("give the InferenceServices, models and runtimes: files, folders, -f (-m and -r for models and runtimes), - or --cluster"))
	}
	// From the cluster: its InferenceServices only when no file gives
	// any, so that -f isvc.yaml --cluster checks the file's
	// InferenceServices against the cluster's models and runtimes.
	input, err := o.in.read(g, cmd, live.ModelsAndRuntimes, false, nil)
	if err != nil {
		return err
	}
	if err := readClusterServices(cmd, &o.in, input); err != nil {
		return err
	}
	services, cluster := splitServices(input.Objects)
	if len(services) == 0 {
		return o.in.nothingToTell(cmd, input, "InferenceServices")
	}
	if err := objects.CheckTimestamps(cluster); err != nil {
		return badInput(err)
	}
	fitMemoryLimit()
	noteConfigParsing(cmd, cluster)
	results, rejected, err := o.decide(cmd, g, services, cluster)
	if err != nil {
		return err
	}
	set, err := g.policies(o.engineName)
	if err != nil {
		return badInput(err)
	}
	w, err := output.NewSelectWriter(o.format, cmd.OutOrStdout(), set.Release)
	if err != nil {
		return badInput(err)
	}
	if err := w.Write(results, output.Problems(input.Problems)); err != nil {
		return err
	}
	reportProblems(cmd, input.Problems)
	return exitAfter(input.Problems, rejected)
}

// splitServices puts the InferenceServices apart from the other objects.
func splitServices(objs []*objects.Object) (services, others []*objects.Object) {
	for _, o := range objs {
		if o.Kind == objects.KindInferenceService {
			services = append(services, o)
		} else {
			others = append(others, o)
		}
	}
	return services, others
}

// decide compiles the selection policies and decides on each
// InferenceService; with --strict-named-runtime, a warning about the named
// runtime rejects it. rejected says whether any was rejected.
func (o *selectOptions) decide(cmd *cobra.Command, g *globalOptions, services, cluster []*objects.Object) (results []output.SelectResult, rejected bool, err error) {
	set, err := g.policies(o.engineName)
	if err != nil {
		return nil, false, badInput(err)
	}
	sel, err := engine.NewSelector(o.engineName, set)
	if err != nil {
		return nil, false, badInput(err)
	}
	// OME decides on the objects as its API server stores them, without
	// the fields their CRDs lack in the release; the lint rules about what
	// a release does not read say so of each InferenceService.
	cluster = pruned(set.Release, cluster)
	notices := &unreadNotices{engineName: o.engineName, set: set}
	for _, isvc := range services {
		if err := notices.note(cmd, isvc); err != nil {
			return nil, false, err
		}
		isvc = pruned(set.Release, []*objects.Object{isvc})[0]
		d, err := sel.Select(isvc, cluster)
		if err != nil {
			return nil, false, fmt.Errorf("%s (%s:%d): %w", isvc.Ref(), isvc.File, isvc.Line, err)
		}
		if o.strict && len(d.Warnings) > 0 && d.Admitted {
			d.Admitted = false
			d.Message = strings.Join(d.Warnings, "; ")
		}
		rejected = rejected || !d.Admitted
		results = append(results, output.SelectResult{InferenceService: objects.RefOf(isvc), Decision: d})
	}
	return results, rejected, nil
}

// selectNotices are the lint rules that select says of an InferenceService
// in a notice: what the release does not read of it.
var selectNotices = map[string]bool{answer.RuleUnreadField: true, "unknown-deployment-mode": true}

// unreadNotices says in a notice each field of an InferenceService that
// the release's API server drops, and each deployment mode the release
// does not know: the findings of those lint rules. The lint policies are
// compiled on the first InferenceService that has a field or an
// annotation for them to look at.
type unreadNotices struct {
	engineName string
	set        *policyset.Set
	lint       engine.Linter
}

func (n *unreadNotices) note(cmd *cobra.Command, isvc *objects.Object) error {
	lacked, err := crdschema.LackedFields(isvc, n.set.Release)
	if err != nil {
		return err
	}
	if len(lacked) == 0 && !hasDeploymentMode(isvc) {
		return nil
	}
	if n.lint == nil {
		if n.lint, err = engine.NewLinter(n.engineName, n.set); err != nil {
			return badInput(err)
		}
	}
	fs, err := n.lint.Object(isvc)
	if err != nil {
		return err
	}
	for _, f := range fs {
		if selectNotices[f.Rule] {
			fmt.Fprintf(cmd.ErrOrStderr(), "%s:%d: notice: %s: %s: %s\n", f.File, f.Line, isvc.Ref(), f.Field, f.Message)
		}
	}
	return nil
}

// hasDeploymentMode says whether the InferenceService's engine or decoder
// has the annotation ome.io/deploymentMode.
func hasDeploymentMode(isvc *objects.Object) bool {
	for _, c := range []string{"engine", "decoder"} {
		component, _ := isvc.Spec()[c].(map[string]any)
		annotations, _ := component["annotations"].(map[string]any)
		if _, ok := annotations["ome.io/deploymentMode"]; ok {
			return true
		}
	}
	return false
}

// pruned are objs as the release's API server stores them, without the
// fields their CRDs lack (crdschema.Pruned).
func pruned(release string, objs []*objects.Object) []*objects.Object {
	out := make([]*objects.Object, len(objs))
	for i, o := range objs {
		p, _, err := crdschema.Pruned(o, release)
		if err != nil {
			p = o
		}
		out[i] = p
	}
	return out
}
