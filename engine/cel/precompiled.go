package cel

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/ome-policy/evaluator/engine/cel/checkedast"
	"github.com/ome-policy/evaluator/engine/policyset"
)

// Precompiled CEL: parsing and checking the CEL policies is most of what a
// short run costs (one model against one runtime), so the binary carries
// its embedded policies already compiled, made by `make celcache` and kept
// current by TestPrecompiledCELIsCurrent: each document with its checked
// expressions, in the order compilePolicy compiles them (the variables,
// then each validation's expression and message expression), in the file
// format of package checkedast.
//
// A policy file whose text is exactly one the cache was made from (whatever
// file or folder it was read from) is not read as YAML at all: its
// documents come from the cache, and only those a command runs are decoded.
// In any other file, a document whose content is exactly one of the cache's
// takes its checked expressions from there; any other document is compiled
// from its text.

//go:embed precompiled.bin
var precompiledFile string

// precompiled is the embedded cache, read on first use (nil when it cannot
// be read: every policy is then compiled from its text).
var precompiled = sync.OnceValue(func() *checkedast.Cache {
	c, err := checkedast.Decode(precompiledFile)
	if err != nil {
		return nil
	}
	return c
})

// policyKey identifies a policy document by everything that goes into
// compiling it.
func policyKey(doc *policyDoc) (string, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// Precompile compiles every CEL policy of set from its text, in every OME
// release it states (set is the newest release's), and returns the file
// that precompiled.bin holds for them: each file's text of each release
// once. The output depends only on the policies, so it can be compared
// with the committed file.
func Precompile(set *policyset.Set) ([]byte, error) {
	var files []checkedast.File
	seen := map[string]bool{}
	for _, release := range set.Releases() {
		rs, err := set.ForRelease(release)
		if err != nil {
			return nil, err
		}
		all, err := compileWith(nil, rs)
		if err != nil {
			return nil, err
		}
		for _, f := range rs.Sources(policyset.CEL, false) {
			if seen[f.Text] {
				continue
			}
			seen[f.Text] = true
			var ps []*policy
			for _, p := range all.byName {
				if p.source == rs.Where(f) {
					ps = append(ps, p)
				}
			}
			slices.SortFunc(ps, func(a, b *policy) int { return a.from.line - b.from.line })
			file := checkedast.File{Text: f.Text}
			for _, p := range ps {
				file.Docs = append(file.Docs, cachedDoc(p))
			}
			files = append(files, file)
		}
	}
	out, err := checkedast.Encode(files)
	if err != nil {
		return nil, fmt.Errorf("precompiling the CEL policies: %w", err)
	}
	return out, nil
}

// cachedDoc is a compiled policy as the cache holds it.
func cachedDoc(p *policy) *checkedast.Doc {
	d := p.from.doc
	out := &checkedast.Doc{
		Key: p.key, Name: p.name,
		APIVersion: d.APIVersion, Kind: d.Kind, Evaluation: d.Spec.Evaluation, Inputs: d.Spec.Inputs,
		Line: p.from.line, ASTs: p.checked,
	}
	for i, v := range d.Spec.Variables {
		out.Variables = append(out.Variables, checkedast.Variable{Name: v.Name, Expression: v.Expression, Line: lineAt(p.from.lines.variables, i)})
	}
	for i, v := range d.Spec.Validations {
		out.Validations = append(out.Validations, checkedast.Validation{Name: v.Name, Expression: v.Expression, Message: v.Message,
			MessageExpression: v.MessageExpression, Line: lineAt(p.from.lines.validations, i)})
	}
	return out
}

func lineAt(lines []int, i int) int {
	if i < len(lines) {
		return lines[i]
	}
	return 0
}

// fromCache is the document a cached policy was compiled from; its lists
// are nil when empty, as YAML leaves a list that is absent.
func fromCache(d *checkedast.Doc) *compiledFrom {
	doc := &policyDoc{APIVersion: d.APIVersion, Kind: d.Kind}
	doc.Metadata.Name = d.Name
	doc.Spec.Evaluation = d.Evaluation
	doc.Spec.Inputs = d.Inputs
	from := &compiledFrom{doc: doc, line: d.Line}
	if len(d.Variables) > 0 {
		doc.Spec.Variables = make([]policyVariable, len(d.Variables))
		from.lines.variables = make([]int, len(d.Variables))
		for i, v := range d.Variables {
			doc.Spec.Variables[i] = policyVariable{Name: v.Name, Expression: v.Expression}
			from.lines.variables[i] = v.Line
		}
	}
	if len(d.Validations) > 0 {
		doc.Spec.Validations = make([]policyValidation, len(d.Validations))
		from.lines.validations = make([]int, len(d.Validations))
		for i, v := range d.Validations {
			doc.Spec.Validations[i] = policyValidation{Name: v.Name, Expression: v.Expression, Message: v.Message, MessageExpression: v.MessageExpression}
			from.lines.validations[i] = v.Line
		}
	}
	return from
}
