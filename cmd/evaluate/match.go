package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
)

// matchLong is the help of match.
const matchLong = `match evaluates every model (BaseModel, ClusterBaseModel) against every
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
input or usage.`

// matchExample are the examples of match.
const matchExample = `  # A table per model
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
  evaluate match -f model.yaml --context prod`

// matchOptions are match's flags.
type matchOptions struct {
	in         inputOptions
	engineName string
	format     string
}

func newMatchCommand(g *globalOptions) *cobra.Command {
	o := &matchOptions{}
	cmd := &cobra.Command{
		Use:     "match -f PATH... | -m PATH... -r PATH...",
		Short:   "Say which runtimes accept which models, and why not",
		Long:    matchLong,
		Example: matchExample,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	addInputFlags(cmd, &o.in, true)
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addFormatFlag(cmd, &o.format, output.MatchFormats)
	return cmd
}

// run compiles the policies while it reads the models and runtimes, then
// writes each model's results as they come, and the problems of the input
// after them.
func (o *matchOptions) run(cmd *cobra.Command, g *globalOptions) error {
	if !o.in.given() {
		return badInput(fmt.Errorf("give the models and runtimes with -f (or -m and -r), or --cluster"))
	}
	ready := compileMatcher(g, o.engineName)
	input, err := o.in.read(g, cmd, live.ModelsAndRuntimes, false, nil)
	if err != nil {
		return err
	}
	objs := pick(cmd, input.Objects, "match", "models and runtimes", func(o *objects.Object) bool { return o.IsModel() || o.IsRuntime() })
	ms, rs := only(objs, (*objects.Object).IsModel), only(objs, (*objects.Object).IsRuntime)
	// Without models, or without runtimes because none could be read,
	// there is nothing to tell.
	if len(ms) == 0 || len(rs) == 0 && len(input.Problems) > 0 {
		return o.in.nothingToTell(cmd, input, "models")
	}
	noteConfigParsing(cmd, ms)
	// Matching reads values only: the positions of every field, kept for
	// messages about bad input, are dropped, so that the heap the
	// collector scans over and over is the engine's own.
	for _, o := range objs {
		o.Pos = nil
	}
	c := <-ready
	if c.err != nil {
		return c.err
	}
	fitMemoryLimit()
	unserved, err := writeMatches(cmd, o.format, c.m, ms, rs, input.Problems)
	if err != nil {
		return err
	}
	reportProblems(cmd, input.Problems)
	return exitAfter(input.Problems, unserved)
}

// compiledMatcher is the matcher of compileMatcher, or why there is none.
type compiledMatcher struct {
	m   engine.Matcher
	err error
}

// compileMatcher compiles the policies for the engine in the background,
// so that they compile while the files load.
func compileMatcher(g *globalOptions, engineName string) <-chan compiledMatcher {
	ready := make(chan compiledMatcher, 1)
	go func() {
		set, err := g.policies()
		if err != nil {
			ready <- compiledMatcher{nil, badInput(err)}
			return
		}
		m, err := engine.New(engineName, set)
		if err != nil {
			err = badInput(err)
		}
		ready <- compiledMatcher{m, err}
	}()
	return ready
}

// writeMatches matches every model against the runtimes OME pairs it with
// and writes the results, each model's as soon as they are known; unserved
// says whether some model has no compatible runtime.
func writeMatches(cmd *cobra.Command, format string, m engine.Matcher, ms, rs []*objects.Object, problems []*objects.InputError) (unserved bool, err error) {
	w, err := output.NewMatchWriter(format, cmd.OutOrStdout())
	if err != nil {
		return false, badInput(err)
	}
	if err := w.Begin(ms, rs); err != nil {
		return false, err
	}
	leftOut, err := engine.MatchObjects(m, ms, rs, func(mo *objects.Object, results []engine.Result) error {
		fitMemoryLimit() // what the engine prepared is live too
		served := false
		for _, r := range results {
			served = served || r.Compatible
		}
		unserved = unserved || !served
		return w.Model(objects.RefOf(mo), results)
	})
	if err != nil {
		return false, err
	}
	return unserved, w.End(output.MatchSummary{LeftOut: leftOut, Problems: output.Problems(problems)})
}
