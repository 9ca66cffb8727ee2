package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/ome-policy/evaluator/bench/generate"
	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"
)

func newGenerateCommand(_ *globalOptions) *cobra.Command {
	var (
		seed             int64
		models, runtimes int
		dir              string
	)
	cmd := &cobra.Command{
		Use:   "generate --dir DIR",
		Short: "Write a synthetic cluster of models and runtimes, for benchmarks",
		Long: `generate writes DIR/models.yaml (ClusterBaseModels) and DIR/runtimes.yaml
(ClusterServingRuntimes) shaped like OME's catalog: the same few formats, a
few dozen architectures and framework versions, operators, size ranges,
accelerator classes and a container spec of realistic size. The same seed
gives the same files.`,
		Example: `  # The benchmark's cluster: 300 models x 700 runtimes = 210,000 pairs
  evaluate generate --dir /tmp/cluster --models 300 --runtimes 700 --seed 1
  evaluate match -m /tmp/cluster/models.yaml -r /tmp/cluster/runtimes.yaml -o json > /dev/null`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if dir == "" {
				return badInput(fmt.Errorf("--dir is required"))
			}
			if models < 0 || runtimes < 0 {
				return badInput(fmt.Errorf("--models and --runtimes must not be negative"))
			}
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return badInput(err)
			}
			ms, rs := generate.Cluster(seed, models, runtimes)
			for _, f := range []struct {
				name string
				objs []map[string]any
			}{{"models.yaml", ms}, {"runtimes.yaml", rs}} {
				if err := writeDocs(filepath.Join(dir, f.name), f.objs); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.OutOrStdout(), "wrote %d models and %d runtimes to %s\n", len(ms), len(rs), dir)
			return nil
		},
	}
	cmd.Flags().Int64Var(&seed, "seed", 1, "random seed")
	cmd.Flags().IntVar(&models, "models", 300, "number of models")
	cmd.Flags().IntVar(&runtimes, "runtimes", 700, "number of runtimes")
	cmd.Flags().StringVar(&dir, "dir", "", "folder to write models.yaml and runtimes.yaml to")
	return cmd
}

func writeDocs(path string, objs []map[string]any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := yaml.NewEncoder(f)
	enc.SetIndent(2)
	for _, o := range objs {
		if err := enc.Encode(o); err != nil {
			f.Close()
			return err
		}
	}
	if err := enc.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
