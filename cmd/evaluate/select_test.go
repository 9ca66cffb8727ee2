package main

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
)

// TestSelectNamesUnselectable: select names each compatible runtime that
// selection never chooses, with why, in every format and on each engine.
func TestSelectNamesUnselectable(t *testing.T) {
	file := at("testdata/select/unselectable.yaml")
	const (
		noAuto = "no entry has autoSelect: true, so OME selects it only by spec.runtime.name"
		score0 = "score 0: no entry that allows autoSelect agrees with the model's format and framework"
	)
	type unselectable struct{ Kind, Namespace, Name, Reason string }
	want := []unselectable{
		{Kind: "ServingRuntime", Namespace: "team-a", Name: "pinned", Reason: noAuto},
		{Kind: "ClusterServingRuntime", Name: "other-format", Reason: score0},
	}
	for _, eng := range []string{"cel", "rego", "both"} {
		t.Run(eng+"/text", func(t *testing.T) {
			r := evaluate(t, time.Minute, "", "select", "--engine", eng, file)
			require.Equal(t, 0, r.code, r.stderr)
			require.Contains(t, r.stdout, "  2 compatible runtime(s) not selectable:\n"+
				"    ServingRuntime team-a/pinned: "+noAuto+"\n"+
				"    ClusterServingRuntime other-format: "+score0+"\n")
		})
		for _, format := range []string{"json", "yaml"} {
			t.Run(eng+"/"+format, func(t *testing.T) {
				r := evaluate(t, time.Minute, "", "select", "--engine", eng, "-o", format, file)
				require.Equal(t, 0, r.code, r.stderr)
				var doc struct {
					Decisions []struct {
						Unselectable []unselectable `json:"unselectable" yaml:"unselectable"`
					} `json:"decisions" yaml:"decisions"`
				}
				if format == "json" {
					require.NoError(t, json.Unmarshal([]byte(r.stdout), &doc))
				} else {
					require.NoError(t, yaml.NewDecoder(strings.NewReader(r.stdout)).Decode(&doc))
				}
				require.Len(t, doc.Decisions, 1)
				require.Equal(t, want, doc.Decisions[0].Unselectable)
			})
		}
	}
}
