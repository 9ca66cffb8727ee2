// Package cases reads case files: a top-level cases: list of match,
// selection, CEL policy and rule cases, each with what OME (or, for a
// rule case, a team's rule) answers. It is data
// only: it owns the case-file format and its errors (file, line, case,
// field), and runs nothing. runner runs the cases (runner.CaseRunner);
// every object comes from the objects package.
package cases

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies"
)

// Case is one case of a case file: a match case (Model, Runtime,
// Expect.Compatible) or a selection case (InferenceService, Objects,
// Expect.Admitted).
type Case struct {
	File string
	Line int
	Name string

	// OMEVersions are the OME releases the case holds for ("v0.1.4"), from
	// its omeVersions, else from its file's; nil: every release.
	OMEVersions []string
	// OMEVersionsLine is the line of the omeVersions that gives them.
	OMEVersionsLine int
	// OMEVersionsOfFile tells that they are its file's: the omeVersions
	// at the top of the file, not the case's own.
	OMEVersionsOfFile bool

	Model, Runtime *objects.Object // match case

	InferenceService *objects.Object   // selection case
	Objects          []*objects.Object // selection case; rule case: the models and runtimes beside Object

	CELPolicy string         // CEL policy case: the policy's name
	Input     map[string]any // CEL policy case: the policy's inputs

	Rule   string          // rule case: a team's rule (--rules), by id
	Object *objects.Object // rule case: the object it reviews, beside Objects (optional)

	Expect Expect
}

// Expect is what a case expects; nil fields were not given.
type Expect struct {
	Compatible *bool   // match case
	Reason     *string // match case, optional

	Admitted *bool   // selection case
	Runtime  *string // selection case: the runtime the webhook selected, if it selected one
	Message  *string // selection case: the webhook's rejection message, if any

	Failures  *[]string      // CEL policy case: messages of the failing validations, in order
	Variables map[string]any // CEL policy case, optional: values of named variables

	Findings *[]string // rule case: the messages the rule gives the object, in order
}

// The roles an object can play in a case: which kinds it may have, and the
// defaults that let a match case give just a spec.
type caseRole struct {
	what        string
	kinds       []string
	defaultKind string
	defaultName string
}

var (
	roleModel   = caseRole{"a model", []string{objects.KindBaseModel, objects.KindClusterBaseModel}, objects.KindClusterBaseModel, "model"}
	roleRuntime = caseRole{"a runtime", []string{objects.KindServingRuntime, objects.KindClusterServingRuntime}, objects.KindClusterServingRuntime, "runtime"}
	roleService = caseRole{"an inference service", []string{objects.KindInferenceService}, objects.KindInferenceService, ""}
	roleCluster = caseRole{"a model or runtime", []string{objects.KindBaseModel, objects.KindClusterBaseModel,
		objects.KindServingRuntime, objects.KindClusterServingRuntime}, "", ""}
	roleAny = caseRole{"a model, runtime or inference service", []string{objects.KindBaseModel, objects.KindClusterBaseModel,
		objects.KindServingRuntime, objects.KindClusterServingRuntime, objects.KindInferenceService}, "", ""}
)

// sortOf says what an OME kind is, for messages about a kind in the wrong place.
func sortOf(kind string) string {
	switch kind {
	case objects.KindBaseModel, objects.KindClusterBaseModel:
		return "a model"
	case objects.KindServingRuntime, objects.KindClusterServingRuntime:
		return "a runtime"
	}
	return "an inference service"
}

// ReadAll reads the case files of paths (ReadCases), in order.
func ReadAll(paths []string) ([]Case, error) {
	var all []Case
	for _, p := range paths {
		c, err := ReadCases(p)
		if err != nil {
			return nil, err
		}
		all = append(all, c...)
	}
	return all, nil
}

// ReadCases reads a case file (YAML or JSON): a top-level `cases:` list (in
// each document, when there are several). Every malformed case is an
// InputError naming the file, the line and, when known, the case.
func ReadCases(path string) ([]Case, error) {
	data, file, err := input.ReadInput(path, nil)
	if err != nil {
		return nil, err
	}
	return ParseCases(file, data)
}

// ParseCases reads the cases of a case file's content, data, read from
// file (the name its errors give).
func ParseCases(file string, data []byte) (cases []Case, err error) {
	defer func() {
		if r := recover(); r != nil {
			cases, err = nil, &objects.InputError{File: file, Msg: fmt.Sprintf("internal error while decoding: %v", r)}
		}
	}()
	names := map[string]int{} // name -> line, to report duplicates
	found := false
	err = objects.EachDocument(file, data, func(doc *yaml.Node) error {
		v, pos, err := objects.DecodeValue(file, doc, "")
		if err != nil || v == nil {
			return err
		}
		root, _ := v.(map[string]any)
		list, ok := root["cases"].([]any)
		if !ok {
			msg := "not a case file: needs a top-level cases list"
			if c, present := root["cases"]; present {
				msg = "must be a list of cases, got " + objects.DescribeValue(c, pos.At("cases").Raw)
			}
			return &objects.InputError{File: file, Line: objects.LineAt(pos, "cases", pos.At("").Line), Field: "cases", Msg: msg}
		}
		found = true
		fileVersions, err := readOMEVersions(root, pos, func(field, msg string) error {
			return &objects.InputError{File: file, Line: objects.LineAt(pos, field, pos.At("").Line), Field: field, Msg: msg}
		})
		if err != nil {
			return err
		}
		parts := objects.SplitPos(pos, "cases")
		for i, cv := range list {
			c, err := readCase(file, i, cv, parts[i], names)
			if err != nil {
				return err
			}
			if c.OMEVersions == nil && fileVersions != nil {
				c.OMEVersions, c.OMEVersionsLine, c.OMEVersionsOfFile = fileVersions, objects.LineAt(pos, "omeVersions", 0), true
			}
			cases = append(cases, c)
		}
		return nil
	})
	if err == nil && !found {
		err = &objects.InputError{File: file, Msg: "not a case file: needs a top-level cases list"}
	}
	if err != nil {
		return nil, err
	}
	return cases, nil
}

// readCase reads the i-th case; pos holds its positions relative to the case.
func readCase(file string, i int, v any, pos objects.Positions, names map[string]int) (Case, error) {
	c := Case{File: file, Line: pos.At("").Line}
	fail := func(field, msg string) error {
		e := &objects.InputError{File: file, Line: objects.LineAt(pos, field, c.Line), Case: c.Name, Field: field, Msg: msg}
		if c.Name == "" { // no name to show yet: say which item of the list it is
			e.Field = strings.TrimSuffix(objects.IndexPath("cases", i)+"."+field, ".")
		}
		return e
	}
	m, ok := v.(map[string]any)
	if !ok {
		return c, fail("", "a case must be an object, got "+objects.DescribeValue(v, pos.At("").Raw))
	}
	if err := readCaseName(&c, m, pos, names, fail); err != nil {
		return c, err
	}
	versions, err := readOMEVersions(m, pos, fail)
	if err != nil {
		return c, err
	}
	if versions != nil {
		c.OMEVersions, c.OMEVersionsLine = versions, objects.LineAt(pos, "omeVersions", c.Line)
	}
	expect, err := expectations(m, pos, fail)
	if err != nil {
		return c, err
	}
	kind, err := caseSort(m, expect, fail)
	if err != nil {
		return c, err
	}
	if err := readExpect(&c, expect, pos, fail); err != nil {
		return c, err
	}
	if kind == policyCase {
		return readPolicyCase(c, m, expect, pos, fail)
	}
	if kind == ruleCase {
		return readRuleCase(c, m, expect, pos, fail)
	}
	return c, readCaseObjects(&c, m, pos, kind, fail)
}

// readOMEVersions reads the omeVersions of a case or a file: a non-empty
// list of OME releases, each written "v0.1.4" or "0.1.4" (given as
// "v0.1.4"); nil when there is none. Which releases are known is the
// runner's to check (CheckReleases).
func readOMEVersions(m map[string]any, pos objects.Positions, fail func(field, msg string) error) ([]string, error) {
	v, present := m["omeVersions"]
	if !present {
		return nil, nil
	}
	list, ok := v.([]any)
	if !ok || len(list) == 0 {
		return nil, fail("omeVersions", "must be a non-empty list of OME releases (such as v0.1.4), got "+objects.DescribeValue(v, pos.At("omeVersions").Raw))
	}
	out := make([]string, 0, len(list))
	for i, x := range list {
		field := objects.IndexPath("omeVersions", i)
		s, _ := x.(string)
		r, ok := policies.NormalizeRelease(s)
		if !ok {
			return nil, fail(field, "must be an OME release such as v0.1.4, got "+objects.DescribeValue(x, pos.At(field).Raw))
		}
		if slices.Contains(out, r) {
			return nil, fail(field, "names "+r+" twice")
		}
		out = append(out, r)
	}
	return out, nil
}

// HoldsFor reports whether the case holds for an OME release.
func (c *Case) HoldsFor(release string) bool {
	return c.OMEVersions == nil || slices.Contains(c.OMEVersions, release)
}

// ForRelease keeps the cases that hold for an OME release.
func ForRelease(list []Case, release string) []Case {
	var out []Case
	for _, c := range list {
		if c.HoldsFor(release) {
			out = append(out, c)
		}
	}
	return out
}

// CheckReleases checks that every release a case names is one of known:
// the first that is not is an error naming its file and line, and its case
// when the case names it (not its file).
func CheckReleases(list []Case, known []string) error {
	for _, c := range list {
		for _, r := range c.OMEVersions {
			if !slices.Contains(known, r) {
				e := &objects.InputError{File: c.File, Line: c.OMEVersionsLine, Case: c.Name, Field: "omeVersions",
					Msg: fmt.Sprintf("names %s, which is not an OME release the policies state (%s)", r, strings.Join(known, ", "))}
				if c.OMEVersionsOfFile {
					e.Case = "" // the file's omeVersions, said at its line: no case is to blame
				}
				return e
			}
		}
	}
	return nil
}

// readCaseName reads the case's name, which must be new in its file.
func readCaseName(c *Case, m map[string]any, pos objects.Positions, names map[string]int, fail func(field, msg string) error) error {
	if name, present := m["name"]; !present {
		return fail("name", "every case needs a name")
	} else if c.Name, _ = name.(string); c.Name == "" {
		return fail("name", "must be a non-empty string, got "+objects.DescribeValue(name, pos.At("name").Raw))
	}
	if line, dup := names[c.Name]; dup {
		return fail("name", fmt.Sprintf("duplicate case name (first at line %d)", line))
	}
	names[c.Name] = c.Line
	return nil
}

// expectations is the case's expect object. Unknown keys are refused: a
// misspelt expectation would otherwise be silently not checked.
func expectations(m map[string]any, pos objects.Positions, fail func(field, msg string) error) (map[string]any, error) {
	expect, _ := m["expect"].(map[string]any)
	if e, present := m["expect"]; present && expect == nil {
		return nil, fail("expect", "must be an object, got "+objects.DescribeValue(e, pos.At("expect").Raw))
	}
	for _, k := range slices.Sorted(maps.Keys(expect)) {
		switch k {
		case "compatible", "reason", "admitted", "runtime", "message", "failures", "variables", "findings":
		default:
			return nil, fail(objects.JoinPath("expect", k), "unknown expectation (known: compatible, reason, admitted, runtime, message, failures, variables, findings)")
		}
	}
	return expect, nil
}

// The sorts of case.
type caseKind int

const (
	matchCase caseKind = iota
	selectionCase
	policyCase
	ruleCase
)

// hasAny tells whether m has one of the keys.
func hasAny(m map[string]any, keys ...string) bool {
	for _, k := range keys {
		if _, ok := m[k]; ok {
			return true
		}
	}
	return false
}

// caseSort tells the sort of case from its fields, which must be of one
// sort only, and checks that it has that sort's required fields.
func caseSort(m, expect map[string]any, fail func(field, msg string) error) (caseKind, error) {
	match := hasAny(m, "model", "runtime") || hasAny(expect, "compatible", "reason")
	rule := hasAny(m, "rule", "object") || hasAny(expect, "findings")
	// A rule case may give objects (the cluster beside its object) too.
	selection := hasAny(m, "inferenceService") || !rule && hasAny(m, "objects") || hasAny(expect, "admitted", "runtime", "message")
	policy := hasAny(m, "celPolicy", "input") || hasAny(expect, "failures", "variables")
	const kinds = "a match case (model, runtime, expect.compatible), a selection case (inferenceService, objects, expect.admitted), a CEL policy case (celPolicy, input, expect.failures) or a rule case (rule, object, optional objects, expect.findings)"
	switch n := btoi(match) + btoi(selection) + btoi(policy) + btoi(rule); {
	case n > 1:
		return 0, fail("", "mixes the fields of different sorts of case; a case is "+kinds)
	case n == 0:
		return 0, fail("", "must be "+kinds)
	}
	kind, what, required := matchCase, "match", []string{"model", "runtime", "expect", "expect.compatible"}
	switch {
	case selection:
		kind, what, required = selectionCase, "selection", []string{"inferenceService", "objects", "expect", "expect.admitted"}
	case policy:
		kind, what, required = policyCase, "CEL policy", []string{"celPolicy", "input", "expect", "expect.failures"}
	case rule:
		kind, what, required = ruleCase, "rule", []string{"rule", "object", "expect", "expect.findings"}
	}
	for _, r := range required {
		parent, key, _ := strings.Cut(r, ".")
		if !hasAny(m, parent) || key != "" && !hasAny(expect, key) {
			return 0, fail(r, "is required in a "+what+" case")
		}
	}
	return kind, nil
}

// readExpect reads the expectations of match and selection cases.
func readExpect(c *Case, expect map[string]any, pos objects.Positions, fail func(field, msg string) error) error {
	for _, k := range []string{"compatible", "reason", "admitted", "runtime", "message"} {
		v, ok := expect[k]
		if !ok {
			continue
		}
		field := "expect." + k
		switch k {
		case "compatible", "admitted":
			b, ok := v.(bool)
			if !ok {
				return fail(field, "must be true or false, got "+objects.DescribeValue(v, pos.At(field).Raw))
			}
			if k == "compatible" {
				c.Expect.Compatible = &b
			} else {
				c.Expect.Admitted = &b
			}
		default:
			s, ok := v.(string)
			if !ok {
				return fail(field, "must be a string, got "+objects.DescribeValue(v, pos.At(field).Raw))
			}
			switch k {
			case "reason":
				c.Expect.Reason = &s
			case "runtime":
				c.Expect.Runtime = &s
			default:
				c.Expect.Message = &s
			}
		}
	}
	return nil
}

// readCaseObjects reads the objects of a match case (model, runtime) or a
// selection case (inferenceService, objects).
func readCaseObjects(c *Case, m map[string]any, pos objects.Positions, kind caseKind, fail func(field, msg string) error) error {
	// Errors from an object name its field relative to the object; put the
	// case's field in front, so "spec.x" reads "model.spec.x".
	object := func(field string, v any, pos objects.Positions, role caseRole) (*objects.Object, error) {
		o, err := caseObject(c.File, v, pos, role)
		if ie, ok := err.(*objects.InputError); ok {
			ie.Case = c.Name
			ie.Field = strings.TrimSuffix(field+"."+ie.Field, ".")
		}
		return o, err
	}
	var err error
	if kind == matchCase {
		if c.Model, err = object("model", m["model"], objects.SubPos(pos, "model"), roleModel); err != nil {
			return err
		}
		c.Runtime, err = object("runtime", m["runtime"], objects.SubPos(pos, "runtime"), roleRuntime)
		return err
	}
	if c.InferenceService, err = object("inferenceService", m["inferenceService"], objects.SubPos(pos, "inferenceService"), roleService); err != nil {
		return err
	}
	c.Objects, err = clusterObjects(c, m, pos, fail)
	return err
}

// clusterObjects reads the objects of a case's cluster (objects), the
// models and runtimes beside the object it reviews.
func clusterObjects(c *Case, m map[string]any, pos objects.Positions, fail func(field, msg string) error) ([]*objects.Object, error) {
	list, ok := m["objects"].([]any)
	if !ok {
		return nil, fail("objects", "must be a list, got "+objects.DescribeValue(m["objects"], pos.At("objects").Raw))
	}
	parts := objects.SplitPos(pos, "objects")
	var out []*objects.Object
	for j, x := range list {
		o, err := caseObject(c.File, x, parts[j], roleCluster)
		if ie, ok := err.(*objects.InputError); ok {
			ie.Case = c.Name
			ie.Field = strings.TrimSuffix(objects.IndexPath("objects", j)+"."+ie.Field, ".")
		}
		if err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, nil
}

// caseObject builds an object of a case from its value and its own
// positions, filling in the defaults of its role, and checks it strictly.
func caseObject(file string, v any, pos objects.Positions, role caseRole) (*objects.Object, error) {
	line := pos.At("").Line
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &objects.InputError{File: file, Line: line, Msg: "must be " + role.what + " object, got " + objects.DescribeValue(v, pos.At("").Raw)}
	}
	if _, ok := m["apiVersion"]; !ok {
		m["apiVersion"] = objects.APIVersion
	}
	if _, ok := m["kind"]; !ok && role.defaultKind != "" {
		m["kind"] = role.defaultKind
	}
	if _, ok := m["metadata"]; !ok {
		m["metadata"] = map[string]any{}
	}
	if meta, ok := m["metadata"].(map[string]any); ok && role.defaultName != "" {
		if _, ok := meta["name"]; !ok {
			meta["name"] = role.defaultName
		}
	}
	fail := func(field, msg string) error {
		return &objects.InputError{File: file, Line: objects.LineAt(pos, field, line), Field: field, Msg: msg}
	}
	if av, _ := m["apiVersion"].(string); av != objects.APIVersion {
		return nil, fail("apiVersion", "must be "+objects.APIVersion+", got "+objects.DescribeValue(m["apiVersion"], pos.At("apiVersion").Raw))
	}
	kind, _ := m["kind"].(string)
	n := len(role.kinds)
	kinds := strings.Join(role.kinds[:n-1], ", ") + " or " + role.kinds[n-1]
	if n == 1 {
		kinds = role.kinds[0]
	}
	allowed := false
	for _, k := range role.kinds {
		allowed = allowed || k == kind
	}
	switch {
	case allowed:
	case objects.IsOMEKind(kind):
		return nil, fail("kind", fmt.Sprintf("%s is %s, but %s is expected here (%s)",
			kind, sortOf(kind), role.what, kinds))
	case m["kind"] == nil:
		return nil, fail("kind", "is required ("+kinds+")")
	default:
		return nil, fail("kind", "must be "+kinds+", got "+objects.DescribeValue(m["kind"], pos.At("kind").Raw))
	}
	o, err := objects.NewObject(file, m, pos)
	if err == nil {
		err = objects.CheckObject(o)
	}
	if err != nil {
		return nil, err
	}
	return o, nil
}

// IsCaseFile reports whether a YAML or JSON file is a case file: its first
// non-empty document is a mapping with a top-level `cases` key. A file that
// cannot be read or does not parse is an error, so a broken case file in a
// folder is reported rather than passed over.
func IsCaseFile(path string) (found bool, err error) {
	data, file, err := input.ReadInput(path, nil)
	if err != nil {
		return false, err
	}
	defer func() {
		if r := recover(); r != nil {
			found, err = false, &objects.InputError{File: file, Msg: fmt.Sprintf("cannot decode: %v", r)}
		}
	}()
	err = objects.EachDocument(file, data, func(doc *yaml.Node) error {
		if len(doc.Content) == 0 || doc.Content[0].ShortTag() == "!!null" {
			return nil
		}
		root := doc.Content[0]
		for i := 0; root.Kind == yaml.MappingNode && i+1 < len(root.Content); i += 2 {
			if k := root.Content[i]; k.Kind == yaml.ScalarNode && k.Value == "cases" {
				found = true
			}
		}
		return objects.ErrStopDocuments
	})
	if errors.Is(err, objects.ErrStopDocuments) {
		err = nil
	}
	return found, err
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// readPolicyCase reads the fields of a CEL policy case: a unit test of one
// CEL policy, with its inputs given directly.
func readPolicyCase(c Case, m, expect map[string]any, pos objects.Positions, fail func(field, msg string) error) (Case, error) {
	if c.CELPolicy, _ = m["celPolicy"].(string); c.CELPolicy == "" {
		return c, fail("celPolicy", "must be the name of a CEL policy, got "+objects.DescribeValue(m["celPolicy"], pos.At("celPolicy").Raw))
	}
	if c.Input, _ = m["input"].(map[string]any); c.Input == nil {
		return c, fail("input", "must be an object of the policy's inputs, got "+objects.DescribeValue(m["input"], pos.At("input").Raw))
	}
	list, ok := expect["failures"].([]any)
	if !ok {
		return c, fail("expect.failures", "must be a list of messages, got "+objects.DescribeValue(expect["failures"], pos.At("expect.failures").Raw))
	}
	failures := make([]string, 0, len(list))
	for i, f := range list {
		s, ok := f.(string)
		if !ok {
			field := objects.IndexPath("expect.failures", i)
			return c, fail(field, "must be a string, got "+objects.DescribeValue(f, pos.At(field).Raw))
		}
		failures = append(failures, s)
	}
	c.Expect.Failures = &failures
	if v, present := expect["variables"]; present {
		if c.Expect.Variables, _ = v.(map[string]any); c.Expect.Variables == nil {
			return c, fail("expect.variables", "must be an object of variable names and values, got "+objects.DescribeValue(v, pos.At("expect.variables").Raw))
		}
	}
	return c, nil
}

// readRuleCase reads the fields of a rule case: a unit test of a team's
// rule (--rules), the object it reviews and the messages it gives it.
func readRuleCase(c Case, m, expect map[string]any, pos objects.Positions, fail func(field, msg string) error) (Case, error) {
	if c.Rule, _ = m["rule"].(string); c.Rule == "" {
		return c, fail("rule", "must be the id of a team's rule (its Rego package or its policy's name), got "+objects.DescribeValue(m["rule"], pos.At("rule").Raw))
	}
	o, err := caseObject(c.File, m["object"], objects.SubPos(pos, "object"), roleAny)
	if ie, ok := err.(*objects.InputError); ok {
		ie.Case = c.Name
		ie.Field = strings.TrimSuffix("object."+ie.Field, ".")
	}
	if err != nil {
		return c, err
	}
	c.Object = o
	if _, given := m["objects"]; given {
		if c.Objects, err = clusterObjects(&c, m, pos, fail); err != nil {
			return c, err
		}
	}
	list, ok := expect["findings"].([]any)
	if !ok {
		return c, fail("expect.findings", "must be a list of messages ([] for none), got "+objects.DescribeValue(expect["findings"], pos.At("expect.findings").Raw))
	}
	msgs := make([]string, 0, len(list))
	for i, f := range list {
		s, ok := f.(string)
		if !ok {
			field := objects.IndexPath("expect.findings", i)
			return c, fail(field, "must be a string, got "+objects.DescribeValue(f, pos.At(field).Raw))
		}
		msgs = append(msgs, s)
	}
	c.Expect.Findings = &msgs
	return c, nil
}

// Int64s is v, a case file's value, with every integer an int64, as the
// engines give them.
func Int64s(v any) any {
	switch x := v.(type) {
	case int:
		return int64(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = Int64s(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = Int64s(e)
		}
		return out
	}
	return v
}
