package admission

import (
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	evaluator "github.com/ome-policy/evaluator"
	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// The project's own inputs of the suites, as the binary carries them
// (evaluator.SuiteInputs): what `evaluate gatekeeper` reads when it is
// given no --cases and no --lint, in a clone or in an empty folder alike.

// ProjectCases reads the project's selection case files
// (evaluator.SuiteCaseFiles) and returns their cases that hold for
// release.
func ProjectCases(release string) ([]cases.Case, error) {
	var out []cases.Case
	for _, f := range evaluator.SuiteCaseFiles {
		data, err := fs.ReadFile(evaluator.SuiteInputs, f)
		if err != nil {
			return nil, err
		}
		c, err := cases.ParseCases(f, data)
		if err != nil {
			return nil, err
		}
		out = append(out, cases.ForRelease(c, release)...)
	}
	return out, nil
}

// ProjectLintObjects reads the project's models and runtimes of
// OMEVersionLint's suite (evaluator.SuiteLintObjects) as objects.Load
// reads them from a clone: folders recursively, their *.yaml, *.yml and
// *.json files in lexical order, leniently (wrong types are findings).
// Notices (skipped kinds) go to notices.
func ProjectLintObjects(notices io.Writer) ([]*objects.Object, error) {
	var out []*objects.Object
	for _, root := range evaluator.SuiteLintObjects {
		var files []string
		err := fs.WalkDir(evaluator.SuiteInputs, root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			switch strings.ToLower(path.Ext(p)) {
			case ".yaml", ".yml", ".json":
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(files) // whole paths, as objects.Load orders them
		for _, p := range files {
			data, err := fs.ReadFile(evaluator.SuiteInputs, p)
			if err != nil {
				return nil, err
			}
			objs, err := objects.LoadData(p, data, objects.LoadOptions{Lenient: true, Notices: notices})
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
		}
	}
	return out, nil
}

// Options are the inputs of the bundles (admission/bundle.Generate,
// admission/kyverno.Generate); each artefact reads the ones it is
// made of, once.
type Options struct {
	// Policies are the Rego and CEL policies the templates are made of.
	Policies *policyset.Set
	// SelectionCases become the default test of OMERuntimeSelection's
	// suite (the project's are evaluator.SuiteCaseFiles, which cover every
	// step and message of OME's webhook and what each release decides
	// otherwise; ProjectCases reads those that hold for a release).
	SelectionCases []cases.Case
	// Lint are the objects of OMEVersionLint's suite, with what
	// `evaluate lint` finds in each alone (LintEach; the project uses
	// testdata/lint).
	Lint []ObjectFindings
}
