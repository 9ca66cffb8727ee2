package objects

import (
	"fmt"
	"strings"
)

// otherOMEKinds are the kinds of ome.io/v1beta1 in OME's releases that are
// not read here: such an object is skipped with a notice, as one of
// another group is. Any other kind of ome.io/v1beta1 is one the API server
// refuses ("no matches for kind"), so reading it is an error.
var otherOMEKinds = map[string]bool{
	"AcceleratorClass": true,
	"BenchmarkJob":     true,
	"FineTunedWeight":  true,
}

// UnknownKind says that kind is none of ome.io/v1beta1, with the closest
// kind of the group when one is close.
func UnknownKind(kind string) string {
	if kind == "" {
		return "is required: the API server refuses an object without a kind"
	}
	msg := fmt.Sprintf("%s has no kind %q: the API server refuses it (no matches for kind)", APIVersion, kind)
	if near := nearestKind(kind); near != "" {
		msg += "; did you mean " + near + "?"
	}
	return msg
}

// nearestKind is the kind of ome.io/v1beta1 closest to kind (ignoring
// case) within two edits, the first in the group's order on a tie, or "".
func nearestKind(kind string) string {
	kinds := []string{KindBaseModel, KindClusterBaseModel, KindServingRuntime, KindClusterServingRuntime,
		KindInferenceService, "AcceleratorClass", "BenchmarkJob", "FineTunedWeight"}
	best, bestDist := "", 3
	for _, k := range kinds {
		if d := editDistance(strings.ToLower(kind), strings.ToLower(k)); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// IsHuggingFaceConfig reports whether a document without kind nor
// apiVersion reads as a Hugging Face model's config.json (model_type,
// architectures) or a diffusers pipeline's model_index.json (_class_name,
// _diffusers_version).
func IsHuggingFaceConfig(v map[string]any) bool {
	for _, k := range []string{"model_type", "architectures", "_class_name", "_diffusers_version"} {
		if _, ok := v[k]; ok {
			return true
		}
	}
	return false
}

// IsOtherOMEKind reports whether kind is one of ome.io/v1beta1's that
// evaluate does not judge.
func IsOtherOMEKind(kind string) bool { return otherOMEKinds[kind] }
