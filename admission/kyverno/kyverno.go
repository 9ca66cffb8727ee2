// Package kyverno writes the Kyverno bundle (policies/kyverno): the lint
// code of admission's checks as ValidatingPolicies, one per severity
// (kyverno.go), runtime selection as a third, in Kyverno's CEL
// (selectionpolicy.go, over admission.KyvernoSelectionCEL), each with the
// .kyverno-test folder that `kyverno test` runs (selectiontests.go for the
// selection policy's), and the RBAC and kustomization that install them.
//
// It imports admission, engine (the lint severities), policies/policyset,
// cases and objects; no other target.
package kyverno

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/admission"
	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// The Kyverno bundle (policies/kyverno): OMEVersionLint's CEL code as
// Kyverno ValidatingPolicies, one per severity, and runtime selection as a
// third (selectionpolicy.go), laid out as the kyverno/policies repository
// lays out a policy (a folder per policy with its YAML and a .kyverno-test
// folder for `kyverno test`), with the RBAC Kyverno needs to read OME's
// kinds and the kustomization that installs them. The tests are made of
// the cases of the Gatekeeper suites: the lint objects with `evaluate
// lint`'s findings, and the selection cases, whose InferenceServices the
// lint policies must admit and the selection policy must decide as the
// cases say.

// APIVersion is the API of Kyverno's ValidatingPolicy (stable since
// Kyverno 1.17).
const APIVersion = "policies.kyverno.io/v1"

// MinVersion is the oldest Kyverno that serves APIVersion.
const MinVersion = "1.17.0"

// The service accounts of Kyverno's admission and reports controllers, as
// Kyverno's Helm chart names them by default (release kyverno, namespace
// kyverno).
var kyvernoServiceAccounts = []string{"kyverno-admission-controller", "kyverno-reports-controller"}

// Namespace is the namespace of Kyverno's Helm chart by default.
const Namespace = "kyverno"

// kyvernoRole is the name of the bundle's ClusterRole and binding.
const kyvernoRole = "kyverno:ome-reader"

// Generate makes the Kyverno bundle of opts' release, relative to
// its folder: per severity, <policy>/<policy>.yaml and
// <policy>/.kyverno-test/ (kyverno-test.yaml and the resources it
// reviews); rbac.yaml and kustomization.yaml. It reads opts.Lint and the
// InferenceServices of opts.SelectionCases.
func Generate(opts admission.Options) (admission.Bundle, error) {
	templates, err := admission.Checks(opts.Policies)
	if err != nil {
		return nil, err
	}
	var lint *admission.Check
	for _, t := range templates {
		if t.CEL != nil {
			lint = t
		}
	}
	if lint == nil {
		return nil, fmt.Errorf("no template has CEL code")
	}
	services := servicesOf(opts.SelectionCases)
	b := admission.Bundle{}
	var resources []string
	for _, s := range Severities {
		name := "ome-version-lint-" + s.Severity
		code, err := admission.LintCode(lint, s.Severity)
		if err != nil {
			return nil, err
		}
		file := path.Join(name, name+".yaml")
		b[file] = kyvernoPolicy(lint, name, s, code, opts.Exempt)
		b.Add(path.Join(name, ".kyverno-test"), kyvernoTests(name, s.Severity, opts.Lint))
		if len(services) > 0 {
			b[path.Join(name, ".kyverno-test", "inferenceservices.yaml")] = kyvernoServices(name, services)
		}
		resources = append(resources, file)
	}
	selection, err := kyvernoSelectionPolicy(opts.Policies, lint, opts.Exempt)
	if err != nil {
		return nil, err
	}
	file := path.Join(kyvernoSelectionName, kyvernoSelectionName+".yaml")
	b[file] = selection
	b.Add(path.Join(kyvernoSelectionName, ".kyverno-test"), kyvernoSelectionTests(opts.SelectionCases))
	resources = append(resources, file)
	b.Add("", opts.Extra.Kyverno.Files)
	resources = append(resources, opts.Extra.Kyverno.Resources...)
	b["rbac.yaml"] = kyvernoRBAC(lint.Release)
	b["kustomization.yaml"] = admission.Kustomization(kyvernoGenerated, "kubectl apply -k installs the RBAC that lets Kyverno read OME's kinds and the\n"+
		"ValidatingPolicies (Kyverno "+MinVersion+" or later).", append([]string{"rbac.yaml"}, resources...))
	return b, nil
}

// Owned are the folders of the bundle that are generated whole, those of
// more (such as rules/admit's) among them: writing the bundle removes what
// they hold that it no longer has (admission.Bundle.Sync).
func Owned(more ...string) []string {
	owned := append([]string(nil), more...)
	for _, s := range Severities {
		owned = append(owned, "ome-version-lint-"+s.Severity)
	}
	return owned
}

// Severities are the lint severities that get a ValidatingPolicy of
// their own, with its validation action: errors are refused, warnings are
// returned to the client as warnings.
var Severities = []struct{ Severity, Action, Does, Level string }{
	{engine.SeverityError, "Deny", "refuses the object", "high"},
	{engine.SeverityWarning, "Warn", "warns the client", "medium"},
}

func kyvernoPolicy(t *admission.Check, name string, s struct{ Severity, Action, Does, Level string }, code admission.LintPolicy, exempt admission.Exemptions) []byte {
	policy := admission.Mapping(
		"apiVersion", APIVersion,
		"kind", "ValidatingPolicy",
		"metadata", admission.Mapping(
			"name", name,
			"annotations", admission.Mapping(
				policyset.ReleaseAnnotation, t.Release,
				"policies.kyverno.io/title", fmt.Sprintf("OME version lint, %ss (%s)", s.Severity, t.Release),
				"policies.kyverno.io/category", "OME",
				"policies.kyverno.io/severity", s.Level,
				"policies.kyverno.io/subject", strings.Join(admission.OMEKinds, ", "),
				"policies.kyverno.io/minversion", MinVersion,
				"policies.kyverno.io/description", fmt.Sprintf("The %s findings of `evaluate lint --ome-version %s` (single-object rules): "+
					"versions, operators and formats of models and runtimes that can never match as OME %s reads them. "+
					"Its action (%s) %s, with the first finding's rule id and message. "+
					"Runtime selection (OME's admission webhook verdict on InferenceServices) is the policy "+kyvernoSelectionName+"'s.", s.Severity, t.Release, t.Release, s.Action, s.Does),
			),
		),
		"spec", admission.Mapping(
			"validationActions", admission.Strs([]string{s.Action}),
			"failurePolicy", "Fail",
			"matchConstraints", exempted(code.Match, exempt),
			"variables", code.Variables,
			"validations", code.Validations,
		),
	)
	comment := fmt.Sprintf("%s: OMEVersionLint's %s findings for OME %s, as a Kyverno\nValidatingPolicy (action %s), the same CEL as the ValidatingAdmissionPolicy.\nGenerated by %s from %s. Do not edit.",
		name, s.Severity, t.Release, s.Action, kyvernoGenerator(t), strings.Join(t.Sources, ", "))
	return admission.Document(admission.WithComment(policy, comment))
}

// exempted is a policy's matchConstraints with the exemptions added.
func exempted(match *yaml.Node, exempt admission.Exemptions) *yaml.Node {
	m := *match
	m.Content = slices.Clone(match.Content)
	exempt.AddToMatchResources(&m)
	return &m
}

// kyvernoGenerator is how the policies' headers say they are made: for
// the newest release, the committed bundle's command; for another, the
// command with its --ome-version.
func kyvernoGenerator(t *admission.Check) string {
	if strings.HasPrefix(t.Generator, "`evaluate gatekeeper --ome-version") {
		return "`evaluate kyverno --ome-version " + t.Release + "`"
	}
	return "`evaluate kyverno` (make bundles)"
}

// kyvernoGenerated heads the files of the Kyverno bundle that are the same
// for every release.
const kyvernoGenerated = "Generated by `evaluate kyverno` (make bundles). Do not edit."

// TestObject is one resource of a policy's Kyverno test, with the result
// the policy must give it (pass, fail, skip or error) and, when it fails,
// the message Kyverno gives.
type TestObject struct {
	Kind    string
	Value   map[string]any
	Result  string
	Message string

	namespace, name string
}

// kyvernoTests writes a policy's .kyverno-test: the lint objects, failing
// when `evaluate lint` finds something of the severity in them (the
// message Kyverno gives is the first violation of OMEVersionLint's, in a
// comment).
func kyvernoTests(policy, severity string, lint []admission.ObjectFindings) admission.Bundle {
	var objs []TestObject
	for _, l := range lint {
		msgs := admission.LintViolations(l.Findings, l.Object, severity)
		o := TestObject{Kind: l.Object.Kind, Value: admission.DeepCopy(l.Object.Value), Result: "pass"}
		if len(msgs) > 0 {
			o.Result, o.Message = "fail", msgs[0]
		}
		objs = append(objs, o)
	}
	if len(objs) == 0 {
		return admission.Bundle{} // no lint objects (--lint=): no Test
	}
	b := admission.Bundle{}
	tests := TestDocs(policy, "", objs, b)
	tests[0] = admission.WithComment(tests[0], kyvernoGenerated+"\n"+
		"Run: kubectl-kyverno test <the policy's folder>\n"+
		"A failing result's comment is the message Kyverno gives (the first failing validation).")
	b["kyverno-test.yaml"] = admission.Document(tests...)
	return b
}

// TestDocs are the Tests of policy (../policy.yaml) on objs, whose
// resources it writes into b. A Test names its resources by namespace
// and name, so the objects are split into as few Tests as keep those
// apart: a Test each, named policy, policy-2, ..., with its resources file
// (prefix + resources.yaml, prefix + resources-2.yaml, ...).
func TestDocs(policy, prefix string, objs []TestObject, b admission.Bundle) []*yaml.Node {
	var groups [][]TestObject
	var seen []map[string]bool
	for _, o := range objs {
		meta, _ := o.Value["metadata"].(map[string]any)
		o.name, _ = meta["name"].(string)
		o.namespace, _ = meta["namespace"].(string)
		key := o.namespace + "/" + o.name
		i := 0
		for i < len(groups) && seen[i][key] {
			i++
		}
		if i == len(groups) {
			groups = append(groups, nil)
			seen = append(seen, map[string]bool{})
		}
		groups[i] = append(groups[i], o)
		seen[i][key] = true
	}
	var tests []*yaml.Node
	for i, g := range groups {
		name, file := policy, prefix+"resources.yaml"
		if i > 0 {
			name, file = fmt.Sprintf("%s-%d", policy, i+1), fmt.Sprintf("%sresources-%d.yaml", prefix, i+1)
		}
		docs := make([]*yaml.Node, len(g))
		var results []*yaml.Node
		for j, o := range g {
			docs[j] = admission.Value(o.Value)
			ref := o.name
			if o.namespace != "" {
				ref = o.namespace + "/" + o.name
			}
			r := admission.Mapping(
				"policy", policy,
				"isValidatingPolicy", true,
				"kind", o.Kind,
				"resources", admission.Strs([]string{ref}),
				"result", o.Result,
			)
			if o.Message != "" {
				r.HeadComment = o.Message
			}
			results = append(results, r)
		}
		b[file] = admission.Document(docs...)
		tests = append(tests, admission.Mapping(
			"apiVersion", "cli.kyverno.io/v1alpha1",
			"kind", "Test",
			"metadata", admission.Mapping("name", name),
			"policies", admission.Strs([]string{"../" + policy + ".yaml"}),
			"resources", admission.Strs([]string{file}),
			"results", admission.Seq(results...),
		))
	}
	return tests
}

// kyvernoServices is a policy's .kyverno-test/inferenceservices.yaml:
// InferenceServices, which the policy must admit. kyverno test cannot say
// so (it reports a resource that no policy reviews as not found), so they
// are not in kyverno-test.yaml: make kyverno-verify applies the policy to
// them with kubectl-kyverno apply and wants no result at all.
func kyvernoServices(policy string, services []map[string]any) []byte {
	docs := make([]*yaml.Node, len(services))
	for i, s := range services {
		docs[i] = admission.Value(s)
	}
	docs[0] = admission.WithComment(docs[0], kyvernoGenerated+"\n"+
		"InferenceServices of the selection cases, which "+policy+" admits: it does\n"+
		"not review InferenceServices (runtime selection is "+kyvernoSelectionName+"'s).\n"+
		"Run: kubectl-kyverno apply ../"+policy+".yaml --resource inferenceservices.yaml\n"+
		"(no result: pass 0, fail 0).")
	return admission.Document(docs...)
}

// servicesOf are the InferenceServices of the selection cases, the first
// of each namespace and name (a Kyverno Test names its resources by them,
// and most cases call theirs svc), in the cases' order.
func servicesOf(list []cases.Case) []map[string]any {
	var out []map[string]any
	seen := map[string]bool{}
	for _, c := range list {
		if c.InferenceService == nil {
			continue
		}
		key := c.InferenceService.Namespace + "/" + c.InferenceService.Name
		if !seen[key] {
			seen[key] = true
			out = append(out, admission.DeepCopy(c.InferenceService.Value))
		}
	}
	return out
}

// kyvernoRBAC is the ClusterRole that lets Kyverno read OME's kinds (for
// its background reports, and for resource.Get and resource.List), with
// the labels by which Kyverno's chart aggregates it into its admission and
// reports controllers' roles, and a binding to their service accounts as
// the chart names them by default.
func kyvernoRBAC(release string) []byte {
	resources := []string{"inferenceservices"}
	for _, k := range admission.OMEKinds {
		resources = append(resources, strings.ToLower(k)+"s")
	}
	role := admission.Mapping(
		"apiVersion", "rbac.authorization.k8s.io/v1",
		"kind", "ClusterRole",
		"metadata", admission.Mapping(
			"name", kyvernoRole,
			"labels", admission.Mapping(
				"rbac.kyverno.io/aggregate-to-admission-controller", "true",
				"rbac.kyverno.io/aggregate-to-reports-controller", "true",
			),
			"annotations", admission.Mapping(policyset.ReleaseAnnotation, release),
		),
		"rules", admission.Seq(admission.Mapping(
			"apiGroups", admission.Strs([]string{"ome.io"}),
			"resources", admission.Strs(resources),
			"verbs", admission.Strs([]string{"get", "list", "watch"}),
		)),
	)
	var subjects []*yaml.Node
	for _, sa := range kyvernoServiceAccounts {
		subjects = append(subjects, admission.Mapping("kind", "ServiceAccount", "name", sa, "namespace", Namespace))
	}
	binding := admission.Mapping(
		"apiVersion", "rbac.authorization.k8s.io/v1",
		"kind", "ClusterRoleBinding",
		"metadata", admission.Mapping("name", kyvernoRole, "annotations", admission.Mapping(policyset.ReleaseAnnotation, release)),
		"roleRef", admission.Mapping("apiGroup", "rbac.authorization.k8s.io", "kind", "ClusterRole", "name", kyvernoRole),
		"subjects", admission.Seq(subjects...),
	)
	return admission.Document(admission.WithComment(role, kyvernoGenerated+"\n"+
		"Lets Kyverno's admission and reports controllers read OME's kinds. Kyverno's\n"+
		"chart aggregates the role by its labels; the binding names the service\n"+
		"accounts of a chart installed as kyverno in namespace kyverno."), binding)
}
