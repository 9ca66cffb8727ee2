package builtins

import (
	"errors"
	"net/url"
	"strconv"
)

// What OME's InferenceService webhook reads with Go's standard library
// before it looks at any model or runtime (spec section 10): a KEDA
// scaling threshold is a number when strconv.ParseFloat takes it, a
// Prometheus server address is what net/url.Parse makes of it, and its
// messages quote values as strconv.Quote (fmt's %q) does. The policies
// hold the checks, their order and their messages; these give the verdicts
// of those functions, which no policy language states exactly.

// IsFloat reports whether OME takes s as a number: strconv.ParseFloat(s,
// 64) without an error. Go's float syntax (decimal or hexadecimal with a
// p exponent, "_" between digits, Inf, Infinity and NaN in any case) is a
// number; a value beyond the largest float64 is not.
func IsFloat(s string) bool {
	_, err := strconv.ParseFloat(s, 64)
	return err == nil
}

// URL is what OME reads of a URL: the error net/url.Parse gives (its text,
// as fmt's %v prints it), or else the URL's scheme and host.
type URL struct {
	Error  string
	Scheme string
	Host   string
}

// ParseURL parses s as net/url.Parse does.
func ParseURL(s string) URL {
	u, err := url.Parse(s)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			return URL{Error: ue.Error()}
		}
		return URL{Error: err.Error()}
	}
	return URL{Scheme: u.Scheme, Host: u.Host}
}

// Quote is s as fmt's %q prints a string: strconv.Quote.
func Quote(s string) string { return strconv.Quote(s) }
