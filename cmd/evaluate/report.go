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
		Long:    helpText("report"),
		Example: exampleText("report"),
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return o.run(cmd, g) },
	}
	addInputFlags(cmd, &o.in, true)
	addEngineFlag(cmd, &o.engineName, engine.CEL)
	addReleaseFlag(cmd, g)
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
