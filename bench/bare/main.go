// Command bare is the benchmarks' bare plain-Go program: the fastest
// `evaluate match -o json` written by hand that shares nothing with the
// product but the spec's rules (internal/reference). It reads YAML with
// yaml.v3 and JSON with encoding/json straight into plain maps, checks
// nothing it does not need, matches every pair, and streams the same JSON
// document `evaluate match -o json` writes, byte for byte, with its own
// writer. It is what a user's wait is measured against; it is not part of
// the product.
//
// It reads files and folders of YAML or JSON documents (a folder's *.yaml,
// *.yml and *.json files, recursively, in lexical order; kind: List is
// unpacked); model folders of config.json are not its business: bench/run.sh
// gives it the catalog's models as one YAML file.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/internal/reference"
)

type paths []string

func (p *paths) String() string     { return strings.Join(*p, ",") }
func (p *paths) Set(s string) error { *p = append(*p, s); return nil }

func main() {
	var models, runtimes paths
	flag.Var(&models, "m", "models: file or folder (repeatable)")
	flag.Var(&runtimes, "r", "runtimes: file or folder (repeatable)")
	cpuprofile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	if *cpuprofile != "" {
		f, err := os.Create(*cpuprofile)
		if err == nil {
			err = pprof.StartCPUProfile(f)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "bare:", err)
			os.Exit(2)
		}
		defer pprof.StopCPUProfile()
	}
	// The product's garbage-collection setting (cmd/evaluate/main.go), so
	// that neither side wins by trading memory for time.
	if _, set := os.LookupEnv("GOMEMLIMIT"); !set {
		debug.SetMemoryLimit(72 << 20)
	}
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(300)
	}
	if err := run(models, runtimes, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "bare:", err)
		pprof.StopCPUProfile()
		os.Exit(2)
	}
}

// object is what the output needs of a document: its reference, as JSON,
// and its spec.
type object struct {
	ref            []byte // {"kind": ..., "namespace": ..., "name": ...}, indented
	kind, ns, name string
	spec           map[string]any
}

// inScope is whether OME ever pairs the model with the runtime: a
// BaseModel never meets the ServingRuntimes of another namespace.
func inScope(m, r object) bool {
	return r.kind != "ServingRuntime" || m.kind != "BaseModel" || m.ns == r.ns
}

func run(models, runtimes []string, stdout io.Writer) error {
	ms, err := load(models, "BaseModel", "ClusterBaseModel")
	if err != nil {
		return err
	}
	rs, err := load(runtimes, "ServingRuntime", "ClusterServingRuntime")
	if err != nil {
		return err
	}
	ms, rs = applied(ms), applied(rs)
	out := bufio.NewWriterSize(stdout, 1<<16)
	out.WriteString("{\"results\": [")
	// Models are matched on all cores, a few ahead of the writer.
	workers := max(1, min(runtime.GOMAXPROCS(0), len(ms)))
	slots := make([]chan *[]byte, len(ms))
	leftOut := make([]int, len(ms)) // each model's pairs out of scope
	for i := range slots {
		slots[i] = make(chan *[]byte, 1)
	}
	next := make(chan int)
	window := make(chan struct{}, 2*workers)
	go func() {
		for i := range ms {
			window <- struct{}{}
			next <- i
		}
		close(next)
	}()
	// Each model's results are one buffer, reused once written.
	buffers := sync.Pool{New: func() any { return new([]byte) }}
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				bp := buffers.Get().(*[]byte)
				b := (*bp)[:0]
				for _, r := range rs {
					if !inScope(ms[i], r) {
						leftOut[i]++
						continue
					}
					b = appendResult(b, ms[i], r, reference.Match(ms[i].spec, r.spec))
				}
				*bp = b
				slots[i] <- bp
			}
		}()
	}
	written, left := false, 0
	for i := range ms {
		bp := <-slots[i]
		b := *bp
		if !written && len(b) > 0 {
			b, written = b[1:], true // the first result has no comma before it
		}
		out.Write(b)
		left += leftOut[i]
		buffers.Put(bp)
		<-window
	}
	wg.Wait()
	if written {
		out.WriteString("\n")
	}
	// The spec's rules give the same verdicts and reasons as OME's newest
	// release that evaluate states, which it names by default.
	fmt.Fprintf(out, "],\n\"omeVersion\": \"v1.2.2\",\n\"leftOut\": %d,\n\"errors\": []}\n", left)
	return out.Flush()
}

// applied keeps what kubectl apply would leave of objs: of the objects of
// one kind, namespace and name, the last, in its place.
func applied(objs []object) []object {
	type key struct{ kind, ns, name string }
	last := make(map[key]int, len(objs))
	for i, o := range objs {
		last[key{o.kind, o.ns, o.name}] = i
	}
	kept := objs[:0:0]
	for i, o := range objs {
		if last[key{o.kind, o.ns, o.name}] == i {
			kept = append(kept, o)
		}
	}
	return kept
}

// load reads the documents of the paths whose kind is one of kinds.
func load(args []string, kinds ...string) ([]object, error) {
	var out []object
	for _, a := range args {
		var files []string
		st, err := os.Stat(a)
		if err != nil {
			return nil, err
		}
		if st.IsDir() {
			err = filepath.WalkDir(a, func(p string, d fs.DirEntry, err error) error {
				if err != nil {
					return err
				}
				if ext := filepath.Ext(p); !d.IsDir() && (ext == ".yaml" || ext == ".yml" || ext == ".json") {
					files = append(files, p)
				}
				return nil
			})
			if err != nil {
				return nil, err
			}
		} else {
			files = []string{a}
		}
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return nil, err
			}
			docs, err := decode(f, data)
			if err != nil {
				return nil, err
			}
			for _, d := range docs {
				out = appendObjects(out, d, kinds)
			}
		}
	}
	return out, nil
}

// decode reads every document of a file: JSON when it starts with {,
// otherwise YAML.
func decode(file string, data []byte) ([]map[string]any, error) {
	if t := bytes.TrimSpace(data); len(t) > 0 && t[0] == '{' {
		var m map[string]any
		if err := json.Unmarshal(t, &m); err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		return []map[string]any{m}, nil
	}
	var out []map[string]any
	dec := yaml.NewDecoder(bytes.NewReader(data))
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if m != nil {
			out = append(out, m)
		}
	}
}

func appendObjects(out []object, d map[string]any, kinds []string) []object {
	kind, _ := d["kind"].(string)
	if kind == "List" {
		items, _ := d["items"].([]any)
		for _, it := range items {
			if m, ok := it.(map[string]any); ok {
				out = appendObjects(out, m, kinds)
			}
		}
		return out
	}
	if kind != kinds[0] && kind != kinds[1] {
		return out
	}
	meta, _ := d["metadata"].(map[string]any)
	name, _ := meta["name"].(string)
	ns, _ := meta["namespace"].(string)
	if strings.HasPrefix(kind, "Cluster") {
		ns = ""
	}
	spec, _ := d["spec"].(map[string]any)
	if spec == nil {
		spec = map[string]any{}
	}
	ref := []byte("{\n      \"kind\": ")
	ref = appendString(ref, kind)
	ref = append(ref, ",\n      \"namespace\": "...)
	ref = appendString(ref, ns)
	ref = append(ref, ",\n      \"name\": "...)
	ref = appendString(ref, name)
	ref = append(ref, "\n    }"...)
	return append(out, object{ref: ref, kind: kind, ns: ns, name: name, spec: normalise(spec).(map[string]any)})
}

// normalise turns yaml.v3's map[string]interface{} of nested documents and
// its int into what the rules read: map[string]any and int64.
func normalise(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			x[k] = normalise(e)
		}
		return x
	case []any:
		for i, e := range x {
			x[i] = normalise(e)
		}
		return x
	case int:
		return int64(x)
	}
	return v
}

// appendResult writes one pair as json.MarshalIndent(result, "  ", "  ")
// does, after a comma (which the writer drops before the first).
func appendResult(b []byte, m, r object, v reference.Verdict) []byte {
	b = append(b, ",\n  {\n    \"model\": "...)
	b = append(b, m.ref...)
	b = append(b, ",\n    \"runtime\": "...)
	b = append(b, r.ref...)
	b = append(b, ",\n    \"compatible\": "...)
	b = strconv.AppendBool(b, v.Compatible)
	b = append(b, ",\n    \"reason\": "...)
	b = appendString(b, v.Reason)
	if len(v.Entries) == 0 {
		b = append(b, ",\n    \"entries\": []\n  }"...)
		return b
	}
	b = append(b, ",\n    \"entries\": ["...)
	for i, e := range v.Entries {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, "\n      {\n        \"index\": "...)
		b = strconv.AppendInt(b, int64(e.Index), 10)
		b = append(b, ",\n        \"matched\": "...)
		b = strconv.AppendBool(b, e.Matched)
		if len(e.Differences) == 0 {
			b = append(b, ",\n        \"differences\": []\n      }"...)
			continue
		}
		b = append(b, ",\n        \"differences\": ["...)
		for j, d := range e.Differences {
			if j > 0 {
				b = append(b, ',')
			}
			b = append(b, "\n          "...)
			b = appendString(b, d)
		}
		b = append(b, "\n        ]\n      }"...)
	}
	return append(b, "\n    ]\n  }"...)
}

const hex = "0123456789abcdef"

// plain holds the bytes that appendString copies as they are (printable
// ASCII but '"', '\\', '<', '>' and '&'), one lookup a byte.
var plain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = true
	}
	t['"'], t['\\'], t['<'], t['>'], t['&'] = false, false, false, false, false
	return t
}()

// appendString quotes s as encoding/json does: HTML characters, control
// characters, U+2028 and U+2029 escaped, invalid UTF-8 as U+FFFD.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if plain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			default:
				b = append(b, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hex[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
