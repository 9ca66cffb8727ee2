// Command evaluate checks OME runtime selection offline: which serving
// runtimes accept which models, and why not, using the CEL and Rego
// policies that state OME's rules.
package main

import (
	"os"
)

func main() {
	streaming()
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}
