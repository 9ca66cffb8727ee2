package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// The container image: the static binary alone on an empty base (no
// shell, no libc: evaluate needs neither), as an OCI image layout with one
// image per Linux platform of the release, written without a daemon, a
// registry or a base image to pull. Its tar, evaluate_VERSION_oci.tar, is
// among the assets; `skopeo copy oci-archive:FILE docker://REPO:TAG` or
// `crane push` publishes it, `docker load` reads it.

const (
	imageBinary   = "/usr/local/bin/evaluate"
	mediaManifest = "application/vnd.oci.image.manifest.v1+json"
	mediaConfig   = "application/vnd.oci.image.config.v1+json"
	mediaLayer    = "application/vnd.oci.image.layer.v1.tar+gzip"
)

type descriptor struct {
	MediaType   string            `json:"mediaType"`
	Digest      string            `json:"digest"`
	Size        int64             `json:"size"`
	Platform    *imagePlatform    `json:"platform,omitempty"`
	Annotations map[string]string `json:"annotations,omitempty"`
}

type imagePlatform struct {
	Architecture string `json:"architecture"`
	OS           string `json:"os"`
}

// imageConfig is the part of an image's configuration this image sets.
type imageConfig struct {
	Created      string        `json:"created"`
	Architecture string        `json:"architecture"`
	OS           string        `json:"os"`
	Config       imageRunParam `json:"config"`
	RootFS       struct {
		Type    string   `json:"type"`
		DiffIDs []string `json:"diff_ids"`
	} `json:"rootfs"`
}

type imageRunParam struct {
	User       string            `json:"User"`
	Env        []string          `json:"Env"`
	Entrypoint []string          `json:"Entrypoint"`
	WorkingDir string            `json:"WorkingDir"`
	Labels     map[string]string `json:"Labels"`
}

// imageBuild is one platform's binary for the image.
type imageBuild struct {
	Arch, Binary string
}

// writeImage writes the OCI image layout of the Linux builds into dir.
func writeImage(dir, repo string, builds []imageBuild, src source) error {
	blobs := filepath.Join(dir, "blobs", "sha256")
	if err := os.MkdirAll(blobs, 0o755); err != nil {
		return err
	}
	put := func(data []byte) (string, int64, error) {
		sum := sha256.Sum256(data)
		h := hex.EncodeToString(sum[:])
		return "sha256:" + h, int64(len(data)), os.WriteFile(filepath.Join(blobs, h), data, 0o644)
	}
	labels := map[string]string{
		"org.opencontainers.image.title":    "evaluate",
		"org.opencontainers.image.source":   repoURL,
		"org.opencontainers.image.version":  src.Version,
		"org.opencontainers.image.revision": src.Revision,
		"org.opencontainers.image.licenses": "Apache-2.0",
		"org.opencontainers.image.created":  src.Time.Format(time.RFC3339),
	}
	var index struct {
		SchemaVersion int          `json:"schemaVersion"`
		MediaType     string       `json:"mediaType"`
		Manifests     []descriptor `json:"manifests"`
	}
	index.SchemaVersion = 2
	index.MediaType = "application/vnd.oci.image.index.v1+json"
	for _, b := range builds {
		layer, diffID, err := imageLayer(repo, b.Binary, src.Time)
		if err != nil {
			return err
		}
		layerDigest, layerSize, err := put(layer)
		if err != nil {
			return err
		}
		cfg := imageConfig{Created: src.Time.Format(time.RFC3339), Architecture: b.Arch, OS: "linux"}
		cfg.Config = imageRunParam{
			User:       "65532:65532",
			Env:        []string{"PATH=/usr/local/bin"},
			Entrypoint: []string{imageBinary},
			WorkingDir: "/work",
			Labels:     labels,
		}
		cfg.RootFS.Type = "layers"
		cfg.RootFS.DiffIDs = []string{diffID}
		cfgData, err := json.Marshal(cfg)
		if err != nil {
			return err
		}
		cfgDigest, cfgSize, err := put(cfgData)
		if err != nil {
			return err
		}
		manifest := map[string]any{
			"schemaVersion": 2,
			"mediaType":     mediaManifest,
			"config":        descriptor{MediaType: mediaConfig, Digest: cfgDigest, Size: cfgSize},
			"layers":        []descriptor{{MediaType: mediaLayer, Digest: layerDigest, Size: layerSize}},
			"annotations":   labels,
		}
		mData, err := json.Marshal(manifest)
		if err != nil {
			return err
		}
		mDigest, mSize, err := put(mData)
		if err != nil {
			return err
		}
		index.Manifests = append(index.Manifests, descriptor{
			MediaType: mediaManifest, Digest: mDigest, Size: mSize,
			Platform:    &imagePlatform{Architecture: b.Arch, OS: "linux"},
			Annotations: map[string]string{"org.opencontainers.image.ref.name": src.Version},
		})
	}
	data, err := json.MarshalIndent(index, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "index.json"), append(data, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "oci-layout"), []byte(`{"imageLayoutVersion":"1.0.0"}`+"\n"), 0o644)
}

// imageLayer is the image's one layer, gzipped, and the sha256 of its tar
// (the diff ID): the binary, its licence and notice, and a /tmp and a
// /work that the user (65532) can write.
func imageLayer(repo, binary string, modTime time.Time) ([]byte, string, error) {
	var tarBuf bytes.Buffer
	tw := tar.NewWriter(&tarBuf)
	dir := func(name string, mode int64, uid int) error {
		return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: name, Mode: mode, Uid: uid, Gid: uid, ModTime: modTime, Format: tar.FormatPAX})
	}
	file := func(name, path string, mode int64) error {
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: name, Mode: mode, Size: int64(len(data)), ModTime: modTime, Format: tar.FormatPAX}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	}
	for _, step := range []func() error{
		func() error { return dir("tmp/", 0o1777, 0) },
		func() error { return dir("usr/", 0o755, 0) },
		func() error { return dir("usr/local/", 0o755, 0) },
		func() error { return dir("usr/local/bin/", 0o755, 0) },
		func() error { return file(imageBinary[1:], binary, 0o755) },
		func() error { return dir("usr/share/", 0o755, 0) },
		func() error { return dir("usr/share/doc/", 0o755, 0) },
		func() error { return dir("usr/share/doc/evaluate/", 0o755, 0) },
		func() error { return file("usr/share/doc/evaluate/LICENSE", filepath.Join(repo, "LICENSE"), 0o644) },
		func() error { return file("usr/share/doc/evaluate/NOTICE", filepath.Join(repo, "NOTICE"), 0o644) },
		func() error { return dir("work/", 0o755, 65532) },
		tw.Close,
	} {
		if err := step(); err != nil {
			return nil, "", err
		}
	}
	diff := sha256.Sum256(tarBuf.Bytes())
	var gzBuf bytes.Buffer
	gz, err := gzip.NewWriterLevel(&gzBuf, gzip.BestCompression)
	if err != nil {
		return nil, "", err
	}
	if _, err := gz.Write(tarBuf.Bytes()); err != nil {
		return nil, "", err
	}
	if err := gz.Close(); err != nil {
		return nil, "", err
	}
	return gzBuf.Bytes(), "sha256:" + hex.EncodeToString(diff[:]), nil
}

// writeImageAsset writes the image layout as dist's evaluate_VERSION_oci.tar.
func writeImageAsset(dist, repo string, builds []imageBuild, src source) (string, error) {
	dir, err := os.MkdirTemp("", "evaluate-oci-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(dir)
	if err := writeImage(dir, repo, builds, src); err != nil {
		return "", err
	}
	var files []archiveFile
	for _, f := range []string{"oci-layout", "index.json"} {
		files = append(files, archiveFile{Name: f, Path: filepath.Join(dir, f), Mode: 0o644})
	}
	blobs, err := treeFiles(dir, "blobs")
	if err != nil {
		return "", err
	}
	files = append(files, blobs...)
	name := fmt.Sprintf("evaluate_%s_oci.tar", trimV(src.Version))
	return name, writeTar(filepath.Join(dist, name), files, src.Time)
}
