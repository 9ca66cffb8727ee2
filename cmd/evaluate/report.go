package main

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/live"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/report"
)

// reportLong is the help of report.
const reportLong = `report writes one self-contained HTML page (inline style and script, no
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

-f (any mix of objects), -m, -r and --cluster read objects as match does,
and pairs are scoped as match scopes them: a cell of a BaseModel and a
ServingRuntime of another namespace, which OME never pairs, is blank. The
InferenceServices among the objects are judged as select judges them (with
--cluster and none in the files, the cluster's). Above about 40,000 cells
the page draws only the rows in view. An object that cannot be read is
reported after the page is written, and the exit code is 2.

Exit codes: 0 every model has a compatible runtime, 1 some model has none
(the page is written either way), 2 bad input or usage.`

// reportExample are the examples of report.
const reportExample = `  # The catalog, as a page to open in a browser
  evaluate report -m testdata/catalog/models -r testdata/catalog/runtimes -o report.html

  # With InferenceServices: each one's verdict and selected runtime
  evaluate report -f testdata/examples/models -f testdata/examples/runtimes -f testdata/examples/select -o report.html

  # A generated cluster of 300 models and 700 runtimes
  evaluate generate --dir /tmp/c --models 300 --runtimes 700
  evaluate report -m /tmp/c/models.yaml -r /tmp/c/runtimes.yaml -o /tmp/c/report.html

  # What a cluster holds, on both engines (any disagreement is an error)
  evaluate report --cluster -A --engine both -o cluster.html`

// reportOptions are report's flags.
type reportOptions struct {
	in         inputOptions
	engineName string
	out        string
}

func newReportCommand(g *globalOptions) *cobra.Command {
	o := &reportOptions{}
	cmd := &cobra.Command{
		Use:     "report -f PATH... -o FILE.html",
		Short:   "Write the compatibility of every model and runtime as one HTML page",
		Long:    reportLong,
		Example: reportExample,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	addInputFlags(cmd, &o.in, true)
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	cmd.Flags().StringVarP(&o.out, "output", "o", "", "the HTML file to write (- for standard output)")
	return cmd
}

// run reads the models, runtimes and InferenceServices, builds the page,
// writes it, and says on standard error what it holds.
func (o *reportOptions) run(cmd *cobra.Command, g *globalOptions) error {
	if o.out == "" {
		return badInput(fmt.Errorf("give the page to write with -o FILE.html (- for standard output)"))
	}
	if !o.in.given() {
		return badInput(fmt.Errorf("give the models and runtimes with -f (or -m and -r), or --cluster"))
	}
	input, err := o.in.read(g, cmd, live.ModelsAndRuntimes, false, nil)
	if err != nil {
		return err
	}
	if err := readClusterServices(cmd, &o.in, input); err != nil {
		return err
	}
	objs := input.Objects
	ms, rs := only(objs, (*objects.Object).IsModel), only(objs, (*objects.Object).IsRuntime)
	services := only(objs, func(o *objects.Object) bool { return o.Kind == objects.KindInferenceService })
	if len(ms) == 0 || len(rs) == 0 {
		reportProblems(cmd, input.Problems)
		return badInput(fmt.Errorf("%s: a report needs models and runtimes; found %d model(s) and %d runtime(s)", o.in.sources(), len(ms), len(rs)))
	}
	if err := objects.CheckTimestamps(objs); err != nil {
		return badInput(err)
	}
	set, err := g.policies()
	if err != nil {
		return badInput(err)
	}
	// A page's data is held whole until it is written (hundreds of MB for
	// 300 x 700).
	defer holdingData()()
	var page bytes.Buffer
	sum, err := report.Write(&page, report.Input{
		Models: ms, Runtimes: rs, Services: services,
		Engine: o.engineName, Policies: set,
	})
	if err != nil {
		return err
	}
	if err := o.writePage(cmd, page.Bytes()); err != nil {
		return err
	}
	notePage(cmd, o.out, page.Len(), sum, len(services))
	reportProblems(cmd, input.Problems)
	return exitAfter(input.Problems, sum.Unserved > 0)
}

// writePage writes the page to -o's file, or to standard output for -.
func (o *reportOptions) writePage(cmd *cobra.Command, page []byte) error {
	if o.out == "-" {
		_, err := cmd.OutOrStdout().Write(page)
		return err
	}
	if err := os.WriteFile(o.out, page, 0o644); err != nil {
		return badInput(fmt.Errorf("-o: %w", err))
	}
	return nil
}

// notePage says on standard error where the page went and what it holds.
func notePage(cmd *cobra.Command, out string, size int, sum report.Summary, services int) {
	where := out
	if out == "-" {
		where = "standard output"
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s (%d bytes): %d model(s) x %d runtime(s), %d compatible pair(s), %d model(s) with no compatible runtime",
		where, size, sum.Models, sum.Runtimes, sum.Compatible, sum.Unserved)
	if services > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), ", %d of %d InferenceService(s) rejected", sum.Rejected, services)
	}
	fmt.Fprintln(cmd.ErrOrStderr())
}

// readClusterServices reads the cluster's InferenceServices into input
// when the cluster is read and no file gave any, so that -f isvc.yaml
// --cluster judges the file's InferenceServices against the cluster's
// models and runtimes.
func readClusterServices(cmd *cobra.Command, in *inputOptions, input *objects.Input) error {
	if !in.cluster.enabled() {
		return nil
	}
	for _, o := range input.Objects {
		if o.Kind == objects.KindInferenceService {
			return nil
		}
	}
	return in.cluster.readInto(cmd, []live.Resource{live.InferenceServices}, input, objects.ReadOptions{})
}
