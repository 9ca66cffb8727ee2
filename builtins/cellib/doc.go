package cellib

import (
	"sort"
	"strings"

	"github.com/google/cel-go/cel"
)

// Signatures lists the functions of the ome.version CEL library as
// signature lines ("omeVersion(string) -> ome.Version",
// "<ome.Version>.parts() -> int"), sorted, read from the library's own
// declarations.
func Signatures() []string {
	base, err := cel.NewEnv()
	if err != nil {
		return nil
	}
	env, err := cel.NewEnv(Library())
	if err != nil {
		return nil
	}
	std := map[string]bool{}
	for _, fn := range base.Functions() {
		for _, o := range fn.OverloadDecls() {
			std[o.ID()] = true
		}
	}
	var out []string
	for name, fn := range env.Functions() {
		for _, o := range fn.OverloadDecls() {
			if std[o.ID()] {
				continue
			}
			args := o.ArgTypes()
			var recv string
			if o.IsMemberFunction() && len(args) > 0 {
				recv = "<" + args[0].String() + ">."
				args = args[1:]
			}
			names := make([]string, len(args))
			for i, a := range args {
				names[i] = a.String()
			}
			out = append(out, recv+name+"("+strings.Join(names, ", ")+") -> "+o.ResultType().String())
		}
	}
	sort.Strings(out)
	return out
}
