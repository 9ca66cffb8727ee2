package main

import (
	"github.com/spf13/cobra"

	"github.com/ome-policy/evaluator/runner"
)

// How a command holds memory is said once, where the command is made
// (useMemory), and set up in one place, before it runs (memoryFor, called
// by the root command): a command streams under runner.Streaming's limit by default,
// the limit following what is read as it grows (runner.FitMemoryLimit, in the
// reading of the input and between match's models); lint and report hold
// what they read (holdsData); diff holds both sides (holdsBothSides).
const (
	memoryAnnotation = "evaluate/memory"
	holdsData        = "holds-data"
	holdsBothSides   = "holds-both-sides"
)

// useMemory says how cmd holds memory: holdsData or holdsBothSides.
func useMemory(cmd *cobra.Command, use string) {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[memoryAnnotation] = use
}

// memoryFor sets the collector up for cmd, as useMemory said, and returns
// what puts the settings back.
func memoryFor(cmd *cobra.Command) (restore func()) {
	switch cmd.Annotations[memoryAnnotation] {
	case holdsData:
		return runner.HoldData()
	case holdsBothSides:
		return runner.LiftMemoryLimit()
	}
	return func() {}
}
