package builtins

import "sync"

// The policies ask about the same few version strings again and again (a
// cluster repeats formats and frameworks), so parsed results are kept.
// The cache is bounded: past maxCached distinct strings, new strings are
// parsed every time rather than stored, so hostile input cannot grow it.
const maxCached = 1 << 16

type cached struct {
	v   Version
	err error
}

var (
	cacheMu sync.RWMutex
	cache   = make(map[string]cached)
)

// ParseCached is Parse with a bounded, concurrency-safe memo of results.
func ParseCached(s string) (Version, error) {
	cacheMu.RLock()
	c, ok := cache[s]
	cacheMu.RUnlock()
	if ok {
		return c.v, c.err
	}
	v, err := Parse(s)
	cacheMu.Lock()
	if len(cache) < maxCached {
		cache[s] = cached{v, err}
	}
	cacheMu.Unlock()
	return v, err
}
