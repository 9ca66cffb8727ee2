// Package reference is a plain-Go OME matcher written straight from the
// spec (sections 2-7 and the runtime-level checks of section 9), for each
// OME release the project states. It is for tests and benchmarks only: an
// independent oracle for the differential tests, and the denominator the
// benchmarks measure the policy engines against. The product never uses
// it; the rules it runs live in policies/. It shares no code with the
// product either, not even the meaning of versions and sizes (version.go),
// so that the differential tests check the product's own.
package reference

import (
	"sort"
	"strings"
)

// Release is what one OME release does in matching, where releases differ
// (docs/ome-releases.md).
type Release struct {
	// Name is the release's tag, such as "v1.2.2".
	Name string
	// threeNumbers: versions are read only of exactly three numbers,
	// without a "v" (before v0.1.5).
	threeNumbers bool
	// noPipelines: diffusion pipelines are not compared (before v0.1.5).
	noPipelines bool
	// labelOnly: the reason names the model's label alone, without the
	// entries' differences (before v0.1.5).
	labelOnly bool
}

// releases are the OME releases the reference states, the newest first.
var releases = []Release{
	{Name: "v1.2.2"},
	{Name: "v0.1.5"},
	{Name: "v0.1.4", threeNumbers: true, noPipelines: true, labelOnly: true},
}

// Releases names the OME releases the reference states, the newest first.
func Releases() []string {
	out := make([]string, len(releases))
	for i, r := range releases {
		out[i] = r.Name
	}
	return out
}

// ForRelease is the release named, or false when the reference does not
// state it. "" names the newest.
func ForRelease(name string) (Release, bool) {
	if name == "" {
		return releases[0], true
	}
	for _, r := range releases {
		if r.Name == name {
			return r, true
		}
	}
	return Release{}, false
}

// EntryResult is the verdict on one entry.
type EntryResult struct {
	Index       int      `json:"index"`
	Matched     bool     `json:"matched"`
	Differences []string `json:"differences"`
}

// Verdict is the verdict on one model and one runtime.
type Verdict struct {
	Compatible bool          `json:"compatible"`
	Reason     string        `json:"reason"`
	Entries    []EntryResult `json:"entries"`
}

func str(m map[string]any, k string) (string, bool) {
	v, ok := m[k]
	if !ok {
		return "", false
	}
	s, _ := v.(string)
	return s, true
}

func sub(m map[string]any, k string) (map[string]any, bool) {
	v, ok := m[k]
	if !ok {
		return nil, false
	}
	s, _ := v.(map[string]any)
	if s == nil {
		s = map[string]any{}
	}
	return s, true
}

// VersionOK is spec 4.1 on the newest release: does the entry's operator
// and version accept the model's version?
func VersionOK(op, entry, model string) bool {
	return releases[0].versionAccepts(op, entry, model)
}

func (r Release) versionText(what string, entry, model map[string]any) string {
	ev, eok := str(entry, "version")
	mv, mok := str(model, "version")
	switch {
	case !eok && !mok:
		return ""
	case !mok:
		return "model has no " + what + " version but runtime requires " + ev
	case !eok:
		return "model has " + what + " version but runtime has no version requirement"
	}
	op, ok := str(entry, "operator")
	if !ok {
		op = "Equal"
	}
	if r.versionAccepts(op, ev, mv) {
		return ""
	}
	return what + " version mismatch (model=" + mv + ", runtime=" + ev + ")"
}

func refPair(what, key string, model, entry map[string]any) string {
	mv, mok := str(model, key)
	ev, eok := str(entry, key)
	switch {
	case !mok && !eok:
		return ""
	case !mok:
		return "model has no " + what + " but runtime requires " + ev
	case !eok:
		return "model has " + what + " " + mv + " but runtime has no " + what + " requirement"
	case mv != ev:
		return what + " mismatch (model=" + mv + ", runtime=" + ev + ")"
	}
	return ""
}

func refComponent(name string, model, entry map[string]any) string {
	el, _ := str(entry, "library")
	ml, _ := str(model, "library")
	if el != "" && el != ml {
		return name + " library mismatch (model=" + ml + ", runtime=" + el + ")"
	}
	et, _ := str(entry, "type")
	mt, _ := str(model, "type")
	if et != "" && et != mt {
		return name + " type mismatch (model=" + mt + ", runtime=" + et + ")"
	}
	return ""
}

func refPipeline(model, entry map[string]any) string {
	ep, ok := sub(entry, "diffusionPipeline")
	if !ok {
		return ""
	}
	mp, ok := sub(model, "diffusionPipeline")
	if !ok {
		return "diffusion pipeline required by runtime but not specified in model"
	}
	if ec, ok := str(ep, "className"); ok {
		mc, mok := str(mp, "className")
		if !mok || mc != ec {
			if !mok {
				mc = "<nil>"
			}
			return "pipeline class mismatch (model=" + mc + ", runtime=" + ec + ")"
		}
	}
	for _, c := range []string{"scheduler", "textEncoder", "tokenizer", "transformer", "vae"} {
		ec, ok := sub(ep, c)
		if !ok {
			continue
		}
		mc, ok := sub(mp, c)
		if !ok {
			return "component " + c + " required by runtime but not specified in model"
		}
		if d := refComponent(c, mc, ec); d != "" {
			return d
		}
	}
	ea, _ := sub(ep, "additionalComponents")
	if len(ea) > 0 {
		ma, _ := sub(mp, "additionalComponents")
		if len(ma) == 0 {
			return "diffusion pipeline missing required additional components"
		}
		keys := make([]string, 0, len(ea))
		for k := range ea {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			mc, ok := sub(ma, k)
			if !ok {
				return "diffusion component " + k + " missing in model"
			}
			ec, _ := sub(ea, k)
			if d := refComponent(k, mc, ec); d != "" {
				return d
			}
		}
	}
	return ""
}

func (r Release) entry(model, entry map[string]any) []string {
	var diffs []string
	add := func(d string) {
		if d != "" {
			diffs = append(diffs, d)
		}
	}
	if !r.noPipelines {
		add(refPipeline(model, entry))
	}
	add(refPair("architecture", "modelArchitecture", model, entry))
	add(refPair("quantization", "quantization", model, entry))
	mf, _ := sub(model, "modelFormat")
	ef, hasFormat := sub(entry, "modelFormat")
	if hasFormat {
		mn, _ := str(mf, "name")
		en, _ := str(ef, "name")
		if mn != en {
			add("format name mismatch (model=" + mn + ", runtime=" + en + ")")
		} else {
			add(r.versionText("format", ef, mf))
		}
	}
	mw, mok := sub(model, "modelFramework")
	ew, eok := sub(entry, "modelFramework")
	switch {
	case mok && eok:
		mn, _ := str(mw, "name")
		en, _ := str(ew, "name")
		if mn != en {
			add("framework name mismatch (model=" + mn + ", runtime=" + en + ")")
		} else {
			add(r.versionText("framework", ew, mw))
		}
	case eok:
		en, _ := str(ew, "name")
		add("model has no framework but runtime requires " + en)
	case mok:
		mn, _ := str(mw, "name")
		add("model has framework " + mn + " but runtime has no framework requirement")
	}
	if len(diffs) == 0 && !hasFormat {
		diffs = []string{"unknown mismatch"}
	}
	if diffs == nil {
		diffs = []string{}
	}
	return diffs
}

func refLabel(model map[string]any) string {
	mf, _ := sub(model, "modelFormat")
	name, _ := str(mf, "name")
	parts := []string{"mt:" + name}
	if v, ok := str(mf, "version"); ok {
		parts = append(parts, v)
	}
	if v, ok := str(model, "modelArchitecture"); ok {
		parts = append(parts, v)
	}
	if v, ok := str(model, "quantization"); ok {
		parts = append(parts, v)
	}
	if fw, ok := sub(model, "modelFramework"); ok {
		n, _ := str(fw, "name")
		parts = append(parts, n)
		if v, ok := str(fw, "version"); ok {
			parts = append(parts, v)
		}
	}
	return strings.Join(parts, ":")
}

// Match evaluates a model spec against a runtime spec (normalised values:
// absent fields are absent, strings are strings) on the newest release.
func Match(model, runtime map[string]any) Verdict {
	return releases[0].Match(model, runtime)
}

// Match evaluates a model spec against a runtime spec on release r.
func (r Release) Match(model, runtime map[string]any) Verdict {
	formats, _ := runtime["supportedModelFormats"].([]any)
	v := Verdict{Entries: make([]EntryResult, 0, len(formats))}
	matched := false
	var texts []string
	for i, f := range formats {
		e, _ := f.(map[string]any)
		if e == nil {
			e = map[string]any{}
		}
		d := r.entry(model, e)
		v.Entries = append(v.Entries, EntryResult{Index: i, Matched: len(d) == 0, Differences: d})
		matched = matched || len(d) == 0
		texts = append(texts, strings.Join(d, ", "))
	}
	if disabled, _ := runtime["disabled"].(bool); disabled {
		v.Reason = "runtime is disabled"
		return v
	}
	if !matched {
		detail := "no supported formats defined"
		if len(texts) > 0 {
			detail = strings.Join(texts, "; ")
		}
		v.Reason = "model format '" + refLabel(model) + "' not in supported formats"
		if !r.labelOnly {
			v.Reason += ": " + detail
		}
		return v
	}
	size, hasSize := str(model, "modelParameterSize")
	rng, hasRange := sub(runtime, "modelSizeRange")
	if hasSize && hasRange {
		lo, hasLo := str(rng, "min")
		hi, hasHi := str(rng, "max")
		if outsideRange(size, lo, hasLo, hi, hasHi) {
			v.Reason = "model size " + size + " is outside supported range [" + lo + ", " + hi + "]"
			return v
		}
	}
	v.Compatible = true
	return v
}
