package input

import (
	"github.com/ome-policy/evaluator/objects"
	"io/fs"
	"os"
)

// openInput opens a file given as input: a regular file (a link is read
// as what it leads to, as kubectl reads a path) of at most objects.MaxInputBytes.
// Anything else is refused before it is opened, and so before it is
// read: a named pipe, which would hold the run until something writes to
// it, and a device such as /dev/zero, which never ends. Standard input
// ("-") is the way to read from a pipe.
func openInput(path string) (*os.File, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, pathError(path, err)
	}
	if err := checkRegular(path, fi); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, pathError(path, err)
	}
	// What was opened is what was looked at, whatever changed since.
	if fi, err = f.Stat(); err == nil {
		err = checkRegular(path, fi)
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// checkRegular is an InputError for a file that is not a regular file, or
// one larger than objects.MaxInputBytes.
func checkRegular(path string, fi fs.FileInfo) error {
	if !fi.Mode().IsRegular() {
		return &objects.InputError{File: path, Msg: "not a regular file (" + fileType(fi.Mode()) + "): give a file, or - to read standard input"}
	}
	if fi.Size() > objects.MaxInputBytes {
		return objects.TooLargeError(path)
	}
	return nil
}

// fileType names what a file that is not a regular file is.
func fileType(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "an irregular file"
}

// ReadFile reads a file given as input, as commands read an object's file
// (openInput): a regular file of at most the input size limit, else an
// InputError that names it. The rules of --rules are read so.
func ReadFile(path string) ([]byte, error) {
	data, _, err := ReadInput(path, nil)
	return data, err
}
