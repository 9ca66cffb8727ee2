package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/objects/synth"
)

func newGenerateCommand(_ *globalOptions) *cobra.Command {
	var (
		seed             int64
		models, runtimes int
		dir, shapeName   string
	)
	cmd := &cobra.Command{
		Use:     "generate --dir DIR",
		Short:   "Write a synthetic cluster of models and runtimes, for benchmarks",
		Long:    helpText("generate"),
		Example: exampleText("generate"),
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if models < 0 || runtimes < 0 {
				return badInput(fmt.Errorf("--models and --runtimes must not be negative"))
			}
			shape, err := synth.ShapeNamed(shapeName)
			if err != nil {
				return badInput(fmt.Errorf("--shape: %w", err))
			}
			for _, dim := range synth.Dimensions {
				if n, _ := cmd.Flags().GetInt(dim); cmd.Flags().Changed(dim) {
					if err := shape.Set(dim, n); err != nil {
						return badInput(fmt.Errorf("--%w", err))
					}
				}
			}
			ms, rs := synth.ShapedCluster(seed, models, runtimes, shape)
			if err := writeCluster(dir, ms, rs); err != nil {
				return badInput(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d models and %d runtimes to %s\n", len(ms), len(rs), dir)
			return nil
		},
	}
	cmd.Flags().Int64Var(&seed, "seed", 1, "random seed")
	cmd.Flags().IntVar(&models, "models", 300, "number of models")
	cmd.Flags().IntVar(&runtimes, "runtimes", 700, "number of runtimes")
	cmd.Flags().StringVar(&dir, "dir", "", "folder to write models.yaml and runtimes.yaml to")
	_ = cmd.MarkFlagRequired("dir")
	cmd.Flags().StringVar(&shapeName, "shape", synth.OME.Name, "how varied the cluster is: few, ome or many")
	cmd.Flags().Int("architectures", 0, "distinct model architectures (default: the shape's)")
	cmd.Flags().Int("versions", 0, "distinct framework versions (default: the shape's)")
	cmd.Flags().Int("formats", 0, "distinct format names (default: the shape's)")
	return cmd
}

// writeCluster writes the models to DIR/models.yaml and the runtimes to
// DIR/runtimes.yaml, as YAML documents, into the folder dir.
func writeCluster(dir string, models, runtimes []map[string]any) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	for _, file := range []struct {
		name string
		objs []map[string]any
	}{{"models.yaml", models}, {"runtimes.yaml", runtimes}} {
		f, err := os.Create(filepath.Join(dir, file.name))
		if err != nil {
			return err
		}
		err = synth.Encode(f, file.objs)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return err
		}
	}
	return nil
}
