package main

import (
	"fmt"
	"os"

	"github.com/ome-policy/evaluator/objects/synth"
	"github.com/spf13/cobra"
)

func newGenerateCommand(_ *globalOptions) *cobra.Command {
	var (
		seed             int64
		models, runtimes int
		dir, shapeName   string
	)
	cmd := &cobra.Command{
		Use:   "generate --dir DIR",
		Short: "Write a synthetic cluster of models and runtimes, for benchmarks",
		Long: `generate writes DIR/models.yaml (ClusterBaseModels) and DIR/runtimes.yaml
(ClusterServingRuntimes) shaped like OME's catalog: the same few formats, a
few dozen architectures and framework versions, operators, size ranges,
accelerator classes and a container spec of realistic size. The same seed
gives the same files.

--shape sets how varied the cluster is, which is what matching costs depend
on: few (3 architectures, 4 framework versions, 1 format), ome (30, 16 and
OME's two formats: the default) or many (400, 600, 6).
--architectures, --versions and --formats change one count of the shape.`,
		Example: `  # The benchmark's cluster: 300 models x 700 runtimes = 210,000 pairs
  evaluate generate --dir /tmp/cluster --models 300 --runtimes 700 --seed 1
  evaluate match -m /tmp/cluster/models.yaml -r /tmp/cluster/runtimes.yaml -o json > /dev/null

  # A cluster with many distinct versions and architectures
  evaluate generate --dir /tmp/many --shape many

  # 1,000 runtimes with 12 architectures and 150 framework versions
  evaluate generate --dir /tmp/gk --models 50 --runtimes 1000 --shape many --architectures 12 --versions 150`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return badInput(fmt.Errorf("--dir is required"))
			}
			if models < 0 || runtimes < 0 {
				return badInput(fmt.Errorf("--models and --runtimes must not be negative"))
			}
			shape, err := synth.ShapeNamed(shapeName)
			if err != nil {
				return badInput(fmt.Errorf("--shape: %w", err))
			}
			for _, o := range []struct {
				flag string
				into *int
				min  int
			}{{"architectures", &shape.Architectures, 1}, {"versions", &shape.Versions, 1}, {"formats", &shape.Formats, 1}} {
				if !cmd.Flags().Changed(o.flag) {
					continue
				}
				n, _ := cmd.Flags().GetInt(o.flag)
				if n < o.min {
					return badInput(fmt.Errorf("--%s must be at least %d, got %d", o.flag, o.min, n))
				}
				*o.into = n
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return badInput(err)
			}
			ms, rs := synth.ShapedCluster(seed, models, runtimes, shape)
			if err := synth.WriteCluster(dir, ms, rs); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d models and %d runtimes to %s\n", len(ms), len(rs), dir)
			return nil
		},
	}
	cmd.Flags().Int64Var(&seed, "seed", 1, "random seed")
	cmd.Flags().IntVar(&models, "models", 300, "number of models")
	cmd.Flags().IntVar(&runtimes, "runtimes", 700, "number of runtimes")
	cmd.Flags().StringVar(&dir, "dir", "", "folder to write models.yaml and runtimes.yaml to")
	cmd.Flags().StringVar(&shapeName, "shape", synth.OME.Name, "how varied the cluster is: few, ome or many")
	cmd.Flags().Int("architectures", 0, "distinct model architectures (default: the shape's)")
	cmd.Flags().Int("versions", 0, "distinct framework versions (default: the shape's)")
	cmd.Flags().Int("formats", 0, "distinct format names (default: the shape's)")
	return cmd
}
