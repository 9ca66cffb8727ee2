package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
)

func newExplainCommand(g *globalOptions) *cobra.Command {
	var (
		models, runtimes []string
		modelName        string
		runtimeName      string
		engineName       string
		format           string
		noColor          bool
		cl               clusterOptions
	)
	cmd := &cobra.Command{
		Use:   "explain -m MODEL -r RUNTIME",
		Short: "Explain OME's verdict on a model and a runtime, check by check",
		Long: `explain prints OME's verdict on one model and one runtime and its reason text
(from the match policies, unchanged), then every check in words: the
runtime's own (disabled, model size), then each entry of
spec.supportedModelFormats: diffusion pipeline, architecture, quantization,
format and framework, with the names, whether each side sets a version, the
versions as parsed (numbers, parts, v, suffixes), what the entry's operator
means for these two versions, and a fix for each check that fails.

MODEL and RUNTIME are files, folders or - (as for match). When they hold
several models or runtimes, every pair is explained, unless --model-name or
--runtime-name picks one.

Exit codes: 0 every pair is compatible, 1 some pair is not, 2 bad input or
usage.`,
		Example: `  # Why does this runtime refuse this model?
  evaluate explain -m testdata/examples/models/more-models.yaml --model-name llama-3-2-3b-instruct-4-46 \
    -r testdata/examples/runtimes/srt-llama-3-2-3b-instruct.yaml

  # The same, as JSON
  evaluate explain -m model.yaml -r runtime.yaml -o json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkChoice("engine", engineName, engine.Names); err != nil {
				return err
			}
			if err := checkChoice("output", format, output.ExplainFormats); err != nil {
				return err
			}
			if !cl.enabled() && (len(models) == 0 || len(runtimes) == 0) {
				return badInput(fmt.Errorf("give a model with -m and a runtime with -r, or --cluster"))
			}
			ms, err := loadForExplain(g, cmd, &cl, models, live.Models, "-m", "model", modelName, (*objects.Object).IsModel)
			if err != nil {
				return err
			}
			rs, err := loadForExplain(g, cmd, &cl, runtimes, live.Runtimes, "-r", "runtime", runtimeName, (*objects.Object).IsRuntime)
			if err != nil {
				return err
			}
			set, err := g.policies()
			if err != nil {
				return badInput(err)
			}
			x, err := engine.NewExplainer(engineName, set)
			if err != nil {
				return badInput(err)
			}
			w, err := output.NewExplainWriter(format, cmd.OutOrStdout(), output.StyleFor(cmd.OutOrStdout(), noColor))
			if err != nil {
				return badInput(err)
			}
			var es []engine.Explanation
			refused := false
			for _, m := range ms {
				for _, r := range rs {
					e, err := x.Explain(m, r)
					if err != nil {
						return fmt.Errorf("model %s (%s) against runtime %s (%s): %w", m.Ref(), m.File, r.Ref(), r.File, err)
					}
					refused = refused || !e.Compatible
					es = append(es, e)
				}
			}
			if err := w.Write(es); err != nil {
				return err
			}
			if refused {
				return &silentExit{code: exitFindings}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVarP(&models, "models", "m", nil, "the model: a file, folder or - (repeatable)")
	cmd.Flags().StringArrayVarP(&runtimes, "runtimes", "r", nil, "the runtime: a file, folder or - (repeatable)")
	cmd.Flags().StringVar(&modelName, "model-name", "", "explain only the model of this name")
	cmd.Flags().StringVar(&runtimeName, "runtime-name", "", "explain only the runtime of this name")
	cmd.Flags().StringVar(&engineName, "engine", engine.CEL, "policy engine: "+strings.Join(engine.Names, ", "))
	cmd.Flags().StringVarP(&format, "output", "o", "text", "output format: "+strings.Join(output.ExplainFormats, ", "))
	cmd.Flags().BoolVar(&noColor, "no-color", false, "plain text even on a terminal (so does the NO_COLOR environment variable)")
	addClusterFlags(cmd, &cl)
	return cmd
}

// loadForExplain loads the objects for one flag, as match does but
// leniently, then refuses a field of the wrong type (which no verdict can be
// computed with) with a pointer to lint, and keeps the objects named name
// when name is given.
func loadForExplain(g *globalOptions, cmd *cobra.Command, cl *clusterOptions, paths []string, resources []live.Resource, flag, sort, name string, want func(*objects.Object) bool) ([]*objects.Object, error) {
	objs, err := cl.load(g, cmd, paths, resources, objects.LoadOptions{Stdin: g.stdin, Notices: cmd.ErrOrStderr(), Lenient: true, ModelFolders: flag == "-m"})
	if err != nil {
		return nil, err
	}
	var out []*objects.Object
	for _, o := range objs {
		if !want(o) {
			return nil, badInput(fmt.Errorf("%s:%d: %s is not a %s; %s takes %ss", o.File, o.Line, o.Ref(), sort, flag, sort))
		}
		if name != "" && o.Name != name {
			continue
		}
		if err := objects.CheckObject(o); err != nil {
			return nil, badInput(fmt.Errorf("%w (run evaluate lint on it to see every problem)", err))
		}
		out = append(out, o)
	}
	if len(out) == 0 {
		what := "no " + sort + " found"
		if name != "" {
			what = fmt.Sprintf("no %s named %q found", sort, name)
		}
		return nil, badInput(fmt.Errorf("%s: %s", sourceNames(flag, paths, cl), what))
	}
	return out, nil
}
