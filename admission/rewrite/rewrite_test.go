package rewrite

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestRewritePolicy: what Policy makes of a policy module, with and
// without a template's given (lib.ome.given) rules.
func TestRewritePolicy(t *testing.T) {
	given := map[string]bool{"inferenceService": true, "objects": true}
	cases := []struct {
		name  string
		given map[string]bool
		in    string
		want  []string // lines of the rewritten module
		not   []string // text it must not hold
		err   string
	}{
		{
			name: "package, imports and builtin calls",
			in:   "package ome.select\n\nimport data.ome.match\n\nv(x) := ome.version.parse(x)\n\nm := match.label(input.objects)\n",
			want: []string{
				"package lib.ome.select",
				"import data.lib.ome.version as ome_version",
				"import data.lib.ome.match",
				"v(x) := ome_version.parse(x)",
				// Without given, input is Gatekeeper's.
				"m := match.label(input.objects)",
			},
			not: []string{"import data.lib.ome.given"},
		},
		{
			name:  "input.x of a given rule reads given.x",
			given: given,
			in:    "package ome.select\n\nisvc := input.inferenceService\n\nn := count([o | some o in input.objects; o.kind == \"BaseModel\"])\n",
			want: []string{
				"import data.lib.ome.given",
				"isvc := given.inferenceService",
				"n := count([o | some o in given.objects; o.kind == \"BaseModel\"])",
			},
			not: []string{"input."},
		},
		{
			name:  "other input fields and input whole stay Gatekeeper's",
			given: given,
			in:    "package ome.match\n\nm := input.model\n\nt := object.get(input, \"tables\", {})\n",
			want:  []string{"m := input.model", `t := object.get(input, "tables", {})`},
			not:   []string{"import data.lib.ome.given"},
		},
		{
			name:  "a comment that says input.objects is left alone",
			given: given,
			in:    "package ome.select\n\n# input.objects are the runtimes.\nrs := input.objects\n",
			want:  []string{"# input.objects are the runtimes.", "rs := given.objects"},
		},
		{
			name:  "a module that uses the name given",
			given: given,
			in:    "package ome.select\n\nf(given) := given\n\nrs := input.objects\n",
			err:   "given is taken",
		},
		{
			name:  "a module that uses the name given but reads no given rule",
			given: given,
			in:    "package ome.match\n\nf(given) := given\n",
			want:  []string{"f(given) := given"},
		},
		{
			name: "a reference to data.ome outside an import",
			in:   "package ome.select\n\nx := data.ome.match.label\n",
			err:  "refer to other packages through an import",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pm, err := Policy("p.rego", c.in, c.given)
			if c.err != "" {
				require.ErrorContains(t, err, c.err)
				return
			}
			require.NoError(t, err)
			lines := strings.Split(pm.Text, "\n")
			for _, w := range c.want {
				require.Contains(t, lines, w, "rewritten:\n%s", pm.Text)
			}
			for _, n := range c.not {
				require.NotContains(t, pm.Text, n)
			}
			require.Equal(t, strings.Contains(pm.Text, "import data.lib.ome.given"), pm.Given)
		})
	}
}
