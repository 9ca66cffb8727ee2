package admission

import (
	"fmt"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	evaluator "github.com/ome-policy/evaluator"
	"github.com/ome-policy/evaluator/cases"
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
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
// OMEVersionLint's suite (evaluator.SuiteLintObjects) as input.Load
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
		sort.Strings(files) // whole paths, as input.Load orders them
		for _, p := range files {
			data, err := fs.ReadFile(evaluator.SuiteInputs, p)
			if err != nil {
				return nil, err
			}
			objs, err := input.LoadData(p, data, input.LoadOptions{Lenient: true, Notices: notices})
			if err != nil {
				return nil, err
			}
			out = append(out, objs...)
		}
	}
	return out, nil
}

// BundleInputs are the inputs of an admission bundle's tests, for the
// policies of set: the selection cases of caseFiles and the lint objects of
// lint, with evaluate lint's findings; where a list is nil, the project's
// own, which the binary carries, so that a clone and any other folder make
// the same bundle. Notices of reading the lint objects go to notices.
func BundleInputs(set *policyset.Set, caseFiles, lint []string, notices io.Writer) (Options, error) {
	opts := Options{Policies: set}
	var err error
	if caseFiles != nil {
		c, err := cases.ReadAll(caseFiles)
		if err != nil {
			return opts, fmt.Errorf("--cases: %w", err)
		}
		opts.SelectionCases = cases.ForRelease(c, set.Release)
	} else if opts.SelectionCases, err = ProjectCases(set.Release); err != nil {
		return opts, err
	}
	var objs []*objects.Object
	if lint != nil {
		if len(lint) > 0 {
			if objs, err = input.Load(lint, input.LoadOptions{Lenient: true, Notices: notices}); err != nil {
				return opts, fmt.Errorf("--lint: %w", err)
			}
		}
	} else if objs, err = ProjectLintObjects(notices); err != nil {
		return opts, err
	}
	opts.Objects = objs
	opts.Lint, err = lintForSuite(set, objs)
	return opts, err
}

// lintForSuite lints the models and runtimes of the lint policies' tests
// (the kinds the template reviews; lint's InferenceServices are left out),
// each alone, on the Rego engine, whose policies the template carries.
func lintForSuite(set *policyset.Set, objs []*objects.Object) ([]ObjectFindings, error) {
	kept := make([]*objects.Object, 0, len(objs))
	for _, o := range objs {
		if o.IsModel() || o.IsRuntime() {
			kept = append(kept, o)
		}
	}
	objs = kept
	if len(objs) == 0 {
		return nil, nil
	}
	linter, err := engine.NewLinter(engine.Rego, set)
	if err != nil {
		return nil, err
	}
	return LintEach(linter, objs)
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
	// Objects are every object of --lint (the project's lint objects
	// without it), InferenceServices among them, which the suites of a
	// team's rules review (rules/admit).
	Objects []*objects.Object
	// Extra are the files of each target beside OME's checks: a team's
	// rules (rules/admit); none without --rules.
	Extra Extras
	// Exempt are the objects that every check of the bundles leaves
	// alone, written into each target's match.
	Exempt Exemptions
}
