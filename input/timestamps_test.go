package input

import (
	"github.com/ome-policy/evaluator/objects"
	"testing"

	"github.com/stretchr/testify/require"
)

// A creationTimestamp must be RFC 3339, as the API server has it; the
// error names the file, line and field.
func TestCheckTimestamps(t *testing.T) {
	for _, tc := range []struct {
		name, timestamp string
		err             string
	}{
		{name: "none"},
		{name: "RFC 3339", timestamp: "creationTimestamp: \"2025-01-31T12:00:00Z\"\n"},
		{name: "with an offset", timestamp: "creationTimestamp: \"2025-01-31T12:00:00+02:00\"\n"},
		{name: "a word", timestamp: "creationTimestamp: yesterday\n",
			err: "in.yaml:5: metadata.creationTimestamp: must be an RFC 3339 time such as 2025-01-31T12:00:00Z, got yesterday"},
		{name: "a date alone", timestamp: "creationTimestamp: \"2025-01-31\"\n",
			err: "in.yaml:5: metadata.creationTimestamp: must be an RFC 3339 time such as 2025-01-31T12:00:00Z, got 2025-01-31"},
		{name: "a number", timestamp: "creationTimestamp: 20250131\n",
			err: "in.yaml:5: metadata.creationTimestamp: must be an RFC 3339 time such as 2025-01-31T12:00:00Z, got 20250131"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := "apiVersion: ome.io/v1beta1\nkind: ClusterServingRuntime\nmetadata:\n  name: r\n"
			if tc.timestamp != "" {
				data += "  " + tc.timestamp
			}
			data += "spec: {}\n"
			in := &Result{}
			in.ReadData("in.yaml", []byte(data), ReadOptions{Lenient: true})
			require.Empty(t, in.Problems)
			require.Len(t, in.Objects, 1)
			err := objects.CheckTimestamps(in.Objects)
			if tc.err == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tc.err)
		})
	}
}
