package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/results"
	"github.com/ome-policy/evaluator/runner"
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
	got, err := o.in.read(cmd, live.ModelsAndRuntimes, false, nil)
	if err != nil {
		return err
	}
	objs := pick(cmd, got.Objects, "explain", "models and runtimes", func(o *objects.Object) bool { return o.IsModel() || o.IsRuntime() })
	set, err := g.For(o.engineName)
	if err != nil {
		return badInput(err)
	}
	pairs, notice, why := runner.ExplainPairs(objs, o.modelName, o.runtimeName)
	if notice != "" {
		fmt.Fprintln(cmd.ErrOrStderr(), notice)
	}
	if len(pairs) == 0 {
		reportProblems(cmd, got.Problems)
		if len(got.Problems) > 0 {
			why += " (evaluate lint on the files tells every problem of each object)"
		}
		if machineReadable(o.format) {
			if err := output.WriteNoExplanations(o.format, cmd.OutOrStdout(), set.Release, got.Problems); err != nil {
				return err
			}
		}
		return badInput(fmt.Errorf("%s: nothing to explain: %s", o.in.sources(), why))
	}
	es, refused, err := runner.Explain(o.engineName, set, pairs)
	if err != nil {
		return err
	}
	if err := runner.ExplainTies(o.engineName, set, objs, es); err != nil {
		return err
	}
	w, err := output.NewExplainWriter(o.format, cmd.OutOrStdout(), output.StyleFor(cmd.OutOrStdout(), o.noColor), set.Release)
	if err != nil {
		return badInput(err)
	}
	if err := w.Write(es, results.Problems(got.Problems)); err != nil {
		return err
	}
	reportProblems(cmd, got.Problems)
	return exitAfter(got.Problems, refused)
}
