package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestGenerate(t *testing.T) {
	evaluate := func(args ...string) (int, string, string) {
		var stdout, stderr bytes.Buffer
		code := run(args, strings.NewReader(""), &stdout, &stderr)
		return code, stdout.String(), stderr.String()
	}
	for _, shape := range []string{"few", "ome", "many"} {
		dir := t.TempDir()
		code, out, errOut := evaluate("generate", "--dir", dir, "--models", "4", "--runtimes", "9", "--shape", shape)
		require.Equal(t, exitOK, code, errOut)
		require.Equal(t, "wrote 4 models and 9 runtimes to "+dir+"\n", out)
		// What it writes is what the other commands read.
		code, _, errOut = evaluate("match", "-o", "json", "-m", filepath.Join(dir, "models.yaml"), "-r", filepath.Join(dir, "runtimes.yaml"))
		require.Contains(t, []int{exitOK, exitFindings}, code, errOut)
		require.Empty(t, errOut)
		code, _, errOut = evaluate("lint", filepath.Join(dir, "models.yaml"), filepath.Join(dir, "runtimes.yaml"))
		require.NotEqual(t, exitBadInput, code, errOut)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shape", "huge"}, `--shape: unknown shape "huge" (want few, ome, many)`},
		{[]string{"--versions", "0"}, "--versions must be at least 1, got 0"},
		{[]string{"--architectures", "-3"}, "--architectures must be at least 1, got -3"},
	} {
		code, _, errOut := evaluate(append([]string{"generate", "--dir", t.TempDir()}, tc.args...)...)
		require.Equal(t, exitBadInput, code)
		require.Contains(t, errOut, tc.want)
	}
}
