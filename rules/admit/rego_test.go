package admit

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRewriteTeam: what Team makes of a team's module for a template's
// libraries: every reference to data in a rule goes through an import
// (Gatekeeper rewrites no other), input is the reviewed object, and the
// directive imports, which Gatekeeper refuses, are gone.
func TestRewriteTeam(t *testing.T) {
	packages := map[string]bool{"company.size": true, "util": true, "lib.versions": true}
	cases := []struct {
		name string
		in   string
		want []string // lines of the rewritten module
		not  []string // text it must not hold
		err  string
	}{
		{
			name: "directive imports dropped, package under lib",
			in:   "package company.size\n\nimport rego.v1\nimport future.keywords.in\n\ndeny contains \"x\" if input.kind in {\"A\"}\n",
			want: []string{"package lib.company.size", `deny contains "x" if input.review.object.kind in {"A"}`},
			not:  []string{"rego.v1", "future."},
		},
		{
			name: "decisions read inline, in a call and compared",
			in:   "package company.size\n\ndeny contains \"x\" if count(data.evaluate.decision.runtimes) < 2\n\ndeny contains \"y\" if data.evaluate.decision.admitted == false\n",
			want: []string{"import data.lib.evaluate", `deny contains "x" if count(evaluate.decision.runtimes) < 2`, `deny contains "y" if evaluate.decision.admitted == false`},
			not:  []string{"data.evaluate", "data.lib.evaluate.decision"},
		},
		{
			name: "decisions imported",
			in:   "package company.size\n\nimport data.evaluate.decision as d\n\ndeny contains \"x\" if count(d.runtimes) < 2\n",
			want: []string{"import data.lib.evaluate.decision as d", `deny contains "x" if count(d.runtimes) < 2`},
		},
		{
			name: "a library called by its path, and the name of its import taken",
			in:   "package company.size\n\nutil := 1\n\ndeny contains data.util.name(input) if data.lib.versions.plain(input.v)\n",
			want: []string{"import data.lib.util as lib_util", "import data.lib.versions", `deny contains lib_util.name(input.review.object) if versions.plain(input.review.object.v)`},
		},
		{
			name: "some ... in, every and with reach input",
			in:   "package company.size\n\ndeny contains \"x\" if {\n\tsome e in input.spec.entries\n\tevery f in input.spec.more {\n\t\tf != e\n\t}\n}\n",
			want: []string{"\tsome e in input.review.object.spec.entries", "\tevery f in input.review.object.spec.more {"},
		},
		{
			name: "the builtins called through their stand-in",
			in:   "package company.size\n\ndeny contains \"x\" if ome.version.compare(input.v, \"4.40\") < 0\n",
			want: []string{"import data.lib.ome.version as ome_version", `deny contains "x" if ome_version.compare(input.review.object.v, "4.40") < 0`},
		},
		{
			name: "an else of one call on its line",
			in:   "package company.size\n\nf(r) := \"a\" if r.x\nelse := concat(\"\", [\"b\", r.y]) if startswith(r.y, \"z\")\nelse := \"c\"\n",
			want: []string{`else := concat("", ["b", r.y]) if startswith(r.y, "z")`},
		},
		{
			name: "Gatekeeper's inventory",
			in:   "package company.size\n\ndeny contains \"x\" if data.inventory.cluster\n",
			err:  "p.rego:3: data.inventory.cluster: evaluate lint has no Gatekeeper inventory",
		},
		{
			name: "a document of no file",
			in:   "package company.size\n\ndeny contains \"x\" if data.other.y\n",
			err:  "p.rego:3: data.other.y: no file of the rules holds it",
		},
		{
			name: "the decisions whole",
			in:   "package company.size\n\ndeny contains \"x\" if data.y\n\nd := data\n",
			err:  "p.rego:3: data.y: no file of the rules holds it",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tm, err := Team("p.rego", c.in, packages)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			lines := strings.Split(tm.Text, "\n")
			for _, w := range c.want {
				require.Contains(t, lines, w, "rewritten:\n%s", tm.Text)
			}
			for _, n := range c.not {
				require.NotContains(t, tm.Text, n)
			}
		})
	}
}
