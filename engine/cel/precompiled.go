package cel

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	_ "embed"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/ome-policy/evaluator/engine/policyset"
	exprpb "google.golang.org/genproto/googleapis/api/expr/v1alpha1"
	"google.golang.org/protobuf/proto"
)

// Precompiled CEL: parsing and checking the CEL policies is most of what a
// short run costs (one model against one runtime), so the binary carries
// the checked expressions of its embedded policies, made by `make
// celcache` and kept current by TestPrecompiledCELIsCurrent. A policy
// document uses them when its content is exactly the one they were made
// from (whatever file or folder it was read from); any other document is
// compiled from its text.

//go:embed precompiled.gob.gz
var precompiledFile []byte

// precompiledDoc is one policy document's checked expressions, in the
// order compilePolicy compiles them: the variables, then each
// validation's expression and message expression.
type precompiledDoc struct {
	Key   string
	Exprs [][]byte // serialised CheckedExpr protos
}

var precompiledIndex = sync.OnceValue(func() map[string][][]byte {
	docs, err := readPrecompiled(precompiledFile)
	if err != nil {
		return nil // compile from the text instead
	}
	out := make(map[string][][]byte, len(docs))
	for _, d := range docs {
		out[d.Key] = d.Exprs
	}
	return out
})

// precompiledASTs returns the checked expressions of the document with key,
// or nil when there are none or any fails to load.
func precompiledASTs(key string) []*cel.Ast {
	exprs := precompiledIndex()[key]
	if exprs == nil {
		return nil
	}
	out := make([]*cel.Ast, len(exprs))
	for i, b := range exprs {
		var ce exprpb.CheckedExpr
		if err := proto.Unmarshal(b, &ce); err != nil {
			return nil
		}
		a, err := cel.CheckedExprToAstWithSource(&ce, nil)
		if err != nil {
			return nil
		}
		out[i] = a
	}
	return out
}

// policyKey identifies a policy document by everything that goes into
// compiling it.
func policyKey(doc *policyDoc) (string, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

func readPrecompiled(file []byte) ([]precompiledDoc, error) {
	zr, err := gzip.NewReader(bytes.NewReader(file))
	if err != nil {
		return nil, err
	}
	var docs []precompiledDoc
	if err := gob.NewDecoder(zr).Decode(&docs); err != nil {
		return nil, err
	}
	_, err = io.Copy(io.Discard, zr)
	return docs, err
}

// Precompile compiles every CEL policy of set and returns the file that
// precompiled.gob.gz holds for them. The output depends only on the
// policies, so it can be compared with the committed file.
func Precompile(set *policyset.Set) ([]byte, error) {
	ps, err := compileAllPolicies(set)
	if err != nil {
		return nil, err
	}
	var docs []precompiledDoc
	for _, p := range ps.byName {
		d := precompiledDoc{Key: p.key}
		for _, a := range p.checked {
			ce, err := cel.AstToCheckedExpr(a)
			if err != nil {
				return nil, fmt.Errorf("%s: policy %s: %w", p.source, p.name, err)
			}
			b, err := proto.MarshalOptions{Deterministic: true}.Marshal(ce)
			if err != nil {
				return nil, fmt.Errorf("%s: policy %s: %w", p.source, p.name, err)
			}
			d.Exprs = append(d.Exprs, b)
		}
		docs = append(docs, d)
	}
	slices.SortFunc(docs, func(a, b precompiledDoc) int { return strings.Compare(a.Key, b.Key) })
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return nil, err
	}
	if err := gob.NewEncoder(zw).Encode(docs); err != nil {
		return nil, err
	}
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
