package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
)

// explainOptions are explain's flags.
type explainOptions struct {
	in          inputOptions
	modelName   string
	runtimeName string
	engineName  string
	format      string
	noColor     bool
}

func newExplainCommand(g *globalOptions) *cobra.Command {
	o := &explainOptions{}
	cmd := &cobra.Command{
		Use:     "explain [PATH...] [-f PATH...] [-m MODEL -r RUNTIME]",
		Short:   "Explain OME's verdict on a model and a runtime, check by check",
		Long:    helpText("explain"),
		Example: exampleText("explain"),
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	addInputFlags(cmd, &o.in, true)
	takePathArgs(cmd, &o.in)
	cmd.Flags().StringVar(&o.modelName, "model-name", "", "explain only the model of this name")
	cmd.Flags().StringVar(&o.runtimeName, "runtime-name", "", "explain only the runtime of this name")
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addReleaseFlag(cmd, g)
	addFormatFlag(cmd, &o.format, output.ExplainFormats)
	cmd.Flags().BoolVar(&o.noColor, "no-color", false, "plain text even on a terminal (so does the NO_COLOR environment variable)")
	return cmd
}

// run reads the models and runtimes, pairs them as OME does, explains each
// pair and writes the explanations, then the problems of the input.
func (o *explainOptions) run(cmd *cobra.Command, g *globalOptions) error {
	if !o.in.given() {
		return badInput(fmt.Errorf("give a model and a runtime with -f (or -m and -r), or --cluster"))
	}
	input, err := o.in.read(g, cmd, live.ModelsAndRuntimes, false, nil)
	if err != nil {
		return err
	}
	objs := pick(cmd, input.Objects, "explain", "models and runtimes", func(o *objects.Object) bool { return o.IsModel() || o.IsRuntime() })
	ms := named(only(objs, (*objects.Object).IsModel), o.modelName)
	rs := named(only(objs, (*objects.Object).IsRuntime), o.runtimeName)
	pairs := scopedPairs(cmd, ms, rs)
	if len(pairs) == 0 {
		reportProblems(cmd, input.Problems)
		why := missingPair(len(ms), len(rs), o.modelName, o.runtimeName)
		if len(input.Problems) > 0 {
			why += " (evaluate lint on the files tells every problem of each object)"
		}
		return badInput(fmt.Errorf("%s: nothing to explain: %s", o.in.sources(), why))
	}
	es, refused, err := o.explain(g, pairs)
	if err != nil {
		return err
	}
	set, err := g.policies(o.engineName)
	if err != nil {
		return badInput(err)
	}
	w, err := output.NewExplainWriter(o.format, cmd.OutOrStdout(), output.StyleFor(cmd.OutOrStdout(), o.noColor), set.Release)
	if err != nil {
		return badInput(err)
	}
	if err := w.Write(es, output.Problems(input.Problems)); err != nil {
		return err
	}
	reportProblems(cmd, input.Problems)
	return exitAfter(input.Problems, refused)
}

// scopedPairs pairs every model with every runtime OME pairs it with
// (objects.InScope), with a notice of how many pairs it left out.
func scopedPairs(cmd *cobra.Command, ms, rs []*objects.Object) [][2]*objects.Object {
	var pairs [][2]*objects.Object
	leftOut := 0
	for _, m := range ms {
		for _, r := range rs {
			if objects.InScope(m, r) {
				pairs = append(pairs, [2]*objects.Object{m, r})
			} else {
				leftOut++
			}
		}
	}
	if leftOut > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "notice: %d pair(s) left out, which OME never considers (a BaseModel and a ServingRuntime of another namespace)\n", leftOut)
	}
	return pairs
}

// explain compiles the policies and explains each pair; refused says
// whether some pair is not compatible.
func (o *explainOptions) explain(g *globalOptions, pairs [][2]*objects.Object) (es []engine.Explanation, refused bool, err error) {
	set, err := g.policies(o.engineName)
	if err != nil {
		return nil, false, badInput(err)
	}
	x, err := engine.NewExplainer(o.engineName, set)
	if err != nil {
		return nil, false, badInput(err)
	}
	for _, p := range pairs {
		m, r := p[0], p[1]
		e, err := x.Explain(m, r)
		if err != nil {
			return nil, false, fmt.Errorf("model %s (%s) against runtime %s (%s): %w", m.Ref(), m.File, r.Ref(), r.File, err)
		}
		refused = refused || !e.Compatible
		es = append(es, e)
	}
	return es, refused, nil
}

// named keeps the objects named name (all of them when name is "").
func named(objs []*objects.Object, name string) []*objects.Object {
	if name == "" {
		return objs
	}
	return only(objs, func(o *objects.Object) bool { return o.Name == name })
}

// missingPair says why explain has no pair.
func missingPair(models, runtimes int, modelName, runtimeName string) string {
	switch {
	case models == 0 && modelName != "":
		return fmt.Sprintf("no model named %q found", modelName)
	case models == 0:
		return "no model found (give one with -f or -m)"
	case runtimes == 0 && runtimeName != "":
		return fmt.Sprintf("no runtime named %q found", runtimeName)
	case runtimes == 0:
		return "no runtime found (give one with -f or -r)"
	}
	return "OME never pairs these models with these runtimes (a BaseModel and a ServingRuntime of another namespace)"
}
