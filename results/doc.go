// Package results holds what evaluate's commands decide, as Go values: a
// match run's summary and the writer it streams to (match.go), a lint
// report (lint.go), a test report (test.go), select's decisions and the
// violations of gatekeeper violations (select.go), the cluster a
// result of a fleet comes from (cluster.go), and what evaluate says of
// itself (version.go). runner fills them; output
// writes them in each format, report puts them on a page. A Go program
// that wants a decision gets these types without the writers.
//
// It imports engine (the answers' types) and objects.
package results
