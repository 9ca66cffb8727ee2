package cel

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	celast "github.com/google/cel-go/common/ast"
	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/ext"
	"github.com/google/cel-go/interpreter"
	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/builtins/cellib"
)

// policyDoc is one document of a CEL policy file.
type policyDoc struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		Inputs      []string           `yaml:"inputs"`
		Evaluation  string             `yaml:"evaluation"`
		Variables   []policyVariable   `yaml:"variables"`
		Validations []policyValidation `yaml:"validations"`
	} `yaml:"spec"`
}

type policyVariable struct {
	Name       string `yaml:"name"`
	Expression string `yaml:"expression"`
}

type policyValidation struct {
	// Name names the check, for a result that says which one failed.
	Name              string `yaml:"name,omitempty"`
	Expression        string `yaml:"expression"`
	Message           string `yaml:"message"`
	MessageExpression string `yaml:"messageExpression"`
}

// compiledFrom is the document a policy was compiled from and where its
// parts are in the file.
type compiledFrom struct {
	doc   *policyDoc
	line  int // the document's first line
	lines policyLines
}

const (
	policyAPIVersion = "policy.ome.io/v1alpha1"
	celPolicyKind    = "CELPolicy"
)

// policy is a compiled CEL policy: variables evaluated lazily, at most
// once per evaluation, then the validations in order.
type policy struct {
	name      string
	source    string
	key       string        // identifies the document, for precompiled ASTs
	checked   []*celast.AST // every expression, in compile order
	from      *compiledFrom // for Precompile
	inputs    []string
	firstOnly bool
	varNames  []string
	varIndex  map[string]int
	vars      []program
	// modelOnly[i] is true when variable i reads no input but `model`
	// (directly or through other such variables): its value is the same
	// for every pair of one model, and a batch computes it once per model.
	modelOnly []bool
	// varReads[i] is what variable i reads of the inputs (see readsOf).
	varReads []readSet
	checks   []checkExpr
}

type checkExpr struct {
	name    string
	expr    program
	message string
	msgExpr program // nil when message is fixed
	line    int
	// reads is what the validation and its message read of the inputs: a
	// batch reuses its outcome for inputs that agree on those fields.
	reads readSet
}

// programOptions fold what is constant (literal lists of field names and
// the like) once, at compile time.
var programOptions = []cel.ProgramOption{cel.EvalOptions(cel.OptOptimize)}

// envOptions are the libraries every policy may use.
func envOptions() []cel.EnvOption {
	return []cel.EnvOption{
		cel.OptionalTypes(),
		ext.Strings(),
		ext.Lists(),
		ext.Bindings(),
		ext.Math(),
		ext.TwoVarComprehensions(),
		cellib.Library(),
	}
}

// baseEnv is the environment with the libraries, built once per process:
// each precompiled policy extends it with its inputs (and the engine's
// functions), as building an environment with all the libraries is costly.
var baseEnv = sync.OnceValues(func() (*cel.Env, error) { return cel.NewEnv(envOptions()...) })

// parsePolicies reads the CEL policy documents of one file and
// compiles them with more environment options, such as functions that only
// the engine can bind. With names, only the documents of those policies are
// compiled.
func parsePolicies(where, text string, names []string, extra ...cel.EnvOption) ([]*policy, error) {
	return parsePoliciesWith(precompiled(), where, text, names, extra...)
}

// parsePoliciesWith is parsePolicies with the given precompiled cache (nil:
// compile every document from its text).
func parsePoliciesWith(cache *precompiledCache, where, text string, names []string, extra ...cel.EnvOption) ([]*policy, error) {
	if docs := cache.fileDocs(text); docs != nil {
		if out, ok := compileCached(where, docs, names, extra); ok {
			return out, nil
		}
	}
	type document struct {
		node yaml.Node
		doc  policyDoc
	}
	dec := yaml.NewDecoder(bytes.NewReader([]byte(text)))
	var docs []*document
	var decodeErr error
	for {
		d := &document{}
		err := dec.Decode(&d.node)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			decodeErr = fmt.Errorf("%s: %w", where, err)
			break
		}
		if err := d.node.Decode(&d.doc); err != nil {
			decodeErr = fmt.Errorf("%s:%d: %w", where, d.node.Line, err)
			break
		}
		if len(names) > 0 && !slices.Contains(names, d.doc.Metadata.Name) {
			continue
		}
		docs = append(docs, d)
	}
	// The documents compile at the same time; errors are reported in the
	// order of the file, as if one after the other.
	out := make([]*policy, len(docs))
	errs := make([]error, len(docs))
	var wg sync.WaitGroup
	for i, d := range docs {
		wg.Go(func() {
			from := &compiledFrom{doc: &d.doc, line: d.node.Line, lines: exprLines(&d.node)}
			key, err := policyKey(&d.doc)
			if err != nil {
				errs[i] = fmt.Errorf("%s:%d: policy %s: %w", where, d.node.Line, d.doc.Metadata.Name, err)
				return
			}
			out[i], errs[i] = compilePolicy(where, from, key, cache.docASTs(key), extra)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if decodeErr != nil {
		return nil, decodeErr
	}
	return out, nil
}

// compileCached compiles the named documents of a file that the cache
// holds whole, without reading its YAML; ok is false when a document
// cannot be decoded (the file is then read as any other).
func compileCached(where string, docs []*cachedPolicy, names []string, extra []cel.EnvOption) ([]*policy, bool) {
	var todo []*cachedPolicy
	for _, d := range docs {
		if len(names) == 0 || slices.Contains(names, d.name) {
			todo = append(todo, d)
		}
	}
	out := make([]*policy, len(todo))
	errs := make([]error, len(todo))
	var wg sync.WaitGroup
	for i, d := range todo {
		wg.Go(func() {
			from, asts, err := d.load()
			if err != nil {
				errs[i] = err
				return
			}
			out[i], errs[i] = compilePolicy(where, from, d.key, asts, extra)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return nil, false
		}
	}
	return out, true
}

// compilePolicy compiles one document; precompiled are its checked
// expressions when the cache has them (nil: compile them from the text).
func compilePolicy(where string, from *compiledFrom, key string, precompiled []*celast.AST, extra []cel.EnvOption) (*policy, error) {
	c := &policyCompiler{where: where, from: from, doc: from.doc, precompiled: precompiled}
	p, err := c.header(key)
	if err != nil {
		return nil, err
	}
	c.p = p
	for _, step := range []func() error{
		func() error { return c.environment(extra) },
		c.variables,
		c.validations,
	} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// policyCompiler holds compilePolicy's state: the policy so far, and the
// environment that later expressions are checked in.
type policyCompiler struct {
	where       string
	from        *compiledFrom
	doc         *policyDoc
	precompiled []*celast.AST
	p           *policy
	env         *cel.Env
	parsed      map[string]parsedExpr
}

func (c *policyCompiler) at(line int) string { return fmt.Sprintf("%s:%d", c.where, line) }

// header checks the document's kind, name and evaluation mode.
func (c *policyCompiler) header(key string) (*policy, error) {
	doc, from := c.doc, c.from
	if doc.APIVersion != policyAPIVersion || doc.Kind != celPolicyKind {
		return nil, fmt.Errorf("%s: want apiVersion %s, kind %s; got %q, %q", c.at(from.line), policyAPIVersion, celPolicyKind, doc.APIVersion, doc.Kind)
	}
	name := doc.Metadata.Name
	if name == "" {
		return nil, fmt.Errorf("%s: metadata.name is required", c.at(from.line))
	}
	p := &policy{name: name, source: c.where, key: key, from: from, inputs: doc.Spec.Inputs, varIndex: map[string]int{}}
	switch doc.Spec.Evaluation {
	case "all":
	case "first":
		p.firstOnly = true
	default:
		return nil, fmt.Errorf("%s: policy %s: spec.evaluation must be all or first, got %q", c.at(from.line), name, doc.Spec.Evaluation)
	}
	return p, nil
}

// environment declares the policy's inputs. Precompiled expressions are
// only planned: their environment extends the one with the libraries,
// built once. Expressions checked here get an environment of their own, as
// sharing the libraries' checker between policies checked at the same time
// does not type them alike; as parsing is most of the cost of a short run
// and needs no declarations, every expression is then parsed at once, on
// all cores, and checking goes in order, as each variable's type is known.
func (c *policyCompiler) environment(extra []cel.EnvOption) error {
	opts := slices.Clone(extra)
	for _, in := range c.doc.Spec.Inputs {
		opts = append(opts, cel.Variable(in, cel.DynType))
	}
	var err error
	if c.precompiled != nil {
		var base *cel.Env
		if base, err = baseEnv(); err == nil {
			c.env, err = base.Extend(opts...)
		}
	} else {
		c.env, err = cel.NewEnv(append(envOptions(), opts...)...)
	}
	if err != nil {
		return fmt.Errorf("%s: policy %s: %w", c.at(c.from.line), c.p.name, err)
	}
	if c.precompiled == nil {
		var sources []string
		for _, v := range c.doc.Spec.Variables {
			sources = append(sources, v.Expression)
		}
		for _, v := range c.doc.Spec.Validations {
			sources = append(sources, v.Expression, v.MessageExpression)
		}
		c.parsed = parseAll(c.env, sources)
	}
	return nil
}

// compile gives the next expression's checked form: the precompiled one
// (see precompiled.go), or text's, parsed already or now, checked.
func (c *policyCompiler) compile(text string) (*celast.AST, *cel.Issues) {
	n := len(c.p.checked)
	var ast *cel.Ast
	var iss *cel.Issues
	switch pa, ok := c.parsed[text]; {
	case n < len(c.precompiled):
		c.p.checked = append(c.p.checked, c.precompiled[n])
		return c.precompiled[n], nil
	case ok && pa.iss.Err() != nil:
		return nil, pa.iss
	case ok:
		ast, iss = c.env.Check(pa.ast)
	default:
		ast, iss = c.env.Compile(text)
	}
	if iss.Err() != nil {
		return nil, iss
	}
	c.p.checked = append(c.p.checked, ast.NativeRep())
	return ast.NativeRep(), iss
}

// plan plans a checked expression. A short run evaluates few of a policy's
// expressions (variables on first use, messages of failed validations):
// precompiled ones, planned without error when the cache was made, are
// planned on first evaluation.
func (c *policyCompiler) plan(a *celast.AST) (program, error) {
	if c.precompiled != nil {
		env := c.env
		return &lazyProgram{plan: func() (program, error) { return env.PlanProgram(a, programOptions...) }}, nil
	}
	return c.env.PlanProgram(a, programOptions...)
}

// variables compiles the named variables, in order; each later expression
// sees the variables before it, typed as they were checked.
func (c *policyCompiler) variables() error {
	p, name, lines := c.p, c.p.name, c.from.lines
	for i, v := range c.doc.Spec.Variables {
		if v.Name == "" {
			return fmt.Errorf("%s: policy %s: variable %d has no name", c.at(c.from.line), name, i)
		}
		if _, dup := p.varIndex[v.Name]; dup {
			return fmt.Errorf("%s: policy %s: variable %s is defined twice", c.at(c.from.line), name, v.Name)
		}
		ast, iss := c.compile(v.Expression)
		if iss.Err() != nil {
			return fmt.Errorf("%s: policy %s: variable %s: %w", c.at(lines.variables[i]), name, v.Name, iss.Err())
		}
		prg, err := c.plan(ast)
		if err != nil {
			return fmt.Errorf("%s: policy %s: variable %s: %w", c.at(lines.variables[i]), name, v.Name, err)
		}
		p.varIndex[v.Name] = len(p.vars)
		p.varNames = append(p.varNames, v.Name)
		p.vars = append(p.vars, prg)
		reads := p.readsOf(ast)
		p.varReads = append(p.varReads, reads)
		p.modelOnly = append(p.modelOnly, reads.only("model"))
		if c.precompiled == nil {
			c.env, err = c.env.Extend(cel.Variable("variables."+v.Name, outputType(ast)))
			if err != nil {
				return fmt.Errorf("%s: policy %s: variable %s: %w", c.at(lines.variables[i]), name, v.Name, err)
			}
		}
	}
	return nil
}

// validations compiles each validation: a bool expression, with a message
// or a string messageExpression.
func (c *policyCompiler) validations() error {
	p, name := c.p, c.p.name
	for i, v := range c.doc.Spec.Validations {
		line := c.from.lines.validations[i]
		ast, iss := c.compile(v.Expression)
		if iss.Err() != nil {
			return fmt.Errorf("%s: policy %s: validation %d: %w", c.at(line), name, i, iss.Err())
		}
		if !outputType(ast).IsAssignableType(cel.BoolType) {
			return fmt.Errorf("%s: policy %s: validation %d: expression must be a bool, is %s", c.at(line), name, i, outputType(ast))
		}
		prg, err := c.plan(ast)
		if err != nil {
			return fmt.Errorf("%s: policy %s: validation %d: %w", c.at(line), name, i, err)
		}
		check := checkExpr{name: v.Name, expr: prg, message: v.Message, line: line, reads: p.readsOf(ast)}
		if v.MessageExpression != "" {
			mast, iss := c.compile(v.MessageExpression)
			if iss.Err() != nil {
				return fmt.Errorf("%s: policy %s: validation %d: messageExpression: %w", c.at(line), name, i, iss.Err())
			}
			if !outputType(mast).IsAssignableType(cel.StringType) {
				return fmt.Errorf("%s: policy %s: validation %d: messageExpression must be a string, is %s", c.at(line), name, i, outputType(mast))
			}
			if check.msgExpr, err = c.plan(mast); err != nil {
				return fmt.Errorf("%s: policy %s: validation %d: messageExpression: %w", c.at(line), name, i, err)
			}
			check.reads.union(p.readsOf(mast))
		} else if v.Message == "" {
			return fmt.Errorf("%s: policy %s: validation %d needs a message or a messageExpression", c.at(line), name, i)
		}
		p.checks = append(p.checks, check)
	}
	return nil
}

// outputType is the type of a checked expression's result.
func outputType(a *celast.AST) *cel.Type { return a.GetType(a.Expr().ID()) }

// program is what the engine asks of a planned expression.
type program interface {
	Eval(input any) (ref.Val, *cel.EvalDetails, error)
}

// lazyProgram is a program planned on its first evaluation.
type lazyProgram struct {
	plan func() (program, error)
	once sync.Once
	prg  program
	err  error
}

func (l *lazyProgram) program() (program, error) {
	l.once.Do(func() { l.prg, l.err = l.plan() })
	return l.prg, l.err
}

func (l *lazyProgram) Eval(input any) (ref.Val, *cel.EvalDetails, error) {
	p, err := l.program()
	if err != nil {
		return nil, nil, err
	}
	return p.Eval(input)
}

type parsedExpr struct {
	ast *cel.Ast
	iss *cel.Issues
}

// parseAll parses each distinct text, in parallel on all cores.
func parseAll(env *cel.Env, texts []string) map[string]parsedExpr {
	out := map[string]parsedExpr{}
	var todo []string
	for _, t := range texts {
		if _, seen := out[t]; !seen && t != "" {
			out[t] = parsedExpr{}
			todo = append(todo, t)
		}
	}
	results := make([]parsedExpr, len(todo))
	next := make(chan int, len(todo))
	for i := range todo {
		next <- i
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(todo)) {
		wg.Go(func() {
			for i := range next {
				ast, iss := env.Parse(todo[i])
				results[i] = parsedExpr{ast, iss}
			}
		})
	}
	wg.Wait()
	for i, t := range todo {
		out[t] = results[i]
	}
	return out
}

type policyLines struct {
	variables, validations []int
}

// exprLines finds the source line of each variable and validation, for
// error messages that point into the policy file.
func exprLines(doc *yaml.Node) policyLines {
	var l policyLines
	s := mapValue(doc, "spec")
	for _, n := range seqItems(mapValue(s, "variables")) {
		l.variables = append(l.variables, n.Line)
	}
	for _, n := range seqItems(mapValue(s, "validations")) {
		l.validations = append(l.validations, n.Line)
	}
	return l
}

func mapValue(n *yaml.Node, key string) *yaml.Node {
	if n == nil {
		return nil
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == key {
			return n.Content[i+1]
		}
	}
	return nil
}

func seqItems(n *yaml.Node) []*yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode {
		return nil
	}
	return n.Content
}

// activation resolves a policy's inputs and its variables; a variable
// is evaluated on first use and kept for the rest of the evaluation.
type activation struct {
	p      *policy
	inputs map[string]any
	vals   []ref.Val
	// shared holds the model-only variables of one model across the pairs
	// of a batch; nil outside batches.
	shared []ref.Val
}

func (a *activation) ResolveName(name string) (any, bool) {
	if v, ok := a.inputs[name]; ok {
		return v, true
	}
	i, ok := a.p.varIndex[trimVariables(name)]
	if !ok {
		return nil, false
	}
	vals := a.vals
	if a.shared != nil && a.p.modelOnly[i] {
		vals = a.shared
	}
	if vals[i] == nil {
		v, _, err := a.p.vars[i].Eval(a)
		if err != nil {
			v = types.NewErr("variable %s: %v", a.p.varNames[i], err)
		}
		vals[i] = v
	}
	return vals[i], true
}

func (a *activation) Parent() interpreter.Activation { return nil }

// trimVariables turns "variables.x" into "x", and anything else into "",
// which names no variable.
func trimVariables(name string) string {
	if rest, ok := strings.CutPrefix(name, "variables."); ok {
		return rest
	}
	return ""
}

// eval runs the validations and returns the messages of those that fail, in
// order (only the first when the policy's evaluation is "first").
func (p *policy) eval(inputs map[string]any) ([]string, error) {
	return p.run(p.activation(inputs))
}

func (p *policy) activation(inputs map[string]any) *activation {
	return &activation{p: p, inputs: inputs, vals: make([]ref.Val, len(p.vars))}
}

// sharedActivation is an activation whose model-only variables are kept in
// shared, for all the pairs of one model.
func (p *policy) sharedActivation(inputs map[string]any, shared []ref.Val) *activation {
	a := p.activation(inputs)
	a.shared = shared
	return a
}

// variable returns the value of a variable of the policy, evaluating it if
// it was not needed yet.
func (a *activation) variable(name string) (ref.Val, error) {
	if _, ok := a.p.varIndex[name]; !ok {
		return nil, fmt.Errorf("%s: CEL policy %s has no variable %q", a.p.source, a.p.name, name)
	}
	v, _ := a.ResolveName("variables." + name)
	val := v.(ref.Val)
	if err, isErr := val.(*types.Err); isErr {
		return nil, fmt.Errorf("%s: CEL policy %s: %w", a.p.source, a.p.name, err)
	}
	return val, nil
}

// run evaluates the validations on an activation.
func (p *policy) run(act *activation) ([]string, error) {
	return p.collect(func(i int) (bool, string, error) { return p.check(i, act) })
}

// firstFailure evaluates the validations in order on an activation, up to
// the first that fails: its name and message (failed is false when none
// fails).
func (p *policy) firstFailure(act *activation) (name, message string, failed bool, err error) {
	for i := range p.checks {
		if failed, message, err = p.check(i, act); err != nil || failed {
			return p.checks[i].name, message, failed, err
		}
	}
	return "", "", false, nil
}

// collect goes through the validations in order, with outcome giving
// whether validation i fails and its message, and returns the messages of
// those that fail (only the first when the policy's evaluation is "first").
func (p *policy) collect(outcome func(i int) (bool, string, error)) ([]string, error) {
	var failures []string
	for i := range p.checks {
		failed, msg, err := outcome(i)
		if err != nil {
			return nil, err
		}
		if !failed {
			continue
		}
		failures = append(failures, msg)
		if p.firstOnly {
			break
		}
	}
	return failures, nil
}

// check evaluates validation i on an activation: whether it fails, and
// then its message.
func (p *policy) check(i int, act *activation) (bool, string, error) {
	return p.checkMessage(i, act, true)
}

// checkMessage is check, with the message of a failed validation only when
// message is true (else "").
func (p *policy) checkMessage(i int, act *activation, message bool) (bool, string, error) {
	c := &p.checks[i]
	out, _, err := c.expr.Eval(act)
	if err != nil {
		return false, "", p.checkError(i, "%w", err)
	}
	ok, isBool := out.(types.Bool)
	if !isBool {
		return false, "", p.checkError(i, "got %v, want a bool", out)
	}
	if ok {
		return false, "", nil
	}
	if !message {
		return true, "", nil
	}
	if c.msgExpr == nil {
		return true, c.message, nil
	}
	m, _, err := c.msgExpr.Eval(act)
	if err != nil {
		return false, "", p.checkError(i, "messageExpression: %w", err)
	}
	s, isString := m.(types.String)
	if !isString {
		return false, "", p.checkError(i, "messageExpression gave %v, want a string", m)
	}
	return true, string(s), nil
}

// checkError is an error of validation i, named by its policy, index and
// line.
func (p *policy) checkError(i int, format string, args ...any) error {
	prefix := []any{p.source, p.name, i, p.checks[i].line}
	return fmt.Errorf("%s: policy %s: validation %d (line %d): "+format, append(prefix, args...)...)
}
