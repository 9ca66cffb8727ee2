package main

import (
	"embed"
	"strings"
)

// The commands' long help and examples are prose, kept apart from the code
// in help/: NAME.txt and NAME.examples.txt for each command (NAME as the
// command is called, "evaluate" for the root, "gatekeeper-suite" for a
// subcommand). `evaluate CMD --help` prints them, and docs/cli.md is made
// from that.
//
//go:embed help
var helpFiles embed.FS

// helpText is the long help of the command name.
func helpText(name string) string { return helpFile(name + ".txt") }

// exampleText is the examples of the command name.
func exampleText(name string) string { return helpFile(name + ".examples.txt") }

func helpFile(file string) string {
	b, err := helpFiles.ReadFile("help/" + file)
	if err != nil {
		panic("evaluate: the help file " + file + " is not built in") // the binary is broken
	}
	return strings.TrimSuffix(string(b), "\n")
}
