package input

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/ome-policy/evaluator/live"
)

// A fleet is the clusters of several kubeconfig contexts, read in one run:
// --context repeated or comma-separated, or --all-contexts. Each context
// has a client of its own (its own flags, transport and credentials:
// nothing is shared between contexts), and the contexts that reach the
// same cluster, in the same namespace, are read once.

// DefaultConcurrency is how many clusters a fleet reads at once, unless
// --concurrency says otherwise.
const DefaultConcurrency = 4

// AddFleetFlags binds --all-contexts and --concurrency, the flags of a
// command that reads a fleet (--context, bound by AddFlags, takes several
// names); --all-contexts is marked FlagAnnotation.
func (c *ClusterSource) AddFleetFlags(fs *pflag.FlagSet) {
	c.Flags.ReadsFleet()
	fs.Lookup("context").Usage = "kubeconfig context to use; several (repeated or comma-separated) read each one's cluster, in one run"
	fs.BoolVar(&c.AllContexts, "all-contexts", false, "read the cluster of every context of the kubeconfig, each with its own client (implies --cluster)")
	fs.IntVar(&c.Concurrency, "concurrency", DefaultConcurrency, "how many clusters to read at once with several contexts")
	fs.Lookup("all-contexts").Annotations = map[string][]string{FlagAnnotation: {"true"}}
}

// IsFleet says whether the flags name several clusters: --all-contexts,
// or more than one context.
func (c *ClusterSource) IsFleet() bool {
	return c.AllContexts || len(c.Flags.Contexts) > 1
}

// Member is one cluster of a fleet.
type Member struct {
	// Identity is the cluster as its first context reaches it.
	Identity live.Identity
	// Contexts are every context given that reaches it (in the same
	// namespace), in the order given; the first names the cluster.
	Contexts []string
	// Namespace is where its namespaced objects are read; "" with -A.
	Namespace string
	// Source reads this cluster alone, as a run of its first context
	// would; nil when the cluster cannot be read.
	Source *ClusterSource
	// Err says why the cluster cannot be read.
	Err error
}

// Name is the cluster's name in the output: its first context.
func (m *Member) Name() string { return m.Contexts[0] }

// Fleet connects to each context's cluster (Concurrency at once) and says
// which cluster each reaches (live.Client.Identity): one Member a cluster
// and namespace, in the order of the contexts. A context whose cluster
// cannot be reached is a Member of its own with its Err; only a kubeconfig
// that cannot be read at all (--all-contexts) is an error.
func (c *ClusterSource) Fleet() ([]*Member, error) {
	names := c.Flags.Contexts
	if c.AllContexts {
		all, err := live.Contexts(c.Flags)
		if err != nil {
			return nil, err
		}
		names = all
	}
	if c.Concurrency < 1 {
		return nil, fmt.Errorf("--concurrency: %d: give at least 1", c.Concurrency)
	}
	probed := make([]*Member, len(names))
	warnings := &sync.Mutex{}
	run(len(names), c.Concurrency, func(i int) {
		m := &Member{Contexts: []string{names[i]}, Identity: live.Identity{Context: names[i]}}
		probed[i] = m
		src := c.member(names[i], warnings)
		if err := src.connect(); err != nil {
			m.Err = err
			return
		}
		m.Identity.Server = src.client.Server()
		if !c.All {
			m.Namespace = src.client.Namespace()
		}
		id, err := src.client.Identity(src.context())
		m.Identity = id
		if err != nil {
			m.Err = err
			return
		}
		m.Source = src
	})
	var out []*Member
	seen := map[string]*Member{}
	for _, m := range probed {
		if m.Err != nil {
			out = append(out, m)
			continue
		}
		key := m.Identity.Key() + "\x00" + m.Namespace
		if first, ok := seen[key]; ok {
			first.Contexts = append(first.Contexts, m.Contexts...)
			continue
		}
		seen[key] = m
		out = append(out, m)
	}
	return out, nil
}

// member is c for the context name alone, with a client of its own, and
// the API server's warnings said with the context's name.
func (c *ClusterSource) member(name string, warnings *sync.Mutex) *ClusterSource {
	m := &ClusterSource{Flags: c.Flags.ForContext(name), Cluster: c.Cluster, All: c.All, Changed: c.Changed, Context: c.Context}
	if c.Warnings != nil {
		m.Warnings = &prefixed{w: c.Warnings, prefix: "context " + name + ": ", mu: warnings}
	}
	return m
}

// context is the context of c's requests.
func (c *ClusterSource) context() context.Context {
	if c.Context == nil {
		return context.Background()
	}
	return c.Context
}

// ReadFleet reads each member that can be read with read, concurrency at
// once, and hands each member, in order, to use with what read gave (or
// its error, or the member's Err without a read). At most concurrency
// members' reads are held at once: a read starts when an earlier member's
// use is over. use's first error ends the run (the reads under way are
// let finish, and no other starts).
func ReadFleet[T any](members []*Member, concurrency int, read func(*Member) (T, error), use func(*Member, T, error) error) error {
	type result struct {
		v   T
		err error
	}
	results := make([]chan result, len(members))
	for i := range results {
		results[i] = make(chan result, 1)
	}
	slots := make(chan struct{}, max(concurrency, 1))
	stop := make(chan struct{})
	go func() {
		for i, m := range members {
			select {
			case slots <- struct{}{}:
			case <-stop:
				return
			}
			go func() {
				var r result
				if m.Err != nil {
					r.err = m.Err
				} else {
					r.v, r.err = read(m)
				}
				results[i] <- r
			}()
		}
	}()
	defer close(stop)
	for i, m := range members {
		r := <-results[i]
		err := use(m, r.v, r.err)
		<-slots
		if err != nil {
			return err
		}
	}
	return nil
}

// run calls f(i) for i in [0, n), at most limit at once, and returns when
// every call has.
func run(n, limit int, f func(int)) {
	var wg sync.WaitGroup
	slots := make(chan struct{}, max(limit, 1))
	for i := range n {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			f(i)
		}()
	}
	wg.Wait()
}

// prefixed writes each line with a prefix, one line at a time, under mu:
// the warnings of several clusters, each named.
type prefixed struct {
	w      io.Writer
	prefix string
	mu     *sync.Mutex
}

func (p *prefixed) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out bytes.Buffer
	for _, line := range strings.SplitAfter(string(b), "\n") {
		if line != "" {
			out.WriteString(p.prefix + line)
		}
	}
	if _, err := p.w.Write(out.Bytes()); err != nil {
		return 0, err
	}
	return len(b), nil
}
