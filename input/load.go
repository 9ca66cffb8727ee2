package input

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/ome-policy/evaluator/objects"
)

// LoadOptions configures Load.
type LoadOptions struct {
	Stdin   io.Reader // read for the path "-"; nil means os.Stdin
	Notices io.Writer // notices such as skipped kinds; nil discards them
	Lenient bool      // skip CheckObject, so callers can report wrong types as findings
	// ModelFolders reads a folder that directly holds config.json or
	// model_index.json as one model (spec section 8), instead of searching it.
	ModelFolders bool
}

// Load reads files, directories (recursively: *.yaml, *.yml, *.json, in
// lexical order) or "-" for standard input, and returns the recognised objects
// in input order, or the first problem. Other kinds are skipped with a
// notice each. Commands that go on past a problem use Result.Read.
func Load(paths []string, opts LoadOptions) ([]*objects.Object, error) {
	in := &Result{}
	in.Read(paths, opts.readOptions())
	return in.loaded(opts.Notices)
}

// LoadData reads objects from data as Load reads a file, name standing for
// the file in positions and messages.
func LoadData(name string, data []byte, opts LoadOptions) ([]*objects.Object, error) {
	in := &Result{}
	in.ReadData(name, data, opts.readOptions())
	return in.loaded(opts.Notices)
}

func (opts LoadOptions) readOptions() ReadOptions {
	return ReadOptions{Stdin: opts.Stdin, Lenient: opts.Lenient, ModelFolders: opts.ModelFolders, Recursive: true}
}

// loaded is what Load returns: the first problem, or the objects, with a
// notice for each skipped document.
func (in *Result) loaded(notices io.Writer) ([]*objects.Object, error) {
	if len(in.Problems) > 0 {
		return nil, in.Problems[0]
	}
	if notices != nil {
		for _, s := range in.Skipped {
			what, why := s.Kind, "not an OME object"
			switch {
			case s.HuggingFace:
				what, why = "a Hugging Face config", hfConfigNote
			case what == "":
				what = "<no kind>"
			}
			if s.Name != "" {
				what += "/" + s.Name
			}
			if s.APIVersion != "" {
				why = fmt.Sprintf("apiVersion %q, not %s", s.APIVersion, objects.APIVersion)
			}
			fmt.Fprintf(notices, "%s:%d: notice: skipping %s (%s)\n", s.File, s.Line, what, why)
		}
	}
	return in.Objects, nil
}

// inputItem is one thing to read: a YAML/JSON file, or a model folder.
type inputItem struct {
	path        string
	modelFolder bool
}

func pathError(path string, err error) error {
	var ie *objects.InputError
	if errors.As(err, &ie) {
		return ie
	}
	if errors.Is(err, fs.ErrNotExist) {
		return &objects.InputError{File: path, Msg: "no such file or directory"}
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return &objects.InputError{File: path, Msg: err.Error()}
}

// ReadInput reads a file or, for "-", stdin (nil means os.Stdin), returning
// the data and the name to show in messages.
func ReadInput(path string, stdin io.Reader) ([]byte, string, error) {
	name := path
	var r io.Reader
	if path == "-" {
		name, r = "<stdin>", stdin
		if r == nil {
			r = os.Stdin
		}
	} else {
		f, err := openInput(path)
		if err != nil {
			return nil, name, err
		}
		defer f.Close()
		r = f
	}
	data, err := io.ReadAll(io.LimitReader(r, objects.MaxInputBytes+1))
	if err != nil {
		return nil, name, pathError(name, err)
	}
	if len(data) > objects.MaxInputBytes {
		return nil, name, objects.TooLargeError(name)
	}
	return data, name, nil
}
