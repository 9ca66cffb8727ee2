package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// Every command that reads objects takes them as arguments as it takes
// them with -f: the same output, the same exit code.
func TestPathsAsArguments(t *testing.T) {
	services := at("testdata/examples/select")
	for _, tc := range []struct {
		name      string
		command   []string
		paths     []string
		flagsOnly []string // the same, with -m and -r where the command has them
	}{
		{"match", []string{"match"}, []string{exModels, exRuntimes}, []string{"-m", exModels, "-r", exRuntimes}},
		{"select", []string{"select"}, []string{services, exModels, exRuntimes}, []string{"-f", services, "-m", exModels, "-r", exRuntimes}},
		{"explain", []string{"explain", "--model-name", "llama-3-2-3b-instruct"}, []string{exModels, exRuntimes}, []string{"-m", exModels, "-r", exRuntimes}},
		{"lint", []string{"lint", "--cross-check"}, []string{exModels, exRuntimes}, []string{"-m", exModels, "-r", exRuntimes}},
		{"report", []string{"report", "-o", "json"}, []string{exModels, exRuntimes}, []string{"-m", exModels, "-r", exRuntimes}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append(append([]string{}, tc.command...), tc.paths...)
			asArgs := evaluate(t, time.Minute, "", args...)
			require.NotContains(t, asArgs.stderr, "unknown command")
			require.NotEmpty(t, asArgs.stdout, asArgs.stderr)
			var withF []string
			for _, p := range tc.paths {
				withF = append(withF, "-f", p)
			}
			for _, other := range [][]string{withF, tc.flagsOnly} {
				res := evaluate(t, time.Minute, "", append(append([]string{}, tc.command...), other...)...)
				require.Equal(t, asArgs.code, res.code, "%s: %s", other, res.stderr)
				require.Equal(t, asArgs.stdout, res.stdout, "%s", other)
			}
		})
	}
}

// One rule for a folder, however it is given: its files and the model
// folders in it; the folders inside it with -R, else a notice that names
// them.
func TestOneRecursionRule(t *testing.T) {
	catalog := at("testdata/catalog/runtimes")
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"an argument", []string{"lint", catalog}},
		{"-f", []string{"lint", "-f", catalog}},
		{"-r", []string{"match", "-m", exModels, "-r", catalog}},
		{"-m", []string{"report", "-o", "json", "-m", at("testdata/catalog"), "-r", exRuntimes}},
		{"select's -r", []string{"select", "-f", at("testdata/examples/select"), "-m", exModels, "-r", catalog}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			without := evaluate(t, time.Minute, "", tc.args...)
			require.Contains(t, without.stderr, "were not read", without.stderr)
			require.Contains(t, without.stderr, "-R reads them")
			with := evaluate(t, time.Minute, "", append(append([]string{}, tc.args...), "-R")...)
			require.NotContains(t, with.stderr, "were not read")
			require.Greater(t, len(with.stdout), len(without.stdout), "-R reads more")
		})
	}
	// A folder of model folders (<model>/config.json) is read without -R.
	res := evaluate(t, time.Minute, "", "match", "-m", at("testdata/examples/model-folders"), "-r", exRuntimes)
	require.Equal(t, 0, res.code, res.stderr)
	require.NotContains(t, res.stderr, "were not read")
	require.Contains(t, res.stdout, "llama3_2_3b")
	// -m or -r that finds nothing for want of -R says so.
	res = evaluate(t, time.Minute, "", "match", "-m", exModels, "-r", catalog)
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "-r "+catalog+": no runtime found (the folders inside are read with -R)")
}

// -m and -r take models and runtimes only, in select as elsewhere.
func TestModelsAndRuntimesFlagsInSelect(t *testing.T) {
	res := evaluate(t, time.Minute, "", "select", "-f", at("testdata/examples/select"), "-m", exRuntimes, "-r", exRuntimes)
	require.Equal(t, 2, res.code)
	require.Contains(t, res.stderr, "is not a model; -m takes models")
}

// -o is a format in every command that prints results: one it has not is
// exit 2, naming those it has.
func TestUnknownFormatEverywhere(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		formats string
	}{
		{[]string{"match", "-m", exModels, "-r", exRuntimes}, "text, json, yaml, github"},
		{[]string{"select", "-f", at("testdata/examples/select")}, "text, json, yaml"},
		{[]string{"explain", "-m", exModels, "-r", exRuntimes}, "text, json, yaml"},
		{[]string{"lint", exModels}, "text, json, yaml, sarif, junit, github"},
		{[]string{"diff", exModels, exModels}, "text, json, markdown, github"},
		{[]string{"test", at("testdata/cases/spec-operators.yaml")}, "text, json, yaml, sarif, junit, github"},
		{[]string{"version"}, "text, json, yaml"},
		{[]string{"gatekeeper", "violations", exModels}, ""},
		{[]string{"report", "-m", exModels, "-r", exRuntimes}, "html, json"},
	} {
		t.Run(tc.args[0], func(t *testing.T) {
			res := evaluate(t, time.Minute, "", append(tc.args, "-o", "xml")...)
			require.Equal(t, 2, res.code, res.stderr)
			require.Empty(t, res.stdout)
			require.Contains(t, res.stderr, `--output: "xml" is not one of `+tc.formats)
		})
	}
	// gatekeeper's -o, its folder, is --out now, with a notice.
	res := evaluate(t, time.Minute, "", "gatekeeper", "suite", "--check", "-o", "../../testdata/gatekeeper/sample-selection",
		"--templates", "../../policies/gatekeeper", "../../testdata/cases/sample-selection.yaml")
	require.Equal(t, 0, res.code, res.stderr)
	require.Contains(t, res.stderr, "notice: -o ../../testdata/gatekeeper/sample-selection is deprecated and will be refused in the next release: write --out")
}

// The text of select shows OME's message once, and at most the first 10
// excluded runtimes; -o json keeps OME's message whole.
func TestSelectTextShortRefusal(t *testing.T) {
	args := []string{"select", "-R", "-f", at("testdata/select/many-exclusions.yaml"), "-r", at("testdata/catalog/runtimes")}
	text := evaluate(t, time.Minute, "", args...)
	require.Equal(t, 1, text.code, text.stderr)
	js := evaluate(t, time.Minute, "", append(args, "-o", "json")...)
	require.Equal(t, 1, js.code, js.stderr)
	var doc struct {
		Decisions []struct {
			Message  string `json:"message"`
			Excluded []struct {
				Name   string `json:"name"`
				Reason string `json:"reason"`
			} `json:"excluded"`
		} `json:"decisions"`
	}
	require.NoError(t, json.Unmarshal([]byte(js.stdout), &doc))
	require.Len(t, doc.Decisions, 1)
	d := doc.Decisions[0]
	require.Len(t, d.Excluded, 203)
	head, listed, found := strings.Cut(d.Message, ". Excluded runtimes: ")
	require.True(t, found)
	for _, e := range d.Excluded {
		require.Contains(t, listed, e.Name+" (", "OME's message in JSON names every runtime")
	}

	require.Equal(t, 1, strings.Count(text.stdout, "Checked 203 runtimes"), "OME's message once")
	require.Contains(t, text.stdout, "  REJECTED: "+head+". Excluded runtimes:\n")
	for i, e := range d.Excluded {
		line := "    ClusterServingRuntime " + e.Name + ": " + e.Reason + "\n"
		if i < 10 {
			require.Contains(t, text.stdout, line)
		} else {
			require.NotContains(t, text.stdout, line)
		}
	}
	require.Contains(t, text.stdout, "    and 193 more (-o json lists all)\n")
	for _, l := range strings.Split(text.stdout, "\n") {
		require.Less(t, len(l), 400, "no line of the whole message: %.100s", l)
	}
}
