package main

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/rules"
	"github.com/ome-policy/evaluator/runner"
)

// The flags that several commands share, declared once each: --engine for
// every command that evaluates policies, -o for every command that prints
// its results in a format of the user's choice. Each value is checked once,
// before the command runs, against its list (engine.Names, the writer's
// formats), so a command reads only values it knows.

// addChoiceFlag gives cmd a flag (name, with a one-letter short name or
// "") whose value is one of choices, def by default: its help lists them,
// shell completion offers them, and any other value ends the command
// before it runs (exit 2); "" is taken when it is the default.
func addChoiceFlag(cmd *cobra.Command, p *string, name, short, def, usage string, choices []string) {
	cmd.Flags().StringVarP(p, name, short, def, usage+": "+strings.Join(choices, ", "))
	_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(choices, cobra.ShellCompDirectiveNoFileComp))
	checkBeforeRun(cmd, func() error {
		if *p == "" && def == "" {
			return nil
		}
		return checkChoice(name, *p, choices)
	})
}

// addEngineFlag gives cmd --engine (cel, rego or both), def by default.
func addEngineFlag(cmd *cobra.Command, name *string, def string) {
	addChoiceFlag(cmd, name, "engine", "", def, "policy engine", engine.Names)
}

// addReleaseFlag gives cmd --ome-version, the OME release whose rules it
// applies (globalOptions.chosenRelease), which shell completion offers.
func addReleaseFlag(cmd *cobra.Command, g *globalOptions) {
	cmd.Flags().StringVar(&g.Release, "ome-version", "", releaseFlagHelp("the OME release whose rules to apply"))
	completeReleases(cmd, "ome-version")
}

// completeReleases has shell completion offer the OME releases, and more,
// for the flag name of cmd.
func completeReleases(cmd *cobra.Command, name string, more ...string) {
	_ = cmd.RegisterFlagCompletionFunc(name, cobra.FixedCompletions(append(policyset.EmbeddedReleases(), more...), cobra.ShellCompDirectiveNoFileComp))
}

// completeRuleIDs offers the ids of OME's lint rules (of --ome-version's
// release) to shell completion, each with what it finds, and those of the
// team's rules of --rules, when the command line gives some.
func completeRuleIDs(g *globalOptions) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, _ string) (ids []string, _ cobra.ShellCompDirective) {
		if set, err := g.For(""); err == nil {
			// Cobra parses the command line twice to complete it, and
			// --rules, repeatable, holds each path twice.
			paths, _ := cmd.Flags().GetStringArray("rules")
			slices.Sort(paths)
			if ome, team, err := runner.RulesFor(set, slices.Compact(paths), rules.Sandbox{}); err == nil {
				for _, r := range runner.WithRules(ome, team) {
					ids = append(ids, r.ID+"\t"+r.Description)
				}
			}
		}
		return ids, cobra.ShellCompDirectiveNoFileComp
	}
}

// releaseFlagHelp is the help of a flag that names an OME release.
func releaseFlagHelp(what string) string {
	rs := policyset.EmbeddedReleases()
	if len(rs) == 0 {
		return what
	}
	return fmt.Sprintf("%s: %s (default $%s, else %s, the newest)", what, strings.Join(rs, ", "), runner.ReleaseEnv, rs[0])
}

// addFormatFlag gives cmd -o/--output, one of formats, text by default.
func addFormatFlag(cmd *cobra.Command, format *string, formats []string) {
	addChoiceFlag(cmd, format, "output", "o", "text", "output format", formats)
}

// machineReadable says whether an -o format is a document for a program
// (every one but text and match's summary): a command writes it even when it has nothing to
// put in it, so that whatever reads it can.
func machineReadable(format string) bool { return format != "text" && format != "summary" }

// addOutFlag gives cmd --out, the folder it writes to (def by default),
// and for one release -o as its old short name, hidden, with a notice on
// standard error: -o names an output format in the other commands.
func addOutFlag(cmd *cobra.Command, out *string, def, usage string) {
	cmd.Flags().StringVar(out, "out", def, usage)
	var old string
	cmd.Flags().StringVarP(&old, "output", "o", "", "deprecated: --out")
	_ = cmd.Flags().MarkHidden("output")
	checkBeforeRun(cmd, func() error {
		if !cmd.Flags().Changed("output") {
			return nil
		}
		if cmd.Flags().Changed("out") {
			return badInput(fmt.Errorf("-o is the old name of --out: give --out only"))
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "notice: -o %s is deprecated and will be refused in the next release: write --out %s (-o names an output format in the other commands)\n", old, old)
		*out = old
		return nil
	})
}

// checkBeforeRun has cmd run check after its arguments are read and before
// it runs, after the checks it has already: a failed check ends the command
// with exit code 2.
func checkBeforeRun(cmd *cobra.Command, check func() error) {
	before := cmd.PreRunE
	cmd.PreRunE = func(c *cobra.Command, args []string) error {
		if before != nil {
			if err := before(c, args); err != nil {
				return err
			}
		}
		return check()
	}
}

// ruleOptions are the flags of a team's own rules: --rules, and the
// limits of the sandbox they run in (rules.Sandbox).
type ruleOptions struct {
	paths   []string
	timeout time.Duration
	memory  string
	allow   []string
}

// addRulesFlag gives cmd --rules, a team's own rules run beside OME's
// (runner.LoadRules), what they do told in the flag's help, and the limits
// of their sandbox: --rule-timeout and --rule-memory.
func addRulesFlag(cmd *cobra.Command, o *ruleOptions, what string) {
	cmd.Flags().StringArrayVar(&o.paths, "rules", nil, "a team's own rules, beside OME's: a folder or file of Rego (conftest's deny and warn) and ValidatingAdmissionPolicies (repeatable); "+what)
	cmd.Flags().DurationVar(&o.timeout, "rule-timeout", rules.DefaultTimeout, "the time a rule of --rules may take on one object: past it, the rule is stopped and named with the object (exit 2)")
	cmd.Flags().StringVar(&o.memory, "rule-memory", byteQuantity(rules.DefaultMemory), "how much the memory may grow while the rules of --rules judge one object (a quantity, as 512Mi or 2Gi): past it, the rule is stopped and named with the object (exit 2)")
	checkBeforeRun(cmd, func() error {
		_, err := o.sandbox()
		return err
	})
}

// addAllowFlag gives lint --allow-builtin: builtins the sandbox refuses
// that the Rego rules of --rules may call nonetheless.
func (o *ruleOptions) addAllowFlag(cmd *cobra.Command) {
	cmd.Flags().StringSliceVar(&o.allow, "allow-builtin", nil, "let the Rego rules of --rules call these builtins, which their sandbox refuses ("+strings.Join(rules.Refused(), ", ")+"); lint only: a bundle never holds such a rule (comma-separated or repeated)")
}

// sandbox is the sandbox the flags say; an error names a flag whose value
// is wrong.
func (o *ruleOptions) sandbox() (rules.Sandbox, error) {
	sb := rules.Sandbox{Allow: o.allow, Timeout: o.timeout}
	if o.timeout <= 0 {
		return sb, badInput(fmt.Errorf("--rule-timeout: %s: give a time above zero, such as 10s", o.timeout))
	}
	q, err := resource.ParseQuantity(o.memory)
	if err != nil || q.Value() <= 0 {
		return sb, badInput(fmt.Errorf("--rule-memory: %q: give a quantity above zero, such as 512Mi or 2Gi", o.memory))
	}
	sb.Memory = q.Value()
	if err := sb.Check(); err != nil {
		return sb, badInput(err)
	}
	return sb, nil
}

// byteQuantity writes n bytes as a quantity: 1Gi, 512Mi.
func byteQuantity(n int64) string {
	return resource.NewQuantity(n, resource.BinarySI).String()
}

// teamRules reads the rules of --rules beside OME's lint rules of set
// (runner.RulesFor), and gives both; the notices of their reading
// (links not walked again) go to standard error. Rules that read OME's
// decisions, decided on the engine named, set the collector for them
// (holdDecisions).
func teamRules(cmd *cobra.Command, engineName string, set *policyset.Set, o *ruleOptions) ([]engine.Rule, *rules.Set, error) {
	sb, err := o.sandbox()
	if err != nil {
		return nil, nil, err
	}
	ome, team, err := runner.RulesFor(set, o.paths, sb)
	if err != nil {
		return nil, nil, rulesError(cmd, err)
	}
	noteRules(cmd, team)
	if team.ReadsDecisions() {
		holdDecisions(cmd, engineName)
	}
	return ome, team, nil
}

// policiesAndRules are the policies of the engine named (of the release
// --ome-version chooses) and a team's rules of --rules (paths) beside
// them, each error ready to end the run.
func policiesAndRules(cmd *cobra.Command, g *globalOptions, engineName string, o *ruleOptions) (*policyset.Set, *rules.Set, error) {
	set, err := g.For(engineName)
	if err != nil {
		return nil, nil, badInput(err)
	}
	_, team, err := teamRules(cmd, engineName, set, o)
	if err != nil {
		return nil, nil, err
	}
	return set, team, nil
}

// noteRules says on standard error what reading the rules of team left
// out (team.Notices).
func noteRules(cmd *cobra.Command, team *rules.Set) {
	if team == nil {
		return
	}
	for _, n := range team.Notices {
		fmt.Fprintln(cmd.ErrOrStderr(), n)
	}
}

// rulesError ends the run on err (exit 2): an error of several
// (rules.Problems, team.Refusals) says each on its own line.
func rulesError(cmd *cobra.Command, err error) error {
	var many interface{ Errors() []error }
	if !errors.As(err, &many) {
		return badInput(err)
	}
	for _, e := range many.Errors() {
		fmt.Fprintf(cmd.ErrOrStderr(), "evaluate: %s\n", e)
	}
	return &silentExit{code: exitBadInput}
}
