// Package runner does the work of evaluate's commands, as a Go program
// would call it: which policies and OME release a run applies (Policies),
// compiled in the background while the objects are read (Compile), the
// webhook's decision on InferenceServices (Select), the lint run (LintRun,
// RuleFilter, the ignore annotation), the case files on the engines and
// releases (CaseRunner, ReleaseRuns, RunTests), a diff (Diff: its two
// sides, a cluster's change, an OME upgrade). How the process holds
// memory and profiles itself is the command line's (cmd/evaluate).
//
// It owns no flag, no exit code and no printing: a command binds its flags
// to these functions, prints what they give (notices come back through a
// function the caller passes) and chooses the exit code. It imports the
// engines through package engine only, the admission compiler, diff,
// output (whose documents it fills), input and the data floors; nothing
// but cmd/evaluate imports it.
package runner
