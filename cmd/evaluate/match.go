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
		in         inputOptions
		engineName string
		format     string
	)
	cmd := &cobra.Command{
		Use:   "match -f PATH... | -m PATH... -r PATH...",
		Short: "Say which runtimes accept which models, and why not",
		Long: `match evaluates every model (BaseModel, ClusterBaseModel) against every
runtime (ServingRuntime, ClusterServingRuntime) that OME pairs it with and
prints OME's verdict: the runtime is compatible, or OME's reason text, byte
for byte.

A runtime is compatible when it is not disabled, one of its
spec.supportedModelFormats entries accepts the model (format, framework,
versions and operators, architecture, quantization, diffusion pipeline), and
the model's spec.modelParameterSize lies within its spec.modelSizeRange.

Pairs are scoped as OME scopes them: a ClusterServingRuntime pairs with
every model; a ServingRuntime with the BaseModels of its own namespace and
with every ClusterBaseModel. A BaseModel and a ServingRuntime of another
namespace never meet in OME, so that pair is left out, and the summary
counts what was left out. A namespaced object without metadata.namespace is
in -n's namespace (default "default"), as kubectl apply would put it.

-f takes any mix of objects (multi-document YAML, kind: List, typed lists
such as ServingRuntimeList, a kubectl dump); match keeps the models and
runtimes and counts the rest in a notice. A folder given with -f is read
without its folders unless -R is given. -m and -r take only models and only
runtimes, and read folders with their folders. A folder that directly holds
a Hugging Face config.json, or a diffusers model_index.json, is read as one
ClusterBaseModel named after the folder, with the format, framework,
versions, architecture, quantization and diffusion pipeline that OME would
fill in from those files.

An object that cannot be read (YAML that does not parse, a template, a
field of the wrong type) is reported with its file, line and field after
the results; every other object is still evaluated, and the exit code is 2.

With --cluster (implied by every cluster flag but -n, -A and --request-timeout) the objects also come
from a running cluster, read as kubectl reads it: BaseModels, ServingRuntimes
of the namespace (-n, default the context's; -A for all) and every
ClusterBaseModel and ClusterServingRuntime.

Exit codes: 0 every model has a compatible runtime (or the input holds no
model: a notice, unless --fail-on-empty), 1 some model has none, 2 bad
input or usage.`,
		Example: `  # A table per model
  evaluate match -f testdata/examples/models -f testdata/examples/runtimes

  # A kubectl dump of a whole cluster, every namespace
  kubectl get basemodels,clusterbasemodels,servingruntimes,clusterservingruntimes -A -o yaml > all.yaml
  evaluate match -f all.yaml

  # Model folders holding Hugging Face config.json files, against a catalog
  evaluate match -m testdata/catalog/models -r testdata/catalog/runtimes

  # Machine-readable, with each entry's differences
  evaluate match -f model.yaml -f runtimes/ -o json

  # Files without a namespace, as they would be applied to team-a
  evaluate match -n team-a -f models/ -f runtimes/

  # Models from standard input, on both engines (any disagreement is an error)
  cat models.yaml | evaluate match -m - -r runtimes/ --engine both

  # The models and runtimes of a cluster (kubectl's kubeconfig and context)
  evaluate match --cluster -n llama-demo

  # A new model against the runtimes a cluster has
  evaluate match -f model.yaml --context prod`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !in.given() {
				return badInput(fmt.Errorf("give the models and runtimes with -f (or -m and -r), or --cluster"))
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
			input, err := in.read(g, cmd, live.ModelsAndRuntimes, false, nil)
			if err != nil {
				return err
			}
			objs := pick(cmd, input.Objects, "match", "models and runtimes", func(o *objects.Object) bool { return o.IsModel() || o.IsRuntime() })
			ms, rs := only(objs, (*objects.Object).IsModel), only(objs, (*objects.Object).IsRuntime)
			// Without models, or without runtimes because none could be
			// read, there is nothing to tell.
			if len(ms) == 0 || len(rs) == 0 && len(input.Problems) > 0 {
				reportProblems(cmd, input.Problems)
				if len(input.Problems) > 0 {
					return exitAfter(input.Problems, false)
				}
				what := "models"
				if len(input.Objects) == 0 {
					what = "OME objects"
				}
				return in.empty(cmd, what)
			}
			for _, mo := range ms {
				if note := objects.ConfigParsingNotice(mo); note != "" {
					fmt.Fprintln(cmd.ErrOrStderr(), note)
				}
			}
			// Matching reads values only: the positions of every field, kept
			// for messages about bad input, are dropped, so that the heap the
			// collector scans over and over is the engine's own.
			for _, o := range objs {
				o.Pos = nil
			}
			c := <-ready
			if c.err != nil {
				return c.err
			}
			w, err := output.NewMatchWriter(format, cmd.OutOrStdout())
			if err != nil {
				return badInput(err)
			}
			if err := w.Begin(ms, rs); err != nil {
				return err
			}
			unserved := false
			leftOut, err := engine.MatchObjects(c.m, ms, rs, func(mo *objects.Object, results []engine.Result) error {
				served := false
				for _, r := range results {
					served = served || r.Compatible
				}
				unserved = unserved || !served
				return w.Model(objects.RefOf(mo), results)
			})
			if err != nil {
				return err
			}
			if err := w.End(output.MatchSummary{LeftOut: leftOut, Problems: output.Problems(input.Problems)}); err != nil {
				return err
			}
			reportProblems(cmd, input.Problems)
			return exitAfter(input.Problems, unserved)
		},
	}
	addInputFlags(cmd, &in, true)
	addEngineFlag(cmd, &engineName, engine.CEL)
	addFormatFlag(cmd, &format, output.MatchFormats)
	return cmd
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
