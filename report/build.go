package report

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"sync"

	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/input"
	"github.com/ome-policy/evaluator/objects"
	"github.com/ome-policy/evaluator/output"
	"github.com/ome-policy/evaluator/policies/policyset"
	"github.com/ome-policy/evaluator/results"
	"github.com/ome-policy/evaluator/rules"
)

// Input is what a report is about.
type Input struct {
	// Models and Runtimes are matched, explained and linted, every model
	// against every runtime, in this order (as evaluate match reads them).
	Models, Runtimes []*objects.Object
	// Services are the InferenceServices to select a runtime for (-f);
	// Others are the other objects given with them, which selection sees
	// before Models and Runtimes.
	Services, Others []*objects.Object
	// Engine is cel, rego or both; Policies the set to compile.
	Engine   string
	Policies *policyset.Set
	// Title heads the page; empty for a default.
	Title string
	// Rules are a team's own rules (--rules), whose findings on the
	// models, runtimes and InferenceServices the page lists with lint's;
	// Decide gives OME's decisions to those that read them.
	Rules  *rules.Set
	Decide rules.Decide
	// Progress, when set, is told how far each step is: "matching" and
	// "explaining" model by model (total: the models), "linting" and
	// "selecting" once each, when they start (done 0 of 1).
	Progress func(step string, done, total int)
}

// Of is the input of a page of objs, the objects read from sources (as
// the errors name them): their models, runtimes and InferenceServices. A
// page needs models and runtimes, and creation times that read as times
// (objects.CheckTimestamps).
func Of(objs []*objects.Object, sources string) (Input, error) {
	var in Input
	for _, o := range objs {
		switch {
		case o.IsModel():
			in.Models = append(in.Models, o)
		case o.IsRuntime():
			in.Runtimes = append(in.Runtimes, o)
		case o.IsService():
			in.Services = append(in.Services, o)
		}
	}
	if len(in.Models) == 0 || len(in.Runtimes) == 0 {
		return in, fmt.Errorf("%s: a report needs models and runtimes; found %d model(s) and %d runtime(s)", sources, len(in.Models), len(in.Runtimes))
	}
	return in, objects.CheckTimestamps(objs)
}

// progress tells in.Progress, if any, how far step is.
func (in Input) progress(step string, done, total int) {
	if in.Progress != nil {
		in.Progress(step, done, total)
	}
}

// Summary is what a report found, for the command's exit code.
type Summary struct {
	Models, Runtimes int
	Compatible       int // compatible pairs
	Unserved         int // models that no runtime accepts
	Rejected         int // InferenceServices the webhook rejects
	DataBytes        int // size of the embedded data (gzip + base64)
}

// Says is what a page of size bytes, written to where ("" or - for
// standard output), holds (services: the InferenceServices it was
// given), in one line.
func (s Summary) Says(where string, size, services int) string {
	if where == "" || where == "-" {
		where = "standard output"
	}
	line := fmt.Sprintf("wrote %s (%d bytes): %d model(s) x %d runtime(s), %d compatible pair(s), %d model(s) with no compatible runtime",
		where, size, s.Models, s.Runtimes, s.Compatible, s.Unserved)
	if services > 0 {
		line += fmt.Sprintf(", %d of %d InferenceService(s) rejected", s.Rejected, services)
	}
	return line
}

// ObjectInfo is what the page says of a model or runtime besides the
// commands' JSON: where it was read, and the names the filter looks at.
type ObjectInfo struct {
	Kind          string   `json:"kind"`
	Namespace     string   `json:"namespace"`
	Name          string   `json:"name"`
	File          string   `json:"file"`
	Line          int      `json:"line"`
	Formats       []string `json:"formats"`
	Frameworks    []string `json:"frameworks"`
	Architectures []string `json:"architectures"`
	Quantizations []string `json:"quantizations"`
}

// data is the embedded document, built as a table (see table).
type data struct {
	t    *table
	keys [][]byte
	refs []int
}

func (d *data) put(key string, ref int) {
	k, _ := json.Marshal(key)
	d.keys = append(d.keys, k)
	d.refs = append(d.refs, ref)
}

func (d *data) putJSON(key string, doc []byte) error {
	r, err := d.t.intern(doc)
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	d.put(key, r)
	return nil
}

// pageData is what the page embeds: one table in two blocks, the main one
// (nodes[:split]: everything the matrix and the lists need, read before
// the page is interactive) and the explanations (nodes[split:], the bulk,
// read right after; they share the main block's values).
type pageData struct {
	t                     *table
	split                 int
	mainRoot, explainRoot int
}

// compute evaluates everything the page shows and returns its data: what
// evaluate match, lint --cross-check and select print, the probes of the
// matrix's selectable cells, the objects, then (last, in a block of their
// own) what evaluate explain prints.
func compute(in Input) (*pageData, Summary, error) {
	sum := Summary{Models: len(in.Models), Runtimes: len(in.Runtimes)}
	d := &data{t: newTable()}
	m, err := engine.New(in.Engine, in.Policies)
	if err != nil {
		return nil, sum, err
	}
	d.putHeader(in)
	compatible, err := matchInto(d, m, in)
	if err != nil {
		return nil, sum, err
	}
	sum.Compatible, sum.Unserved = served(compatible)
	if err := lintInto(d, in); err != nil {
		return nil, sum, err
	}
	sel, err := engine.NewSelector(in.Engine, in.Policies)
	if err != nil {
		return nil, sum, err
	}
	if sum.Rejected, err = selectInto(d, sel, in); err != nil {
		return nil, sum, err
	}
	if err := probesInto(d, sel, in, compatible); err != nil {
		return nil, sum, err
	}
	if err := objectsInto(d, in); err != nil {
		return nil, sum, err
	}
	pd := &pageData{t: d.t, mainRoot: d.t.object(d.keys, d.refs)}
	pd.split = len(d.t.nodes)

	// evaluate explain -o json, last, so that its own values follow the
	// main block's.
	refs, err := explainInto(d.t, in)
	if err != nil {
		return nil, sum, err
	}
	// The document that evaluate explain -o json prints; input errors are
	// said on standard error, not in the page.
	relK, _ := json.Marshal("omeVersion")
	rel, _ := json.Marshal(in.Policies.Release)
	explK, _ := json.Marshal("explanations")
	errK, _ := json.Marshal("errors")
	pd.explainRoot = d.t.object([][]byte{relK, explK, errK}, []int{d.t.add(rel), d.t.array(refs), d.t.array(nil)})
	return pd, sum, nil
}

// putHeader puts the engine's name and the page's title.
func (d *data) putHeader(in Input) {
	ek, _ := json.Marshal(in.Engine)
	d.put("engine", d.t.add(ek))
	rk, _ := json.Marshal(in.Policies.Release)
	d.put("omeVersion", d.t.add(rk))
	title := in.Title
	if title == "" {
		title = "Compatibility report"
	}
	tk, _ := json.Marshal(title)
	d.put("title", d.t.add(tk))
}

// matchInto puts what evaluate match -o json prints, and returns which
// pairs are compatible (models as rows, runtimes as columns).
func matchInto(d *data, m engine.Matcher, in Input) ([][]bool, error) {
	var buf bytes.Buffer
	mw, err := output.NewMatchWriter("json", &buf)
	if err != nil {
		return nil, err
	}
	if err := mw.Begin(in.Models, in.Runtimes); err != nil {
		return nil, err
	}
	compatible := make([][]bool, len(in.Models))
	for i := range compatible {
		compatible[i] = make([]bool, len(in.Runtimes))
	}
	mi := 0
	leftOut, err := engine.MatchObjects(m, in.Models, in.Runtimes, func(mo *objects.Object, results []engine.Result) error {
		// The results are those of the runtimes in scope, in order.
		k := 0
		for ri, r := range in.Runtimes {
			if objects.InScope(mo, r) {
				compatible[mi][ri] = results[k].Compatible
				k++
			}
		}
		mi++
		in.progress("matching", mi, len(in.Models))
		return mw.Model(objects.RefOf(mo), results)
	})
	if err != nil {
		return nil, err
	}
	if err := mw.End(results.MatchSummary{OMEVersion: in.Policies.Release, LeftOut: leftOut}); err != nil {
		return nil, err
	}
	return compatible, d.putJSON("match", buf.Bytes())
}

// served counts the compatible pairs and the models without any.
func served(compatible [][]bool) (pairs, unserved int) {
	for _, row := range compatible {
		some := false
		for _, c := range row {
			if c {
				pairs++
				some = true
			}
		}
		if !some {
			unserved++
		}
	}
	return pairs, unserved
}

// lintInto puts what evaluate lint --cross-check -o json prints, models
// then runtimes.
func lintInto(d *data, in Input) error {
	in.progress("linting", 0, 1)
	lint, err := engine.NewLinter(in.Engine, in.Policies)
	if err != nil {
		return err
	}
	all := append(append([]*objects.Object{}, in.Models...), in.Runtimes...)
	findings, err := engine.Lint(lint, all, engine.LintOptions{CrossCheck: true})
	if err != nil {
		return err
	}
	team, err := ruleFindings(in)
	if err != nil {
		return err
	}
	findings = append(findings, team...)
	engine.SortFindings(findings)
	var buf bytes.Buffer
	lw, err := output.NewLintWriter("json", &buf, output.Style{})
	if err != nil {
		return err
	}
	if err := lw.Write(results.LintReport{OMEVersion: in.Policies.Release, Findings: findings}); err != nil {
		return err
	}
	return d.putJSON("lint", buf.Bytes())
}

// ruleFindings are the findings of a team's rules (in.Rules) on the
// models, runtimes and InferenceServices, with OME's decisions for the
// rules that read them. A rule that gives no message is an error.
func ruleFindings(in Input) ([]engine.Finding, error) {
	if in.Rules.Len() == 0 {
		return nil, nil
	}
	objs := append(append(append([]*objects.Object{}, in.Models...), in.Runtimes...), in.Services...)
	var out []engine.Finding
	var problems rules.Problems
	for _, o := range objs {
		fs, probs := in.Rules.Check(o)
		out, problems = append(out, fs...), append(problems, probs...)
	}
	fs, probs, err := in.Rules.CheckAllDecisions(append(append([]*objects.Object{}, in.Others...), objs...), in.Decide)
	if err != nil {
		return nil, err
	}
	out, problems = append(out, fs...), append(problems, probs...)
	if len(problems) > 0 {
		return nil, problems
	}
	return out, nil
}

// selectInto puts what evaluate select -o json prints on the
// InferenceServices given (null without any), and returns how many were
// rejected.
func selectInto(d *data, sel engine.Selector, in Input) (rejected int, err error) {
	in.progress("selecting", 0, 1)
	if len(in.Services) == 0 {
		d.put("select", d.t.add([]byte("null")))
		return 0, nil
	}
	cluster := append(append(append([]*objects.Object{}, in.Others...), in.Models...), in.Runtimes...)
	cluster, _ = objects.Deduplicate(cluster)
	var decisions []results.SelectResult
	for _, isvc := range in.Services {
		dec, err := sel.Select(isvc, cluster)
		if err != nil {
			return 0, fmt.Errorf("%s (%s:%d): %w", isvc.Ref(), isvc.File, isvc.Line, err)
		}
		if !dec.Admitted {
			rejected++
		}
		decisions = append(decisions, results.SelectResult{InferenceService: objects.RefOf(isvc), Decision: dec})
	}
	return rejected, writeSelect(d, "select", in.Policies.Release, decisions)
}

// probesInto puts the matrix's selectable cells and scores: what evaluate
// select -o json prints on one InferenceService per model and namespace
// (see probes), and the model each probe is of.
func probesInto(d *data, sel engine.Selector, in Input, compatible [][]bool) error {
	results, owners, err := probes(sel, in.Models, in.Runtimes, compatible)
	if err != nil {
		return err
	}
	if err := writeSelect(d, "probes", in.Policies.Release, results); err != nil {
		return err
	}
	ob, _ := json.Marshal(owners)
	return d.putJSON("probeModels", ob)
}

// objectsInto puts what the page says of each model and runtime.
func objectsInto(d *data, in Input) error {
	models, _ := json.Marshal(infos(in.Models))
	if err := d.putJSON("models", models); err != nil {
		return err
	}
	runtimes, _ := json.Marshal(infos(in.Runtimes))
	return d.putJSON("runtimes", runtimes)
}

func writeSelect(d *data, key, release string, results []results.SelectResult) error {
	var buf bytes.Buffer
	w, err := output.NewSelectWriter("json", &buf, release)
	if err != nil {
		return err
	}
	if err := w.Write(results, nil); err != nil {
		return err
	}
	return d.putJSON(key, buf.Bytes())
}

// explainInto computes evaluate explain's explanation of every pair, in
// match's order (by model, then runtime), on all cores, writes each as the
// explain writer writes it and stores it in t; it returns their references.
// While one model's explanations are stored, the next model's are computed.
func explainInto(t *table, in Input) ([]int, error) {
	x, err := engine.NewExplainer(in.Engine, in.Policies)
	if err != nil {
		return nil, err
	}
	sel, err := engine.NewSelector(in.Engine, in.Policies)
	if err != nil {
		return nil, err
	}
	// The ties, as evaluate explain finds them: asked of each model's
	// runtimes before its explanations are computed.
	ties := engine.NewTieFinder(sel, append(append([]*objects.Object(nil), in.Models...), in.Runtimes...))
	type batch struct {
		docs [][]byte
		err  error
	}
	batches := make(chan batch, 1)
	stop := make(chan struct{})
	defer close(stop)
	go func() {
		defer close(batches)
		workers := runtime.GOMAXPROCS(0)
		for _, m := range in.Models {
			docs := make([][]byte, len(in.Runtimes))
			errs := make([]error, len(in.Runtimes))
			tied := make([]*engine.Tie, len(in.Runtimes))
			for ri, r := range in.Runtimes {
				if objects.InScope(m, r) {
					tied[ri], errs[ri] = ties.Tie(objects.RefOf(m), objects.RefOf(r))
				}
			}
			jobs := make(chan int)
			var wg sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for ri := range jobs {
						r := in.Runtimes[ri]
						if errs[ri] != nil {
							continue
						}
						e, err := x.Explain(m, r)
						if err != nil {
							errs[ri] = fmt.Errorf("model %s (%s) against runtime %s (%s): %w", m.Ref(), m.File, r.Ref(), r.File, err)
							continue
						}
						if e.Compatible {
							e.Tie = tied[ri]
						}
						var b bytes.Buffer
						w, _ := output.NewExplainWriter("json", &b, output.Style{}, in.Policies.Release)
						errs[ri] = w.Write([]engine.Explanation{e}, nil)
						docs[ri] = b.Bytes()
					}
				}()
			}
			for ri := range in.Runtimes {
				jobs <- ri
			}
			close(jobs)
			wg.Wait()
			b := batch{docs: docs, err: errors.Join(errs...)}
			select {
			case batches <- b:
			case <-stop:
				return
			}
			if b.err != nil {
				return
			}
		}
	}()
	refs := make([]int, 0, len(in.Models)*len(in.Runtimes))
	done := 0
	for b := range batches {
		if b.err != nil {
			return nil, b.err
		}
		done++
		in.progress("explaining", done, len(in.Models))
		for _, doc := range b.docs {
			// {"explanations": [e]}: keep e.
			list, err := t.internElements(doc, "explanations")
			if err != nil {
				return nil, err
			}
			if len(list) != 1 {
				return nil, fmt.Errorf("report: the explain writer wrote %d explanations for one pair", len(list))
			}
			refs = append(refs, list[0])
		}
	}
	if len(refs) != len(in.Models)*len(in.Runtimes) {
		return nil, fmt.Errorf("report: %d explanations for %d pairs", len(refs), len(in.Models)*len(in.Runtimes))
	}
	return refs, nil
}

// probes asks OME's webhook, for each model, what it would do with an
// InferenceService of that model that has an engine and nothing else: the
// candidates it ranks are the matrix's selectable cells, with their
// scores. The webhook only looks at the ServingRuntimes of the
// InferenceService's namespace and at ClusterServingRuntimes, so there is
// one InferenceService per model and namespace: a BaseModel's own
// namespace; for a ClusterBaseModel, each namespace of a compatible
// ServingRuntime (or "default"). Selection only gets the model and the
// runtimes compatible with it: the others can't be candidates, and
// leaving them out keeps the messages short. It returns the decisions and,
// for each, the index of its model.
func probes(sel engine.Selector, models, runtimes []*objects.Object, compatible [][]bool) ([]results.SelectResult, []int, error) {
	var decisions []results.SelectResult
	var owners []int
	for mi, m := range models {
		var clusterScoped []*objects.Object
		byNS := map[string][]*objects.Object{}
		var namespaces []string
		for ri, r := range runtimes {
			if !compatible[mi][ri] {
				continue
			}
			if r.Kind == objects.KindClusterServingRuntime {
				clusterScoped = append(clusterScoped, r)
				continue
			}
			if m.Kind == objects.KindBaseModel && r.Namespace != m.Namespace {
				continue // no InferenceService of this model sees it
			}
			if _, ok := byNS[r.Namespace]; !ok {
				namespaces = append(namespaces, r.Namespace)
			}
			byNS[r.Namespace] = append(byNS[r.Namespace], r)
		}
		if len(namespaces) == 0 {
			if len(clusterScoped) == 0 {
				continue
			}
			ns := m.Namespace
			if ns == "" {
				ns = "default"
			}
			namespaces = []string{ns}
		}
		for _, ns := range namespaces {
			isvc, err := probeService(m, ns)
			if err != nil {
				return nil, nil, err
			}
			cluster := append(append([]*objects.Object{m}, byNS[ns]...), clusterScoped...)
			d, err := sel.Select(isvc, cluster)
			if err != nil {
				return nil, nil, fmt.Errorf("selecting a runtime for model %s (%s:%d): %w", m.Ref(), m.File, m.Line, err)
			}
			decisions = append(decisions, results.SelectResult{InferenceService: objects.RefOf(isvc), Decision: d})
			owners = append(owners, mi)
		}
	}
	return decisions, owners, nil
}

// probeService is an InferenceService named after model m in namespace ns,
// with an engine and nothing else, so that the webhook selects a runtime.
func probeService(m *objects.Object, ns string) (*objects.Object, error) {
	doc, err := json.Marshal(map[string]any{
		"apiVersion": objects.APIVersion,
		"kind":       objects.KindInferenceService,
		"metadata":   map[string]any{"name": m.Name, "namespace": ns},
		"spec":       map[string]any{"model": map[string]any{"name": m.Name}, "engine": map[string]any{}},
	})
	if err != nil {
		return nil, err
	}
	objs, err := input.LoadData("(report)", doc, input.LoadOptions{})
	if err != nil {
		return nil, err
	}
	if len(objs) != 1 {
		return nil, fmt.Errorf("report: %d objects in a probe InferenceService", len(objs))
	}
	return objs[0], nil
}

// infos says where each object was read, and the names the filter uses.
func infos(objs []*objects.Object) []ObjectInfo {
	out := make([]ObjectInfo, len(objs))
	for i, o := range objs {
		info := ObjectInfo{Kind: o.Kind, Namespace: o.Namespace, Name: o.Name, File: o.File, Line: o.Line,
			Formats: []string{}, Frameworks: []string{}, Architectures: []string{}, Quantizations: []string{}}
		spec := o.Spec()
		add := func(list *[]string, v any) {
			s, ok := v.(string)
			if !ok || s == "" {
				return
			}
			for _, x := range *list {
				if x == s {
					return
				}
			}
			*list = append(*list, s)
		}
		facets := func(m map[string]any) {
			f, _ := m["modelFormat"].(map[string]any)
			add(&info.Formats, f["name"])
			fw, _ := m["modelFramework"].(map[string]any)
			add(&info.Frameworks, fw["name"])
			add(&info.Architectures, m["modelArchitecture"])
			add(&info.Quantizations, m["quantization"])
		}
		if o.IsModel() {
			facets(spec)
		} else {
			entries, _ := spec["supportedModelFormats"].([]any)
			for _, e := range entries {
				if em, ok := e.(map[string]any); ok {
					facets(em)
				}
			}
		}
		out[i] = info
	}
	return out
}
