// Package gitref reads files as a git repository has them at a commit: the
// OLD side of evaluate diff --base. It runs git itself and knows nothing of
// OME's objects; it imports nothing of the module.
package gitref

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Checkout writes path as git has it at ref into dir, and returns
// where the copy of path is (a file or a folder); found is false when
// path is not in ref. The path need not exist now (a file the change
// removes), but its repository must.
func Checkout(ref, path, dir string) (copy string, found bool, err error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", false, err
	}
	// The nearest folder that exists, with symbolic links resolved as git
	// resolves its top level.
	existing, rest := abs, ""
	for {
		if fi, err := os.Stat(existing); err == nil && fi.IsDir() {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return "", false, fmt.Errorf("%s: no folder of it exists", path)
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	if real, err := filepath.EvalSymlinks(existing); err == nil {
		existing = real
	}
	top, err := git(existing, "rev-parse", "--show-toplevel")
	if err != nil {
		return "", false, fmt.Errorf("%s is not in a git repository (%v)", path, err)
	}
	if real, err := filepath.EvalSymlinks(top); err == nil {
		top = real
	}
	if _, err := git(top, "rev-parse", "--verify", "--quiet", ref+"^{commit}"); err != nil {
		return "", false, fmt.Errorf("no commit %q in the repository at %s", ref, top)
	}
	rel, err := filepath.Rel(top, filepath.Join(existing, rest))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", false, fmt.Errorf("%s is outside the repository at %s", path, top)
	}
	rel = filepath.ToSlash(rel)
	spec := ref + ":"
	if rel != "." {
		spec += rel
	}
	if _, err := git(top, "cat-file", "-e", spec); err != nil {
		return "", false, nil
	}
	if err := gitExport(top, ref, rel, dir); err != nil {
		return "", false, err
	}
	return filepath.Join(dir, filepath.FromSlash(rel)), true, nil
}

// gitExport writes the files of the tree at rel in ref (rel itself when it
// is a file) under dir, at their paths from the repository's top: the
// blobs that git ls-tree lists, read with one git cat-file --batch. Unlike
// git archive, it leaves no file out (export-ignore); symbolic links and
// submodules are left out.
func gitExport(top, ref, rel, dir string) error {
	args := []string{"ls-tree", "-r", "-z", "--full-tree", ref}
	if rel != "." {
		args = append(args, "--", rel)
	}
	list, err := gitOutput(top, nil, args...)
	if err != nil {
		return fmt.Errorf("git ls-tree: %w", err)
	}
	var paths []string
	var ids bytes.Buffer
	for _, entry := range strings.Split(strings.TrimSuffix(string(list), "\x00"), "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 || fields[1] != "blob" || fields[0] == "120000" {
			continue
		}
		paths = append(paths, path)
		ids.WriteString(fields[2] + "\n")
	}
	if len(paths) == 0 {
		return nil
	}
	blobs, err := gitOutput(top, &ids, "cat-file", "--batch")
	if err != nil {
		return fmt.Errorf("git cat-file: %w", err)
	}
	for _, path := range paths {
		// "<id> blob <size>\n<content>\n"
		header, rest, ok := bytes.Cut(blobs, []byte("\n"))
		fields := strings.Fields(string(header))
		var size int
		if ok && len(fields) == 3 {
			_, err = fmt.Sscan(fields[2], &size)
		}
		if !ok || len(fields) != 3 || err != nil || size > len(rest) {
			return fmt.Errorf("git cat-file: cannot read %s", path)
		}
		name := filepath.FromSlash(path)
		if !filepath.IsLocal(name) {
			return fmt.Errorf("git ls-tree: a path outside the tree: %q", path)
		}
		target := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(target, rest[:size], 0o644); err != nil {
			return err
		}
		blobs = rest[min(size+1, len(rest)):]
	}
	return nil
}

// gitOutput runs git in dir with stdin and returns its output.
func gitOutput(dir string, stdin io.Reader, args ...string) ([]byte, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir, cmd.Stdin = dir, stdin
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		return nil, errors.New(gitMessage(err, errOut.String()))
	}
	return out.Bytes(), nil
}

// git runs git in dir and returns its output's first line.
func git(dir string, args ...string) (string, error) {
	out, err := gitOutput(dir, nil, args...)
	if err != nil {
		return "", err
	}
	line, _, _ := strings.Cut(string(out), "\n")
	return line, nil
}

// gitMessage is git's own message, or why git did not run.
func gitMessage(err error, stderr string) string {
	var exit *exec.ExitError
	if !errors.As(err, &exit) {
		return err.Error() // git is not installed, say
	}
	if msg := strings.TrimSpace(stderr); msg != "" {
		msg, _, _ = strings.Cut(msg, "\n")
		return msg
	}
	return err.Error()
}
