package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/report"
)

func newReportCommand(g *globalOptions) *cobra.Command {
	var (
		models, runtimes, files []string
		engineName              string
		out                     string
		cl                      clusterOptions
	)
	cmd := &cobra.Command{
		Use:   "report -m PATH... -r PATH... [-f PATH...] -o FILE.html",
		Short: "Write the compatibility of every model and runtime as one HTML page",
		Long: `report writes one self-contained HTML page (inline style and script, no
network request, opens from disk) about every model (BaseModel,
ClusterBaseModel) and every runtime (ServingRuntime, ClusterServingRuntime):

  - a matrix, models as rows and runtimes as columns: each cell is
    selectable (compatible, an entry with autoSelect: true and a score above
    0; the score is shown), compatible but not selectable, or not
    compatible, lettered and shaded by the kind of its first difference
    (format, framework, version, architecture, quantization, pipeline,
    size, disabled);
  - for a cell, on click or Enter, evaluate explain for that pair (each
    check, the versions as parsed, the operator, the fix) and the file and
    line of both objects;
  - the counts, the models that no runtime accepts, the runtimes and
    entries that accept no model, and the lint findings of each object
    (evaluate lint --cross-check);
  - with -f, each InferenceService's verdict and selected runtime
    (evaluate select).

The page's data is the JSON that evaluate match, explain, lint
--cross-check and select print for the same objects, stored compactly
(each distinct value once, gzipped); the page shows nothing those commands
would not say. A selectable cell's score is what evaluate select gives for
an InferenceService of that model with an engine and no named runtime.

-m, -r and --cluster read objects as match does; -f reads InferenceServices
(and any other objects selection should see) as select does. Above about
40,000 cells the page draws only the rows in view.

Exit codes: 0 every model has a compatible runtime, 1 some model has none
(the page is written either way), 2 bad input or usage.`,
		Example: `  # The catalog, as a page to open in a browser
  evaluate report -m testdata/catalog/models -r testdata/catalog/runtimes -o report.html

  # With InferenceServices: each one's verdict and selected runtime
  evaluate report -m testdata/examples/models -r testdata/examples/runtimes -f testdata/examples/select -o report.html

  # A generated cluster of 300 models and 700 runtimes
  evaluate generate --dir /tmp/c --models 300 --runtimes 700
  evaluate report -m /tmp/c/models.yaml -r /tmp/c/runtimes.yaml -o /tmp/c/report.html

  # What a cluster holds, on both engines (any disagreement is an error)
  evaluate report --cluster -A --engine both -o cluster.html`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := checkChoice("engine", engineName, engine.Names); err != nil {
				return err
			}
			if out == "" {
				return badInput(fmt.Errorf("give the page to write with -o FILE.html (- for standard output)"))
			}
			if !cl.enabled() && (len(models) == 0 || len(runtimes) == 0) {
				return badInput(fmt.Errorf("give models with -m and runtimes with -r, or --cluster"))
			}
			ms, rs, err := loadModelsAndRuntimes(g, cmd, &cl, models, runtimes)
			if err != nil {
				return err
			}
			services, others, err := loadServices(g, cmd, &cl, files)
			if err != nil {
				return err
			}
			if err := checkTimestamps(append(append(append([]*objects.Object{}, others...), ms...), rs...)); err != nil {
				return badInput(err)
			}
			set, err := g.policies()
			if err != nil {
				return badInput(err)
			}
			// Unlike match's results, a page's data is held whole until
			// it is written (hundreds of MB for 300 x 700): under the
			// limit that main sets for streaming commands the collector
			// would run without pause. And the heap may grow to twice
			// what is live, not four times (as fast here, 40% less
			// memory). GOMEMLIMIT and GOGC still decide.
			if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
				defer debug.SetMemoryLimit(debug.SetMemoryLimit(math.MaxInt64))
			}
			if _, set := os.LookupEnv("GOGC"); !set {
				defer debug.SetGCPercent(debug.SetGCPercent(100))
			}
			var page bytes.Buffer
			sum, err := report.Write(&page, report.Input{
				Models: ms, Runtimes: rs, Services: services, Others: others,
				Engine: engineName, Policies: set,
			})
			if err != nil {
				return err
			}
			if out == "-" {
				if _, err := cmd.OutOrStdout().Write(page.Bytes()); err != nil {
					return err
				}
			} else if err := os.WriteFile(out, page.Bytes(), 0o644); err != nil {
				return badInput(fmt.Errorf("-o: %w", err))
			}
			where := out
			if out == "-" {
				where = "standard output"
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (%d bytes): %d model(s) x %d runtime(s), %d compatible pair(s), %d model(s) with no compatible runtime",
				where, page.Len(), sum.Models, sum.Runtimes, sum.Compatible, sum.Unserved)
			if len(services) > 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), ", %d of %d InferenceService(s) rejected", sum.Rejected, len(services))
			}
			fmt.Fprintln(cmd.ErrOrStderr())
			if sum.Unserved > 0 {
				return &silentExit{code: exitFindings}
			}
			return nil
		},
	}
	cmd.Flags().StringArrayVarP(&models, "models", "m", nil, "models: a file, folder or - (repeatable)")
	cmd.Flags().StringArrayVarP(&runtimes, "runtimes", "r", nil, "runtimes: a file, folder or - (repeatable)")
	cmd.Flags().StringArrayVarP(&files, "filename", "f", nil, "InferenceServices (and objects selection should also see): a file, folder or - (repeatable)")
	cmd.Flags().StringVar(&engineName, "engine", engine.CEL, "policy engine: "+strings.Join(engine.Names, ", "))
	cmd.Flags().StringVarP(&out, "output", "o", "", "the HTML file to write (- for standard output)")
	addClusterFlags(cmd, &cl)
	return cmd
}

// loadServices reads -f as select does: the InferenceServices, and the
// other objects given with them. With --cluster and no InferenceService in
// -f, the cluster's InferenceServices are read.
func loadServices(g *globalOptions, cmd *cobra.Command, cl *clusterOptions, files []string) (services, others []*objects.Object, err error) {
	var objs []*objects.Object
	if len(files) > 0 {
		objs, err = objects.Load(files, objects.LoadOptions{Stdin: g.stdin, Notices: cmd.ErrOrStderr(), ModelFolders: true})
		if err != nil {
			return nil, nil, badInput(err)
		}
	}
	for _, o := range objs {
		if o.Kind == objects.KindInferenceService {
			services = append(services, o)
		} else {
			others = append(others, o)
		}
	}
	if len(files) > 0 && len(services) == 0 {
		return nil, nil, badInput(fmt.Errorf("-f %s: no InferenceService found", strings.Join(files, " ")))
	}
	if cl.enabled() && len(services) == 0 {
		more, err := cl.load(g, cmd, nil, []live.Resource{live.InferenceServices}, objects.LoadOptions{Notices: cmd.ErrOrStderr()})
		if err != nil {
			return nil, nil, err
		}
		services = append(services, more...)
	}
	return services, others, nil
}
