package rules

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/open-policy-agent/opa/v1/ast"

	"github.com/ome-policy/evaluator/objects"
)

// The sandbox a team's rules run in. Rules come from whoever writes them
// (a pull request, in CI), so what they may do is bounded:
//
//   - reach: a Rego rule may call no builtin that reaches the network or
//     the host, nor one whose answer changes from run to run (Refused);
//     a rule that calls one is refused as it is loaded, before anything
//     runs. lint may allow some by name (Sandbox.Allow); the bundles
//     never do, as a rule at admission must decide as lint decided.
//   - errors: a builtin that fails is an error of the rule, named with the
//     object, never an undefined that reads as "no finding" (OPA's strict
//     builtin errors); a CEL expression that fails is named too.
//   - time and memory: a rule's evaluation of one object is stopped past
//     Sandbox.Timeout, or once the heap grew by Sandbox.Memory while it
//     ran; CEL has Kubernetes' cost limit per expression besides
//     (limits.go).

// refusedReasons says why each builtin the sandbox refuses is refused:
// what it reaches. The sandbox refuses every builtin OPA marks
// non-deterministic (each of these, in OPA v1.22); one not listed here is
// said to be so marked.
var refusedReasons = map[string]string{
	"http.send":              "reaches the network",
	"net.lookup_ip_addr":     "reaches the network (DNS)",
	"json.match_schema":      "may fetch a schema's references from the network",
	"json.verify_schema":     "may fetch a schema's references from the network",
	"opa.runtime":            "reads the host (environment variables, OPA's configuration)",
	"rand.intn":              "answers differently from run to run",
	"time.now_ns":            "answers differently from run to run (the clock)",
	"uuid.rfc4122":           "answers differently from run to run",
	"io.jwt.decode_verify":   "reads the clock, and so answers differently from run to run",
	"io.jwt.encode_sign":     "answers differently from run to run",
	"io.jwt.encode_sign_raw": "answers differently from run to run",
}

// Refused are the Rego builtins a rule may not call, sorted: those OPA
// marks non-deterministic (the network, the host, the clock, randomness).
func Refused() []string {
	var out []string
	for _, b := range ast.CapabilitiesForThisVersion().Builtins {
		if b.Nondeterministic {
			out = append(out, b.Name)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// refusedReason is why name is refused.
func refusedReason(name string) string {
	if r := refusedReasons[name]; r != "" {
		return r
	}
	return "OPA marks non-deterministic"
}

// checkAllow is an error naming each builtin of allow that the sandbox
// does not refuse (a typo, or a builtin every rule may call already).
func checkAllow(allow []string) error {
	refused := Refused()
	var unknown []string
	for _, a := range allow {
		if !slices.Contains(refused, a) {
			unknown = append(unknown, a)
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("--allow-builtin: %s is none of the builtins the sandbox refuses (%s)", strings.Join(unknown, ", "), strings.Join(refused, ", "))
	}
	return nil
}

// sandboxCapabilities are OPA's capabilities without the builtins the
// sandbox refuses but those allowed: the compiler of the rules knows no
// other, so that a call the walk of sandboxProblems would miss still does
// not compile.
func sandboxCapabilities(allow []string) *ast.Capabilities {
	caps := ast.CapabilitiesForThisVersion()
	refused := Refused()
	kept := caps.Builtins[:0:0]
	for _, b := range caps.Builtins {
		if !slices.Contains(refused, b.Name) || slices.Contains(allow, b.Name) {
			kept = append(kept, b)
		}
	}
	caps.Builtins = kept
	return caps
}

// sandboxProblems names each call of mods (parsed modules, by file) to a
// builtin the sandbox refuses and allow does not allow, with its file and
// line, in file and line order, each said by message.
func sandboxProblems(mods map[string]*ast.Module, allow []string, message func(builtin string) string) Problems {
	refused := Refused()
	var probs Problems
	files := make([]string, 0, len(mods))
	for f := range mods {
		files = append(files, f)
	}
	sort.Strings(files)
	for _, f := range files {
		m := mods[f]
		if m == nil {
			continue
		}
		seen := map[string]bool{}
		report := func(ref ast.Ref, loc *ast.Location) {
			name := ref.String()
			if !slices.Contains(refused, name) || slices.Contains(allow, name) {
				return
			}
			p := &objects.InputError{File: f, Msg: message(name)}
			if loc != nil {
				p.Line = loc.Row
			}
			if key := fmt.Sprint(p.Line, name); !seen[key] {
				seen[key] = true
				probs = append(probs, p)
			}
		}
		// A call is an expression of its own (http.send(req, resp)) or a
		// term inside one (resp := http.send(req)).
		ast.WalkExprs(m, func(e *ast.Expr) bool {
			if e.IsCall() {
				report(e.Operator(), e.Location)
			}
			return false
		})
		ast.WalkTerms(m, func(t *ast.Term) bool {
			if call, ok := t.Value.(ast.Call); ok && len(call) > 0 {
				if ref, ok := call[0].Value.(ast.Ref); ok {
					loc := t.Location
					if loc == nil {
						loc = call[0].Location
					}
					report(ref, loc)
				}
			}
			return false
		})
	}
	sortProblems(probs)
	return probs
}

// sandboxMessage says why a call of the builtin name by a rule is refused.
func sandboxMessage(name string, forBundles bool) string {
	msg := fmt.Sprintf("calls %s, which %s: rules run in a sandbox that refuses it (docs/rules.md)", name, refusedReason(name))
	if forBundles {
		return msg + "; a bundle never holds such a rule"
	}
	return msg + "; evaluate lint --allow-builtin " + name + " lets lint call it, no bundle does"
}

// SandboxProblems names each call, in the Rego sources mods (path ->
// text), of a builtin the sandbox refuses (Refused), with its file and
// line: the checks evaluate test makes of the Rego unit tests it runs. A
// source that does not parse is left to the run that compiles it.
func SandboxProblems(mods map[string]string) Problems {
	return sandboxProblems(parseSources(mods), nil, func(name string) string { return sandboxMessage(name, false) })
}

// PolicySandboxProblems names each call, in the Rego sources of a policy
// folder (--policies: its policies, their tests and its releases' changes;
// path -> text), of a builtin the sandbox refuses (Refused), with its file
// and line. The policies of a folder come from whoever wrote it, as rules
// do, and are held to the rules' sandbox, with no exception: a bundle
// holds them. A source that does not parse is left to the run that
// compiles it.
func PolicySandboxProblems(mods map[string]string) Problems {
	return sandboxProblems(parseSources(mods), nil, func(name string) string {
		return fmt.Sprintf("calls %s, which %s: the policies of --policies run in the sandbox of the rules, which refuses it (docs/rules.md)", name, refusedReason(name))
	})
}

// parseSources parses the Rego sources (path -> text) that parse.
func parseSources(mods map[string]string) map[string]*ast.Module {
	parsed := map[string]*ast.Module{}
	for f, text := range mods {
		if m, err := ast.ParseModuleWithOpts(f, text, ast.ParserOptions{RegoVersion: ast.RegoV1}); err == nil {
			parsed[f] = m
		}
	}
	return parsed
}
