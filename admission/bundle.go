package admission

import (
	"bytes"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
)

// Bundle is a set of generated files: slash-separated path, relative to
// the folder they are written to, and content.
type Bundle map[string][]byte

// Paths returns the bundle's paths in order.
func (b Bundle) Paths() []string {
	out := make([]string, 0, len(b))
	for p := range b {
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// Changes says what writing b under dir would change: the files of b that
// are missing there or differ (stale, slash-separated), and the files under
// the folders owned (relative to dir) that b does not have (extra),
// relative to dir, in order.
func (b Bundle) Changes(dir string, owned []string) (stale, extra []string) {
	for _, p := range b.Paths() {
		have, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil || !bytes.Equal(have, b[p]) {
			stale = append(stale, p)
		}
	}
	for _, o := range owned {
		root := filepath.Join(dir, o)
		_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			rel, _ := filepath.Rel(dir, p)
			if _, ok := b[filepath.ToSlash(rel)]; !ok {
				extra = append(extra, rel)
			}
			return nil
		})
	}
	sort.Strings(extra)
	return stale, extra
}

// Write writes the stale files of b under dir and removes the extra ones
// (as Changes gives them).
func (b Bundle) Write(dir string, stale, extra []string) error {
	for _, p := range stale {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, b[p], 0o644); err != nil {
			return err
		}
	}
	for _, p := range extra {
		full := filepath.Join(dir, p)
		if err := os.Remove(full); err != nil {
			return err
		}
		// A sample's folder holds only its object: remove the folders the
		// removal empties, up to dir.
		for d := filepath.Dir(full); d != filepath.Clean(dir); d = filepath.Dir(d) {
			if os.Remove(d) != nil {
				break
			}
		}
	}
	return nil
}

// Sync brings dir to b (Changes, then Write) and says on w how many files
// it wrote and removed. With check it writes nothing: it says on w that
// dir is current, or which files are stale and which are not generated,
// and current is false.
func (b Bundle) Sync(dir string, owned []string, check bool, w io.Writer) (current bool, err error) {
	stale, extra := b.Changes(dir, owned)
	if !check {
		if err := b.Write(dir, stale, extra); err != nil {
			return false, err
		}
		_, err := fmt.Fprintf(w, "%s: %d files, %d written, %d removed\n", dir, len(b), len(stale), len(extra))
		return true, err
	}
	if len(stale)+len(extra) == 0 {
		_, err := fmt.Fprintf(w, "%s: %d files, all current\n", dir, len(b))
		return true, err
	}
	for _, p := range stale {
		fmt.Fprintf(w, "stale: %s\n", filepath.Join(dir, p))
	}
	for _, p := range extra {
		fmt.Fprintf(w, "not generated: %s\n", filepath.Join(dir, p))
	}
	return false, nil
}

// Add puts the files of other into b, under prefix.
func (b Bundle) Add(prefix string, other Bundle) {
	for p, data := range other {
		b[path.Join(prefix, p)] = data
	}
}

// GroupVersion is the API group and version of OME's objects.
const GroupVersion = "ome.io/v1beta1"

// OMEKinds are the kinds selection reads from data.inventory; sync.yaml
// syncs exactly these.
var OMEKinds = []string{"BaseModel", "ClusterBaseModel", "ServingRuntime", "ClusterServingRuntime"}

// Extra are the files a target's bundle holds beside OME's checks, which
// something else made for it (rules/admit, of a team's rules): Files,
// relative to the bundle's folder; Folder, the folder they fill, which
// the bundle generates whole; what the kustomization installs of them
// after OME's: Templates, then Constraints (Gatekeeper), or Resources (the
// API server, Kyverno); and what its comment says of them.
type Extra struct {
	Files       Bundle
	Folder      string
	Templates   []string
	Constraints []string
	Resources   []string
	Comment     string
}

// Extras are the Extra of each target.
type Extras struct {
	Gatekeeper, Native, Kyverno Extra
}
