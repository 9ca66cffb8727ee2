package builtins_test

import (
	"testing"

	"github.com/ome-policy/evaluator/builtins"
)

// benchVersions is a mix of the shapes a cluster's formats and frameworks
// use, plus one that does not parse.
var benchVersions = []string{
	"1.0.0", "4.45.0.dev0", "v4.46.0", "4.46", "4.51.3-SAM-HQ-preview", "1.8.0+20240707", "01.0.0",
}

func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, _ = builtins.Parse(benchVersions[i%len(benchVersions)])
	}
}

func BenchmarkParseCached(b *testing.B) {
	for _, s := range benchVersions {
		_, _ = builtins.ParseCached(s)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_, _ = builtins.ParseCached(benchVersions[i%len(benchVersions)])
	}
}

func BenchmarkEqual(b *testing.B) {
	x, err := builtins.Parse("4.45.0.dev0+build.1")
	if err != nil {
		b.Fatal(err)
	}
	y, err := builtins.Parse("v4.45.0.dev0+build.1")
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if !builtins.Equal(x, y) {
			b.Fatal("not equal")
		}
	}
}
