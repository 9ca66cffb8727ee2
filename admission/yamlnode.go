package admission

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"
)

// Generated YAML is built as yaml.Node trees, so that key order, block
// styles and comments are the same on every run.

// Str is a string scalar, literal when it spans lines.
func Str(s string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s}
	if strings.Contains(s, "\n") {
		n.Style = yaml.LiteralStyle
	}
	return n
}

func boolean(b bool) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: fmt.Sprint(b)}
}

func integer(i int) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: fmt.Sprint(i)}
}

// Mapping builds a mapping from key, value pairs; a value may be a
// *yaml.Node, a string, a bool, an int, a []string or nil (left out).
func Mapping(kv ...any) *yaml.Node {
	n := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		v := node(kv[i+1])
		if v == nil {
			continue
		}
		n.Content = append(n.Content, Str(kv[i].(string)), v)
	}
	return n
}

// Seq is a block sequence of the items.
func Seq(items ...*yaml.Node) *yaml.Node {
	return &yaml.Node{Kind: yaml.SequenceNode, Content: items}
}

// Strs is a flow sequence of strings.
func Strs(items []string) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
	for _, s := range items {
		n.Content = append(n.Content, Str(s))
	}
	return n
}

func node(v any) *yaml.Node {
	switch x := v.(type) {
	case nil:
		return nil
	case *yaml.Node:
		return x
	case string:
		return Str(x)
	case bool:
		return boolean(x)
	case int:
		return integer(x)
	case []string:
		return Strs(x)
	}
	panic(fmt.Sprintf("admission: no YAML for %T", v))
}

// Value turns a decoded object (maps, lists, scalars) into a node with its
// keys in a fixed order: apiVersion, kind, metadata, spec first, the rest
// sorted.
func Value(v any) *yaml.Node {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		rank := map[string]int{"apiVersion": 1, "kind": 2, "metadata": 3, "spec": 4}
		sort.Slice(keys, func(i, j int) bool {
			ri, rj := rank[keys[i]], rank[keys[j]]
			if ri == 0 {
				ri = 100
			}
			if rj == 0 {
				rj = 100
			}
			if ri != rj {
				return ri < rj
			}
			return keys[i] < keys[j]
		})
		n := &yaml.Node{Kind: yaml.MappingNode}
		for _, k := range keys {
			n.Content = append(n.Content, Str(k), Value(x[k]))
		}
		return n
	case []any:
		n := &yaml.Node{Kind: yaml.SequenceNode}
		for _, e := range x {
			n.Content = append(n.Content, Value(e))
		}
		return n
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	default:
		var n yaml.Node
		if err := n.Encode(x); err != nil {
			panic(err)
		}
		return &n
	}
}

// Document writes YAML documents, each with an optional head comment.
func Document(docs ...*yaml.Node) []byte {
	var b bytes.Buffer
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	for _, d := range docs {
		if err := enc.Encode(d); err != nil {
			panic(err)
		}
	}
	if err := enc.Close(); err != nil {
		panic(err)
	}
	return b.Bytes()
}

// WithComment sets n's head comment and returns n.
func WithComment(n *yaml.Node, comment string) *yaml.Node {
	n.HeadComment = comment
	return n
}
