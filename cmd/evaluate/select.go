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

// selectLong is the help of select.
const selectLong = `select reads InferenceServices, models and runtimes (any mix) and, for each
InferenceService, prints OME's admission webhook verdict, following its steps
in order: the referenced model must exist; an InferenceService without an
engine, with a named runtime or with a runner image of its own is admitted
as it is; otherwise the model must be given and enabled, and OME selects a
runtime: the chosen one and the ranked candidates with their scores, or
OME's rejection message with the runtimes it excluded and why.

Only ServingRuntimes of the InferenceService's namespace and
ClusterServingRuntimes are looked at. Objects of the same kind, namespace
and name replace earlier ones, as they would on apply (with a notice). A
namespaced object without metadata.namespace is in -n's namespace (default
"default"), as kubectl apply would put it.

A runtime named in spec.runtime.name is checked as OME's controller would
(namespace first, then cluster; exists; not disabled; compatible). The
webhook does not check it, so problems are warnings that change neither the
verdict nor the exit code, unless --strict-named-runtime is given.

With --cluster (implied by every cluster flag but -n, -A and --request-timeout) the objects also come
from a running cluster, read as kubectl reads it: the BaseModels,
ServingRuntimes and (unless -f gives some) InferenceServices of the
namespace (-n, default the context's; -A for all), and every
ClusterBaseModel and ClusterServingRuntime.

PATH is a file, a folder (*.yaml, *.yml, *.json; its folders too with -R;
a folder that holds a config.json or model_index.json is read as one model)
or -. Any mix of objects is read: multi-document YAML, kind: List, typed
lists, a kubectl dump. An object that cannot be read is reported with its
file, line and field after the results; the others are still judged.

Exit codes: 0 every InferenceService admitted (or none given: a notice,
unless --fail-on-empty), 1 any rejected, 2 bad input.`

// selectExample are the examples of select.
const selectExample = `  # Will OME pick my runtime?
  evaluate select -f testdata/examples/select

  # InferenceServices from one place, the cluster's objects from others
  evaluate select -f isvc.yaml -f models/ -f runtimes/ -o json

  # Every InferenceService of a namespace, as the cluster holds them
  evaluate select --cluster -n llama-demo

  # My InferenceService against the models and runtimes of the cluster
  evaluate select -f isvc.yaml --context prod

  # Treat a problem with the named runtime as a rejection
  evaluate select -f isvc.yaml -f cluster/ --strict-named-runtime`

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
		Use:     "select -f PATH...",
		Short:   "Say what OME's webhook will do with each InferenceService",
		Long:    selectLong,
		Example: selectExample,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	addInputFlags(cmd, &o.in, false)
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addFormatFlag(cmd, &o.format, output.SelectFormats)
	cmd.Flags().BoolVar(&o.strict, "strict-named-runtime", false, "reject an InferenceService whose named runtime OME's controller would refuse")
	return cmd
}

// run reads the InferenceServices and the cluster's models and runtimes,
// decides on each InferenceService as OME's webhook does, and writes the
// decisions, then the problems of the input.
func (o *selectOptions) run(cmd *cobra.Command, g *globalOptions) error {
	if !o.in.given() {
		return badInput(fmt.Errorf("give the InferenceServices, models and runtimes with -f, or --cluster"))
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
	cluster = deduplicate(cmd, cluster)
	fitMemoryLimit()
	noteConfigParsing(cmd, cluster)
	results, rejected, err := o.decide(g, services, cluster)
	if err != nil {
		return err
	}
	w, err := output.NewSelectWriter(o.format, cmd.OutOrStdout())
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
func (o *selectOptions) decide(g *globalOptions, services, cluster []*objects.Object) (results []output.SelectResult, rejected bool, err error) {
	set, err := g.policies()
	if err != nil {
		return nil, false, badInput(err)
	}
	sel, err := engine.NewSelector(o.engineName, set)
	if err != nil {
		return nil, false, badInput(err)
	}
	for _, isvc := range services {
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
