package input

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"gopkg.in/yaml.v3"

	"github.com/ome-policy/evaluator/objects"
)

// ReadOptions configures Result.Read.
type ReadOptions struct {
	Stdin io.Reader // read for the path "-"; nil means os.Stdin
	// Lenient keeps an object whose fields have the wrong types (lint
	// reports them as findings); otherwise such an object is a problem and
	// is left out.
	Lenient bool
	// ModelFolders reads a folder that directly holds config.json or
	// model_index.json as one model (spec section 8), instead of searching it.
	ModelFolders bool
	// Recursive reads the folders inside a folder too, as kubectl's -R;
	// without it a folder's own files are read and its folders are listed
	// in Result.Unread.
	Recursive bool
	// Namespace is the namespace of a namespaced object that says none, as
	// kubectl apply would put it; "" leaves such objects without one.
	Namespace string
}

// Result is what reads found, in input order: the OME objects, the problems
// (a file that cannot be read, a document that is not YAML, an object
// with a field of the wrong type...), and what was skipped. A problem
// never stops a read: the next document, file and path are still read.
type Result struct {
	Objects  []*objects.Object
	Problems []*objects.InputError
	Skipped  []Skipped
	// Unread are folders inside folders that were not read (no -R).
	Unread []string
	// Links say each link to a folder that was not walked, as it leads to
	// a folder already read (a loop, or a second way to it).
	Links []string
	// Empty are the paths given from which no object was read and that
	// gave no problem either.
	Empty []EmptyPath
	// BadNames are the objects whose names the API server refuses, each
	// with its notice (NameNotice).
	BadNames []objects.BadName
	// Replaced are the objects that a later one of the same kind,
	// namespace and name replaces, as kubectl apply would (Applied), in
	// the order found. Done leaves only the later one in Objects; a Visit
	// function is handed both.
	Replaced []objects.Replacement
	// Visit, when set, receives each object instead of Objects, so that a
	// caller can handle each object and let it go (lint of a large dump).
	Visit func(*objects.Object)

	seen  map[objects.Ref]place // where each object read so far is
	taken int                   // how many objects were read
}

// EmptyPath is a path given from which no object was read, and how many
// folders inside it were left unread for want of -R.
type EmptyPath struct {
	Path   string
	Unread int
}

// Message says what was not read from the path.
func (e EmptyPath) Message() string {
	if e.Unread > 0 {
		return fmt.Sprintf("no OME object read from it; the %d folder(s) inside it are read with -R", e.Unread)
	}
	return "no OME object read from it"
}

// Taken is how many objects were read.
func (in *Result) Taken() int { return in.taken }

// place is where an object is: its file and line.
type place struct {
	file string
	line int
}

// Skipped is a document that is not an OME object.
type Skipped struct {
	File string
	Line int
	// Kind is the document's kind ("" when it has none); APIVersion is set
	// when the kind is OME's but the apiVersion is not.
	Kind, APIVersion, Name string
	// HuggingFace marks a document without kind that is a Hugging Face
	// config (config.json, model_index.json) in a file of another name.
	HuggingFace bool
}

// hfConfigNote says how a Hugging Face config is read as a model.
const hfConfigNote = "a Hugging Face config.json is read as a model only as <model>/config.json"

// What names a skipped document as a notice does.
func (s Skipped) What() string {
	what := s.Kind
	switch {
	case s.HuggingFace:
		what = "Hugging Face config"
	case what == "":
		what = "<no kind>"
	}
	if s.APIVersion != "" {
		what += fmt.Sprintf(" of apiVersion %q", s.APIVersion)
	}
	return what
}

// SkipNotice is one line that counts the skipped documents by kind, or ""
// when none was skipped.
func (in *Result) SkipNotice() string {
	if len(in.Skipped) == 0 {
		return ""
	}
	counts := map[string]int{}
	hf := false
	for _, s := range in.Skipped {
		counts[s.What()]++
		hf = hf || s.HuggingFace
	}
	note := fmt.Sprintf("notice: skipped %d document(s) that are not OME objects (%s)", len(in.Skipped), countList(counts))
	if hf {
		note += "; " + hfConfigNote
	}
	return note
}

// countList writes counts as "2 ConfigMap, 1 Deployment", by name.
func countList(counts map[string]int) string {
	keys := make([]string, 0, len(counts))
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d %s", counts[k], k)
	}
	return strings.Join(parts, ", ")
}

// UnreadNotice is one line that names the folders not read for want of
// -R, or "" when there are none.
func (in *Result) UnreadNotice() string {
	if len(in.Unread) == 0 {
		return ""
	}
	return fmt.Sprintf("notice: %d folder(s) inside the folders given were not read (%s); -R reads them", len(in.Unread), strings.Join(in.Unread, ", "))
}

// ModelNotices are the lines that say what reading left out: each object
// replaced by a later one, the documents skipped (one line), the folders
// not read (one line), each link to a folder not walked again, the names
// the API server refuses, and, when some object was read, each path given
// from which none was.
func (in *Result) Notices() []string {
	var out []string
	for _, r := range in.Replaced {
		out = append(out, r.Notice())
	}
	for _, n := range []string{in.SkipNotice(), in.UnreadNotice()} {
		if n != "" {
			out = append(out, n)
		}
	}
	for _, l := range in.Links {
		out = append(out, "notice: "+l)
	}
	if n := objects.BadNamesNotice(in.BadNames); n != "" {
		out = append(out, n)
	}
	// When nothing at all was read, the command says so instead.
	if in.taken > 0 {
		for _, e := range in.Empty {
			out = append(out, "notice: "+e.Path+": "+e.Message())
		}
	}
	return out
}

// Rename names each file of what was read (objects, problems, documents
// skipped or replaced, folders unread) by name(file).
func (in *Result) Rename(name func(file string) string) {
	for _, o := range in.Objects {
		o.File = name(o.File)
	}
	for _, p := range in.Problems {
		p.File = name(p.File)
	}
	for i := range in.Skipped {
		in.Skipped[i].File = name(in.Skipped[i].File)
	}
	for i, u := range in.Unread {
		in.Unread[i] = name(u)
	}
	for i := range in.Empty {
		in.Empty[i].Path = name(in.Empty[i].Path)
	}
	for i := range in.Replaced {
		r := &in.Replaced[i]
		r.File, r.ByFile = name(r.File), name(r.ByFile)
	}
	for i := range in.BadNames {
		b := &in.BadNames[i]
		if rest, ok := strings.CutPrefix(b.Notice, b.File+":"); ok {
			b.File = name(b.File)
			b.Notice = b.File + ":" + rest
		}
	}
}

// Done ends a read of several paths and sources: of the objects of one
// kind, namespace and name, Objects keeps only the one read last, which
// replaces the others as on kubectl apply (they are in Replaced).
func (in *Result) Done() {
	if len(in.Replaced) > 0 {
		in.Objects, _ = objects.Deduplicate(in.Objects)
	}
}

// Read reads files, folders (*.yaml, *.yml, *.json, in lexical order) and
// "-" for standard input.
func (in *Result) Read(paths []string, opts ReadOptions) {
	for _, p := range paths {
		taken, problems, unread := in.taken, len(in.Problems), len(in.Unread)
		in.readOne(p, opts)
		if in.taken == taken && len(in.Problems) == problems {
			in.Empty = append(in.Empty, EmptyPath{Path: p, Unread: len(in.Unread) - unread})
		}
	}
}

// readOne reads one path given.
func (in *Result) readOne(p string, opts ReadOptions) {
	x := expandPath(p, opts.ModelFolders, opts.Recursive)
	in.Unread = append(in.Unread, x.unread...)
	in.Links = append(in.Links, x.links...)
	for _, err := range x.errs {
		in.problem(err)
	}
	for _, it := range x.items {
		if it.modelFolder {
			o, err := ModelFromFolder(it.path)
			if err != nil {
				in.problem(err)
				continue
			}
			in.take(o)
			continue
		}
		in.readPath(it.path, opts)
	}
}

// readPath reads one file, or standard input for "-", a document at a
// time: a cluster's dump is never held whole.
func (in *Result) readPath(path string, opts ReadOptions) {
	name, r := path, io.Reader(nil)
	if path == "-" {
		name, r = "<stdin>", opts.Stdin
		if r == nil {
			r = os.Stdin
		}
	} else {
		f, err := openInput(path)
		if err != nil {
			in.problem(err)
			return
		}
		defer f.Close()
		r = f
	}
	dr := &docReader{in: in, opts: opts, file: name, stdin: path == "-"}
	if err := dr.stream(r); err != nil {
		in.problem(err)
	}
}

// ReadData reads the documents of data as Read reads a file, name standing
// for the file in positions and messages (such as a cluster's list of a
// resource, read by package live).
func (in *Result) ReadData(name string, data []byte, opts ReadOptions) {
	r := &docReader{in: in, opts: opts, file: name}
	if err := r.stream(bytes.NewReader(data)); err != nil {
		in.problem(err)
	}
}

func (in *Result) problem(err error) {
	ie, ok := err.(*objects.InputError)
	if !ok {
		ie = &objects.InputError{Msg: err.Error()}
	}
	in.Problems = append(in.Problems, ie)
}

func (in *Result) take(o *objects.Object) { in.Take(o) }

// Take adds an object read by other means, as Read adds each object it
// reads: noting the earlier one it replaces, if any, then handing it to
// Visit or putting it in Objects.
func (in *Result) Take(o *objects.Object) {
	in.taken++
	if n := objects.NameNotice(o); n != "" {
		in.BadNames = append(in.BadNames, objects.BadName{Ref: o.Ref(), Notice: n, File: o.File})
	}
	ref := objects.RefOf(o)
	if in.seen == nil {
		in.seen = map[objects.Ref]place{}
	}
	if p, again := in.seen[ref]; again {
		in.Replaced = append(in.Replaced, objects.Replacement{Ref: ref, File: p.file, Line: p.line, ByFile: o.File, ByLine: o.Line})
	}
	in.seen[ref] = place{o.File, o.Line}
	if in.Visit != nil {
		in.Visit(o)
		return
	}
	in.Objects = append(in.Objects, o)
}

// docReader turns one file's documents into objects.
type docReader struct {
	in   *Result
	opts ReadOptions
	file string
	// stdin is set for standard input, whose documents a Helm "# Source:"
	// comment may name.
	stdin bool
}

// stream reads the documents of rd one at a time, each cut before its
// document marker ("---" at the start of a line, which YAML forbids inside
// any value) and decoded on its own, so that one that is not YAML (a
// template, a typo) is reported and the next ones are still read. It
// returns what ends the file: an error reading it, binary data, or more
// than objects.MaxInputBytes.
func (r *docReader) stream(rd io.Reader) error {
	br := bufio.NewReaderSize(rd, 64<<10)
	var doc []byte
	start, line, total := 1, 1, 0
	flush := func() error {
		if len(doc) == 0 {
			return nil
		}
		if bytes.IndexByte(doc, 0) >= 0 || !utf8.Valid(doc) {
			return &objects.InputError{File: r.file, Msg: "not a YAML or JSON file (binary data)"}
		}
		r.chunk(docChunk{data: doc, line: start})
		doc = doc[:0]
		return nil
	}
	for {
		l, err := br.ReadSlice('\n')
		if objects.IsDocumentMarker(l) {
			if ferr := flush(); ferr != nil {
				return ferr
			}
			start = line
		}
		// A line longer than the buffer comes in pieces, each counted: a
		// line that never ends (a stream without a newline) stops at the
		// limit too.
		for ; err == bufio.ErrBufferFull; l, err = br.ReadSlice('\n') {
			if total += len(l); total > objects.MaxInputBytes {
				return objects.TooLargeError(r.file)
			}
			doc = append(doc, l...)
		}
		if err != nil && err != io.EOF {
			return pathError(r.file, err)
		}
		doc = append(doc, l...)
		if total += len(l); total > objects.MaxInputBytes {
			return objects.TooLargeError(r.file)
		}
		if err == io.EOF {
			return flush()
		}
		line++
	}
}

func (r *docReader) chunk(c docChunk) {
	if r.stdin {
		if src := objects.HelmSource(c.data); src != "" {
			named := *r
			named.file = src + objects.FromStdin
			r = &named
		}
	}
	// Whatever the input, report a problem rather than crash.
	defer func() {
		if p := recover(); p != nil {
			r.in.problem(&objects.InputError{File: r.file, Line: c.line, Msg: fmt.Sprintf("internal error while decoding: %v", p)})
		}
	}()
	err := objects.EachDocumentAt(r.file, c.data, c.line-1, func(doc *yaml.Node) error {
		shiftLines(doc, c.line-1)
		v, pos, err := objects.DecodeValue(r.file, doc, "")
		if err != nil {
			r.in.problem(err)
			return nil
		}
		if v == nil {
			return nil // an empty document is not a problem
		}
		m, ok := v.(map[string]any)
		if !ok {
			r.in.problem(&objects.InputError{File: r.file, Line: pos.At("").Line, Msg: "document is not an object"})
			return nil
		}
		r.add(m, pos)
		return nil
	})
	if err == nil {
		return
	}
	ie, ok := err.(*objects.InputError)
	if !ok {
		ie = &objects.InputError{File: r.file, Msg: err.Error()}
	}
	if t := templateLine(c.data); t > 0 {
		ie.Line = c.line + t - 1
		ie.Msg = "this is a template ({{ ... }}), not YAML: render it first (helm template, for one) and give the output"
	} else if ie.Line == 0 {
		ie.Line = c.line
	}
	r.in.problem(ie)
}

// add takes one decoded document: an OME object, or a list (kind: List
// of any apiVersion, as kubectl writes them, or a typed list such as
// ClusterServingRuntimeList, as the API server gives them), whose items
// are taken in turn.
func (r *docReader) add(v map[string]any, pos objects.Positions) {
	line := pos.At("").Line
	kind, _ := v["kind"].(string)
	apiVersion, _ := v["apiVersion"].(string)
	if items, isList := v["items"]; isList && strings.HasSuffix(kind, "List") {
		list, ok := items.([]any)
		if !ok {
			r.in.problem(&objects.InputError{File: r.file, Line: objects.LineAt(pos, "items", line), Field: "items",
				Msg: "must be a list, got " + objects.DescribeValue(items, pos.At("items").Raw)})
			return
		}
		itemKind := strings.TrimSuffix(kind, "List")
		parts := objects.SplitPos(pos, "items")
		for i, it := range list {
			m, ok := it.(map[string]any)
			if !ok {
				p := objects.IndexPath("items", i)
				r.in.problem(&objects.InputError{File: r.file, Line: objects.LineAt(pos, p, line), Field: p,
					Msg: "must be an object, got " + objects.DescribeValue(it, pos.At(p).Raw)})
				continue
			}
			// The API server leaves out each item's kind in a typed list.
			if _, has := m["kind"]; !has && itemKind != "" {
				m["kind"], m["apiVersion"] = itemKind, apiVersion
			}
			r.add(m, parts[i])
		}
		return
	}
	if !objects.IsOMEKind(kind) || apiVersion != objects.APIVersion {
		if apiVersion == objects.APIVersion && !objects.IsOtherOMEKind(kind) {
			// The API server refuses it: no matches for kind.
			r.in.problem(&objects.InputError{File: r.file, Line: objects.LineAt(pos, "kind", line), Field: "kind", Msg: objects.UnknownKind(kind)})
			return
		}
		meta, _ := v["metadata"].(map[string]any)
		name, _ := meta["name"].(string)
		s := Skipped{File: r.file, Line: line, Kind: kind, Name: name}
		if objects.IsOMEKind(kind) {
			s.APIVersion = apiVersion
		}
		if kind == "" && apiVersion == "" {
			s.HuggingFace = objects.IsHuggingFaceConfig(v)
		}
		r.in.Skipped = append(r.in.Skipped, s)
		return
	}
	o, err := objects.NewObject(r.file, v, pos)
	if err != nil {
		r.in.problem(err)
		return
	}
	if !r.opts.Lenient {
		if err := objects.CheckObject(o); err != nil {
			r.in.problem(err)
			return
		}
	}
	if o.Namespace == "" && !objects.IsClusterScoped(o.Kind) && r.opts.Namespace != "" {
		setNamespace(o, r.opts.Namespace)
	}
	r.in.take(o)
}

// setNamespace puts a namespaced object that says none in ns, as kubectl
// apply does: in the object's value too, which the policies read.
func setNamespace(o *objects.Object, ns string) {
	meta := map[string]any{}
	if m, ok := o.Value["metadata"].(map[string]any); ok {
		for k, v := range m {
			meta[k] = v
		}
	}
	meta["namespace"] = ns
	o.Value["metadata"] = meta
	o.Namespace = ns
}

// docChunk is the text of one document of a file and the line it starts on.
type docChunk struct {
	data []byte
	line int
}

// templateLine is the line (from 1) of the first "{{" in data, or 0.
func templateLine(data []byte) int {
	i := bytes.Index(data, []byte("{{"))
	if i < 0 {
		return 0
	}
	return bytes.Count(data[:i], []byte("\n")) + 1
}

// shiftLines adds n to the line of every node under doc, so that a piece of
// a file gives the file's lines.
func shiftLines(doc *yaml.Node, n int) {
	if n == 0 {
		return
	}
	seen := map[*yaml.Node]bool{}
	var walk func(*yaml.Node)
	walk = func(x *yaml.Node) {
		if x == nil || seen[x] {
			return
		}
		seen[x] = true
		x.Line += n
		for _, c := range x.Content {
			walk(c)
		}
	}
	walk(doc)
}

// expansion is what a path given turns into: what to read, the folders
// inside it not read for want of -R, and the links to folders not walked
// (each a notice).
type expansion struct {
	items  []inputItem
	unread []string
	links  []string
	errs   []error
}

// expandPath turns a path into what to read: the file itself, or a
// folder's *.yaml, *.yml and *.json files in lexical order, those of the
// folders inside it too when recursive (else those folders are unread).
// With modelFolders, a folder that directly holds config.json or
// model_index.json is a model folder, read as one model, and not searched.
//
// A link is read as what it points to, as kubectl reads a path (os.Stat):
// a link to a folder is a folder, walked once; one that leads back to a
// folder already walked (a loop, or a second way to the same folder) is
// named in links and not walked again. Folders whose names start with ".."
// are not walked: they are the kubelet's atomic-writer layout of a mounted
// ConfigMap or Secret (..data and ..<timestamp>), whose files the folder
// holds as links too.
func expandPath(path string, modelFolders, recursive bool) expansion {
	if path == "-" {
		return expansion{items: []inputItem{{path: path}}}
	}
	fi, err := os.Stat(path)
	if err != nil {
		return expansion{errs: []error{pathError(path, err)}}
	}
	if !fi.IsDir() {
		base := filepath.Base(path)
		if modelFolders && (base == configFile || base == modelIndexFile) {
			return expansion{items: []inputItem{{path: filepath.Dir(path), modelFolder: true}}}
		}
		return expansion{items: []inputItem{{path: path}}}
	}
	if modelFolders && IsModelFolder(path) {
		return expansion{items: []inputItem{{path: path, modelFolder: true}}}
	}
	w := &walker{modelFolders: modelFolders, recursive: recursive, walked: map[string]string{}, keep: isObjectFile, skip: isAtomicWriterFolder}
	w.dir(filepath.Clean(path))
	// Sort whole paths so the order is plain lexical order of what the user
	// sees ("a" before "a-b.yaml" in a folder's listing).
	sort.Slice(w.items, func(i, j int) bool { return w.items[i].path < w.items[j].path })
	return w.expansion
}

// isObjectFile says whether a folder's file holds objects: *.yaml,
// *.yml and *.json.
func isObjectFile(path string) bool {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}

// isAtomicWriterFolder says whether a folder is one of the kubelet's
// atomic-writer layout of a mounted ConfigMap or Secret (..data and
// ..<timestamp>).
func isAtomicWriterFolder(name string) bool { return strings.HasPrefix(name, "..") }

// walker walks a folder given, following links.
type walker struct {
	expansion
	modelFolders, recursive bool
	// walked maps each folder walked, as the file system has it (links
	// resolved), to the path it was walked by.
	walked map[string]string
	keep   func(path string) bool // the files to read
	skip   func(name string) bool // the folders not to walk
}

// Walk lists the files under the folder dir that keep takes, in lexical
// order of their paths, walking every folder inside it but those whose
// names skip takes, as -R walks a folder of objects: a link is read as
// what it leads to, and a link to a folder already walked (a loop, or a
// second way to it) is not walked again but said in links, one line
// each. What cannot be read is in errs, each an InputError naming it.
// The rules of --rules are found so.
func Walk(dir string, keep func(path string) bool, skip func(name string) bool) (files, links []string, errs []error) {
	w := &walker{recursive: true, walked: map[string]string{}, keep: keep, skip: skip}
	w.dir(filepath.Clean(dir))
	sort.Slice(w.items, func(i, j int) bool { return w.items[i].path < w.items[j].path })
	for _, it := range w.items {
		files = append(files, it.path)
	}
	return files, w.links, w.errs
}

func (w *walker) dir(p string) {
	target, err := filepath.EvalSymlinks(p)
	if err == nil {
		target, err = filepath.Abs(target)
	}
	if err != nil {
		w.errs = append(w.errs, pathError(p, err))
		return
	}
	if first, again := w.walked[target]; again {
		w.links = append(w.links, fmt.Sprintf("%s leads to %s, a folder already read (a link loop, or a second way to it): not walked again", p, first))
		return
	}
	w.walked[target] = p
	entries, err := os.ReadDir(p)
	if err != nil {
		w.errs = append(w.errs, pathError(p, err))
		return
	}
	for _, e := range entries {
		q := filepath.Join(p, e.Name())
		isDir := e.IsDir()
		if e.Type()&os.ModeSymlink != 0 {
			fi, err := os.Stat(q)
			if err != nil {
				w.errs = append(w.errs, pathError(q, err))
				continue
			}
			isDir = fi.IsDir()
		}
		if !isDir {
			if w.keep(q) {
				w.items = append(w.items, inputItem{path: q})
			}
			continue
		}
		switch {
		case w.skip(e.Name()):
			// A mounted ConfigMap's or Secret's own folders, for objects.
		case w.modelFolders && IsModelFolder(q):
			w.items = append(w.items, inputItem{path: q, modelFolder: true})
		case !w.recursive:
			w.unread = append(w.unread, q)
		default:
			w.dir(q)
		}
	}
}
