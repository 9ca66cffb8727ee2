package runner

import (
	"github.com/ome-policy/evaluator/engine"
	"github.com/ome-policy/evaluator/policies/policyset"
)

// Parts are the engines Compile compiles.
type Parts uint8

const (
	CompileMatch   Parts = 1 << iota // a Matcher
	CompileSelect                    // a Selector
	CompileExplain                   // an Explainer
)

// Compiled is what a run evaluates with: the engines of one OME release's
// policies, or why there are none.
type Compiled struct {
	Release   string // the OME release whose rules they apply
	Matcher   engine.Matcher
	Selector  engine.Selector
	Explainer engine.Explainer
	Err       error
}

// Compile compiles, in the background, the parts for the engine named from
// the policies that set gives, so that they compile while the objects are
// read. The channel gives one Compiled.
func Compile(engineName string, set func() (*policyset.Set, error), parts Parts) <-chan Compiled {
	ready := make(chan Compiled, 1)
	go func() {
		var c Compiled
		s, err := set()
		if err == nil {
			c.Release = s.Release
			err = compileParts(&c, engineName, s, parts)
		}
		c.Err = err
		ready <- c
	}()
	return ready
}

func compileParts(c *Compiled, engineName string, set *policyset.Set, parts Parts) error {
	var err error
	if parts&CompileMatch != 0 {
		if c.Matcher, err = engine.New(engineName, set); err != nil {
			return err
		}
	}
	if parts&CompileSelect != 0 {
		if c.Selector, err = engine.NewSelector(engineName, set); err != nil {
			return err
		}
	}
	if parts&CompileExplain != 0 {
		if c.Explainer, err = engine.NewExplainer(engineName, set); err != nil {
			return err
		}
	}
	return nil
}
