package admission

import (
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"
)

// LintPolicy is OMEVersionLint's CEL code for one severity, as a
// ValidatingAdmissionPolicy and a Kyverno ValidatingPolicy both hold it:
// the objects it reviews, the template's variables with its severities
// variable fixed to that severity, and its validations.
type LintPolicy struct {
	Match, Variables, Validations *yaml.Node
}

// LintCode is t's CEL code for severity, for an admission policy.
func LintCode(t *Check, severity string) (LintPolicy, error) {
	var vars, vals []*yaml.Node
	fixed := false
	for _, v := range t.CEL.Variables {
		expr := v.Expression
		if v.Name == "severities" {
			expr = fmt.Sprintf("[dyn(%q)]", severity)
			fixed = true
		} else if strings.Contains(expr, "variables.params") {
			return LintPolicy{}, fmt.Errorf("%s: variable %s reads the constraint's parameters, which an admission policy has not", t.Name, v.Name)
		}
		vars = append(vars, Mapping("name", v.Name, "expression", expr))
	}
	if !fixed {
		return LintPolicy{}, fmt.Errorf("%s: no severities variable to fix", t.Name)
	}
	for _, v := range t.CEL.Validations {
		vals = append(vals, Mapping("expression", v.Expression, "messageExpression", v.MessageExpression))
	}
	resources := make([]string, len(OMEKinds))
	for i, k := range OMEKinds {
		resources[i] = strings.ToLower(k) + "s"
	}
	match := Mapping("resourceRules", Seq(Mapping(
		"apiGroups", Strs([]string{"ome.io"}),
		"apiVersions", Strs([]string{"*"}),
		"operations", Strs([]string{"CREATE", "UPDATE"}),
		"resources", Strs(resources),
	)))
	return LintPolicy{Match: match, Variables: Seq(vars...), Validations: Seq(vals...)}, nil
}
