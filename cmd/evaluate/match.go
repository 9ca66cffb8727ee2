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

func newMatchCommand(g *globalOptions) *cobra.Command {
	var (
		models, runtimes []string
		engineName       string
		format           string
		cl               clusterOptions
	)
	cmd := &cobra.Command{
		Use:   "match -m PATH... -r PATH...",
		Short: "Say which runtimes accept which models, and why not",
		Long: `match evaluates every model (BaseModel, ClusterBaseModel) against every
runtime (ServingRuntime, ClusterServingRuntime) and prints OME's verdict: the
runtime is compatible, or OME's reason text, byte for byte.

A runtime is compatible when it is not disabled, one of its
spec.supportedModelFormats entries accepts the model (format, framework,
versions and operators, architecture, quantization, diffusion pipeline), and
the model's spec.modelParameterSize lies within its spec.modelSizeRange.

With --cluster (implied by --kubeconfig and --context) the objects also come
from a running cluster, read as kubectl reads it: BaseModels, ServingRuntimes
of the namespace (-n, default the context's; -A for all) and every
ClusterBaseModel and ClusterServingRuntime.

PATH is a file, a folder (read recursively: *.yaml, *.yml, *.json) or - for
standard input; multi-document YAML and kind: List are read. Other kinds are
skipped with a notice on standard error.

With -m, a model folder (a folder that directly holds a Hugging Face
config.json, or a diffusers model_index.json) is read as one ClusterBaseModel
named after the folder, with the format, framework, versions, architecture,
quantization and diffusion pipeline that OME would fill in from those files.
A folder of model folders works too.

Exit codes: 0 every model has a compatible runtime, 1 some model has none,
2 bad input or usage.`,
		Example: `  # A table per model
  evaluate match -m testdata/examples/models -r testdata/examples/runtimes

  # Model folders holding Hugging Face config.json files, against a catalog
  evaluate match -m testdata/catalog/models -r testdata/catalog/runtimes

  # Machine-readable, with each entry's differences
  evaluate match -m model.yaml -r runtimes/ -o json

  # Models from standard input, on both engines (any disagreement is an error)
  cat models.yaml | evaluate match -m - -r runtimes/ --engine both

  # The models and runtimes of a cluster (kubectl's kubeconfig and context)
  evaluate match --cluster -n llama-demo

  # A new model against the runtimes a cluster has
  evaluate match -m model.yaml --context prod`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkChoice("engine", engineName, engine.Names); err != nil {
				return err
			}
			if err := checkChoice("output", format, output.MatchFormats); err != nil {
				return err
			}
			if !cl.enabled() && (len(models) == 0 || len(runtimes) == 0) {
				return badInput(fmt.Errorf("give models with -m and runtimes with -r, or --cluster"))
			}
			// The policies compile while the files load.
			type compiled struct {
				m   engine.Matcher
				err error
			}
			ready := make(chan compiled, 1)
			go func() {
				set, err := g.policies()
				if err != nil {
					ready <- compiled{nil, badInput(err)}
					return
				}
				m, err := engine.New(engineName, set)
				if err != nil {
					err = badInput(err)
				}
				ready <- compiled{m, err}
			}()
			ms, rs, err := loadModelsAndRuntimes(g, cmd, &cl, models, runtimes)
			if err != nil {
				return err
			}
			// Matching reads values only: the positions of every field, kept
			// for messages about bad input, are dropped, so that the heap the
			// collector scans over and over is the engine's own.
			for _, o := range ms {
				o.Pos = nil
			}
			for _, o := range rs {
				o.Pos = nil
			}
			c := <-ready
			if c.err != nil {
				return c.err
			}
			m := c.m
			w, err := output.NewMatchWriter(format, cmd.OutOrStdout())
			if err != nil {
				return badInput(err)
			}
			if err := w.Begin(ms, rs); err != nil {
				return err
			}
			served := map[engine.Ref]bool{}
			err = engine.MatchObjects(m, ms, rs, func(r engine.Result) error {
				if r.Compatible {
					served[r.Model] = true
				}
				return w.Result(r)
			})
			if err != nil {
				return err
			}
			if err := w.End(); err != nil {
				return err
			}
			for _, mo := range ms {
				if !served[objects.RefOf(mo)] {
					return &silentExit{code: exitFindings}
				}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVarP(&models, "models", "m", nil, "models: a file, folder or - (repeatable)")
	cmd.Flags().StringArrayVarP(&runtimes, "runtimes", "r", nil, "runtimes: a file, folder or - (repeatable)")
	cmd.Flags().StringVar(&engineName, "engine", engine.CEL, "policy engine: "+strings.Join(engine.Names, ", "))
	cmd.Flags().StringVarP(&format, "output", "o", "text", "output format: "+strings.Join(output.MatchFormats, ", "))
	addClusterFlags(cmd, &cl)
	return cmd
}

// loadModelsAndRuntimes loads the models of -m (with a notice for each
// model folder whose config.json OME would not fully read) and the
// runtimes of -r, as match and report take them.
func loadModelsAndRuntimes(g *globalOptions, cmd *cobra.Command, cl *clusterOptions, models, runtimes []string) (ms, rs []*objects.Object, err error) {
	ms, err = loadSort(g, cmd, cl, models, live.Models, "-m", "model", (*objects.Object).IsModel)
	if err != nil {
		return nil, nil, err
	}
	for _, mo := range ms {
		if note := objects.ConfigParsingNotice(mo); note != "" {
			fmt.Fprintln(cmd.ErrOrStderr(), note)
		}
	}
	rs, err = loadSort(g, cmd, cl, runtimes, live.Runtimes, "-r", "runtime", (*objects.Object).IsRuntime)
	if err != nil {
		return nil, nil, err
	}
	return ms, rs, nil
}

// loadSort loads the objects for one flag (and, with --cluster, the
// cluster's resources of that sort), and refuses any recognised object that
// belongs to another flag, and a flag that yields nothing.
func loadSort(g *globalOptions, cmd *cobra.Command, cl *clusterOptions, paths []string, resources []live.Resource, flag, sort string, want func(*objects.Object) bool) ([]*objects.Object, error) {
	objs, err := cl.load(g, cmd, paths, resources, objects.LoadOptions{Stdin: g.stdin, Notices: cmd.ErrOrStderr(), ModelFolders: flag == "-m"})
	if err != nil {
		return nil, err
	}
	var out []*objects.Object
	for _, o := range objs {
		if !want(o) {
			return nil, badInput(fmt.Errorf("%s:%d: %s is not a %s; %s takes %ss", o.File, o.Line, o.Ref(), sort, flag, sort))
		}
		out = append(out, o)
	}
	if len(out) == 0 {
		return nil, badInput(fmt.Errorf("%s: no %s found", sourceNames(flag, paths, cl), sort))
	}
	return out, nil
}

// sourceNames names where objects were looked for, for "none found".
func sourceNames(flag string, paths []string, cl *clusterOptions) string {
	var parts []string
	if len(paths) > 0 {
		parts = append(parts, flag+" "+strings.Join(paths, " "))
	}
	if cl.enabled() {
		parts = append(parts, "the cluster")
	}
	return strings.Join(parts, " and ")
}
