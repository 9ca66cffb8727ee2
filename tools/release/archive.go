package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"io"
	"io/fs"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// archiveFile is one file of an archive: its name inside, where it is on
// disk and its mode.
type archiveFile struct {
	Name string
	Path string
	Mode int64
}

// writeTarGz writes files into a gzipped tar, each dated modTime and owned
// by root, with no name or date in the gzip header: the same files give the
// same bytes.
func writeTarGz(out string, files []archiveFile, modTime time.Time) error {
	return writeTarFile(out, files, modTime, true)
}

// writeTar writes files into a tar, as writeTarGz does, uncompressed.
func writeTar(out string, files []archiveFile, modTime time.Time) error {
	return writeTarFile(out, files, modTime, false)
}

func writeTarFile(out string, files []archiveFile, modTime time.Time, compress bool) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	var w io.WriteCloser = nopCloser{f}
	if compress {
		if w, err = gzip.NewWriterLevel(f, gzip.BestCompression); err != nil {
			f.Close()
			return err
		}
	}
	tw := tar.NewWriter(w)
	dirs := map[string]bool{}
	for _, file := range files {
		// Folders first, as tar's own extraction expects them.
		for d := path.Dir(file.Name); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	for _, d := range sortedKeys(dirs) {
		hdr := &tar.Header{Typeflag: tar.TypeDir, Name: d + "/", Mode: 0o755, ModTime: modTime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			f.Close()
			return err
		}
	}
	for _, file := range files {
		data, err := os.ReadFile(file.Path)
		if err != nil {
			f.Close()
			return err
		}
		hdr := &tar.Header{Typeflag: tar.TypeReg, Name: file.Name, Mode: file.Mode, Size: int64(len(data)), ModTime: modTime, Format: tar.FormatPAX}
		if err := tw.WriteHeader(hdr); err != nil {
			f.Close()
			return err
		}
		if _, err := tw.Write(data); err != nil {
			f.Close()
			return err
		}
	}
	if err := tw.Close(); err != nil {
		f.Close()
		return err
	}
	if err := w.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// writeZip writes files into a zip, each dated modTime.
func writeZip(out string, files []archiveFile, modTime time.Time) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(f)
	for _, file := range files {
		src, err := os.Open(file.Path)
		if err != nil {
			f.Close()
			return err
		}
		hdr := &zip.FileHeader{Name: file.Name, Method: zip.Deflate, Modified: modTime.UTC()}
		hdr.SetMode(fs.FileMode(file.Mode))
		w, err := zw.CreateHeader(hdr)
		if err == nil {
			_, err = io.Copy(w, src)
		}
		src.Close()
		if err != nil {
			f.Close()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// treeFiles lists the files under dir/root in name order, named from dir.
func treeFiles(dir, root string) ([]archiveFile, error) {
	var files []archiveFile
	err := filepath.WalkDir(filepath.Join(dir, root), func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		files = append(files, archiveFile{Name: filepath.ToSlash(rel), Path: p, Mode: 0o644})
		return nil
	})
	return files, err
}

// sortedKeys are the folders in name order: a parent, a prefix of its
// children, comes before them.
func sortedKeys(m map[string]bool) []string {
	return slices.Sorted(maps.Keys(m))
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// trimV is a version without its v, as the assets' names carry it.
func trimV(version string) string {
	return strings.TrimPrefix(version, "v")
}
