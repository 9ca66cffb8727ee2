// Package corpus makes the deterministic corpora the stand-ins of the
// builtins are held to (versions, sizes, URLs, and every string the
// project's files hold), for the tests of admission and rules/admit, and
// the compiling of a stand-in's program (Program).
package corpus

import (
	"io/fs"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/cel-go/cel"
	"gopkg.in/yaml.v3"
)

// The corpus is deterministic: a fixed seed, no clock, no map order.
const corpusSeed = 20240707

// RepoStrings returns every string scalar of the YAML and JSON files under
// the given folders (relative to the repository root, repo), sorted and without
// repeats: every version and size the project's test data and samples hold,
// and much else. Files that do not parse are read as far as they go.
func RepoStrings(repo string, roots ...string) []string {
	seen := map[string]bool{}
	for _, root := range roots {
		_ = filepath.WalkDir(filepath.Join(repo, root), func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return nil
			}
			ext := filepath.Ext(p)
			if ext != ".yaml" && ext != ".yml" && ext != ".json" {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return nil
			}
			dec := yaml.NewDecoder(strings.NewReader(string(b)))
			for {
				var n yaml.Node
				if dec.Decode(&n) != nil {
					break
				}
				collectScalars(&n, seen)
			}
			return nil
		})
	}
	out := make([]string, 0, len(seen))
	for s := range seen {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

func collectScalars(n *yaml.Node, seen map[string]bool) {
	if n.Kind == yaml.ScalarNode && utf8.ValidString(n.Value) {
		seen[n.Value] = true
	}
	for _, c := range n.Content {
		collectScalars(c, seen)
	}
}

type corpusGen struct{ r *rand.Rand }

func newCorpusGen(stream uint64) *corpusGen {
	return &corpusGen{r: rand.New(rand.NewPCG(corpusSeed, stream))}
}

func (g *corpusGen) pick(list []string) string { return list[g.r.IntN(len(list))] }

func (g *corpusGen) pickInt(list ...int) int { return list[g.r.IntN(len(list))] }

var (
	versionNumbers = []string{
		"0", "1", "2", "3", "4", "9", "10", "11", "44", "45", "46", "99", "100", "2024",
		"4294967295", "4294967296", "9223372036854775807", "9223372036854775808",
		"9999999999999999999", "10000000000000000000", "18446744073709551614",
		"18446744073709551615",
	}
	suffixParts = []string{
		"dev0", "post1", "rc", "1", "0", "00", "01", "SAM-HQ-preview", "a", "b-c", "x y", " ",
		"é", "🙂", "alpha", "beta", "20240707", "-", "+", "a+b", "v", "V", "\t", "ß", "Ⅻ",
	}
	// Characters that make hostile strings: separators, digits that are
	// not ASCII, letters that fold to ASCII, controls, marks, spaces.
	hostileRunes = []rune{
		'0', '1', '9', '.', '-', '+', 'v', 'V', 'e', 'E', 'x', 'p', '_', ' ', '\t', '\n', 0,
		'\u0660', '\uff11', '\u00b2', '\u2028', '\u200d', '\u202e', '\u0301', 'ſ', 'K', '\u212a',
		'İ', 'ı', '🙂', '\ufeff', '\u00a0', '٫', '．', '－', '＋', 'ｖ',
	}
)

func (g *corpusGen) number() string {
	if g.r.IntN(3) == 0 {
		return strconv.FormatUint(g.r.Uint64N(1_000_000), 10)
	}
	return g.pick(versionNumbers)
}

func (g *corpusGen) suffix(sep string) string {
	n := 1 + g.r.IntN(3)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = g.pick(suffixParts)
	}
	return sep + strings.Join(parts, ".")
}

// validVersion builds a version that parses (or, when a suffix part holds a
// separator, one that splits differently; both are useful).
func (g *corpusGen) validVersion() string {
	var b strings.Builder
	if g.r.IntN(4) == 0 {
		b.WriteByte('v')
	}
	parts := 1 + g.r.IntN(3)
	for i := 0; i < parts; i++ {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(g.number())
	}
	if parts == 3 {
		if g.r.IntN(3) == 0 {
			b.WriteString(g.suffix("."))
		}
		if g.r.IntN(3) == 0 {
			b.WriteString(g.suffix("-"))
		}
		if g.r.IntN(3) == 0 {
			b.WriteString(g.suffix("+"))
		}
	}
	return b.String()
}

// mutate makes a near-miss: one to three edits of a character.
func (g *corpusGen) mutate(s string) string {
	rs := []rune(s)
	for n := 1 + g.r.IntN(3); n > 0; n-- {
		c := hostileRunes[g.r.IntN(len(hostileRunes))]
		switch op := g.r.IntN(6); {
		case op == 0 || len(rs) == 0:
			i := g.r.IntN(len(rs) + 1)
			rs = append(rs[:i], append([]rune{c}, rs[i:]...)...)
		case op == 1:
			i := g.r.IntN(len(rs))
			rs = append(rs[:i], rs[i+1:]...)
		case op == 2:
			rs[g.r.IntN(len(rs))] = c
		case op == 3:
			i := g.r.IntN(len(rs))
			rs = append(rs[:i], append([]rune{rs[i]}, rs[i:]...)...)
		case op == 4 && len(rs) > 1:
			i := g.r.IntN(len(rs) - 1)
			rs[i], rs[i+1] = rs[i+1], rs[i]
		default:
			rs = append([]rune{'0'}, rs...)
		}
	}
	return string(rs)
}

func (g *corpusGen) hostile() string {
	switch g.r.IntN(6) {
	case 0: // long runs of digits, dots or zeros
		return strings.Repeat(g.pick([]string{"9", "0", "1.", ".", "-", "+", "v"}), 1+g.r.IntN(60))
	case 1: // a very long version
		return strings.Repeat("1", 1+g.r.IntN(400)) + ".2.3" + g.suffix("-")
	case 2: // a version inside other text
		return g.pick([]string{" ", "V", "vv", "=", "^", "~", ">=", "latest-", "\u200b"}) + g.validVersion() + g.pick([]string{"", " ", ".", "-", "+", "\n", "*", "x"})
	}
	n := g.r.IntN(16)
	rs := make([]rune, n)
	for i := range rs {
		rs[i] = hostileRunes[g.r.IntN(len(hostileRunes))]
	}
	return string(rs)
}

// Versions returns n strings: about a third valid, a third near-valid,
// a third hostile.
func Versions(n int) []string {
	g := newCorpusGen(1)
	out := make([]string, 0, n)
	for len(out) < n {
		switch g.r.IntN(3) {
		case 0:
			out = append(out, g.validVersion())
		case 1:
			out = append(out, g.mutate(g.validVersion()))
		default:
			out = append(out, g.hostile())
		}
	}
	return out
}

// VersionPairs pairs versions that are often equal or close: the same
// numbers with and without v, with fewer parts, or another suffix.
func VersionPairs(n int, corpus []string) [][2]string {
	g := newCorpusGen(2)
	out := make([][2]string, 0, n)
	small := []string{"0", "1", "2", "10", "18446744073709551615", "18446744073709551614"}
	for len(out) < n {
		switch g.r.IntN(4) {
		case 0:
			out = append(out, [2]string{corpus[g.r.IntN(len(corpus))], corpus[g.r.IntN(len(corpus))]})
		case 1:
			a, b := g.pick(small), g.pick(small)
			c := g.pick(small)
			out = append(out, [2]string{
				g.pick([]string{"", "v"}) + a + "." + b + g.pick([]string{"", "." + c, ".0"}),
				g.pick([]string{"", "v"}) + a + "." + b + g.pick([]string{"", "." + c, ".0"}),
			})
		case 2:
			base := g.pick(small) + "." + g.pick(small) + "." + g.pick(small)
			out = append(out, [2]string{base + g.pick([]string{"", ".dev0", "-dev0", "+dev0", ".a.b"}), base + g.pick([]string{"", ".dev0", "-dev0", "+dev0", ".a.b"})})
		default:
			v := g.validVersion()
			out = append(out, [2]string{v, g.mutate(v)})
		}
	}
	return out
}

// Sizes: ParseFloat syntax, valid and not, near the float64 limits, and
// values that differ only after rounding.
var SizeSeeds = []string{
	"7B", "8B", "3.21B", "3210M", "500M", "0.5B", "1.5T", "1500B", "", "abc", "NaN", "nan", "+nan",
	"-nan", "inf", "+Inf", "-inf", "Infinity", "-INFINITY", "infin", "infinit", "infinityB", "nanT",
	"1e400", "1e-400", "-1e-400", "1.7976931348623157e308", "1.7976931348623158e308",
	"1.7976931348623159e308", "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792",
	"179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497791",
	"1.8e296T", "1.79e296T", "1.7976931348623157e296T", "1.7976931348623158e299B", "1.7976931348623157e302M",
	"4.9e-324", "5e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "2.5e-324", "1e-324",
	"0.1B", "100M", "0.3B", "300M", "1e-15T", "0.001", "1.0000000000000001", "1", "9007199254740993",
	"9007199254740992", "9007199254740994", "0x1p3", "0x1.8p3B", "0X1P-2M", "0x_1p0", "0x1_0p0", "0x1_p0",
	"0x.8p1", "0x1.p3", "0x1", "0xp1", "0x", "0x1p", "0x1p+", "0x1p1_0", "0x1p_1", "0x1e3p1",
	"0x1.fffffffffffff7p1023", "0x1.fffffffffffff8p1023", "0x1.fffffffffffffp1023", "0x1p-1074",
	"0x1p-1075", "0x1.0000000000001p-1075", "0x3p-1076", "0x1p1024", "0x.0000000000000000001p1100",
	"1_000B", "1__000", "_1", "1_", "1_.5", "1._5", "1e1_0", "1e_1", "1e+", "1e", ".", ".5", "5.", "+5",
	"-5B", "-0", "+0", "0e0", "00012", "1.5BT", "T", "B", "M", "1 B", " 1B", "1B ", "1b", "1K", "1G",
	"1e100000", "1e0000000000000000000005", "1e99999999999999999999", "1e-99999999999999999999",
	"0." + strings.Repeat("0", 10000) + "1e10005", "1" + strings.Repeat("0", 400) + "e-400",
	strings.Repeat("9", 800) + "e-800", "0x" + strings.Repeat("f", 300) + "p-1200",
	"0x1." + strings.Repeat("0", 20) + "1p0", "9007199254740993." + strings.Repeat("0", 30) + "1",
	"1e1000000", "0." + strings.Repeat("0", 20000) + "1e1000000",
}

func (g *corpusGen) digits(n int) string {
	var b strings.Builder
	for i := 0; i < n; i++ {
		b.WriteByte(byte('0' + g.r.IntN(10)))
	}
	return b.String()
}

func (g *corpusGen) size() string {
	var s string
	switch g.r.IntN(8) {
	case 0, 1: // a plain decimal
		s = g.digits(1+g.r.IntN(6)) + g.pick([]string{"", "." + g.digits(1+g.r.IntN(4))})
	case 2: // long mantissas and wide exponents
		s = g.pick([]string{"", "-", "+"}) + g.digits(g.r.IntN(25)) + g.pick([]string{"", ".", "." + g.digits(g.r.IntN(25))}) +
			g.pick([]string{"", "e", "E"}) + g.pick([]string{"", "+", "-"}) + g.pick([]string{"0", "00", ""}) + strconv.Itoa(g.r.IntN(340))
	case 3: // a float64 written exactly, or one ULP away
		f := math.Float64frombits(g.r.Uint64())
		if g.r.IntN(2) == 0 {
			f = math.Nextafter(f, math.Inf(1))
		}
		s = strconv.FormatFloat(f, g.pick([]string{"g", "e", "f"})[0], g.pickInt(-1, 17, 25), 64)
	case 4: // hexadecimal
		s = g.pick([]string{"", "-"}) + g.pick([]string{"0x", "0X", "0x_"}) + g.hex(g.r.IntN(18)) + g.pick([]string{"", ".", "." + g.hex(g.r.IntN(18))}) +
			g.pick([]string{"p", "P", ""}) + g.pick([]string{"", "+", "-"}) + strconv.Itoa(g.r.IntN(1100))
	case 5: // underscores, valid or not
		s = g.digits(1+g.r.IntN(3)) + g.pick([]string{"_", "__", ""}) + g.digits(g.r.IntN(3)) + g.pick([]string{"", ".", "._", "_."}) + g.digits(g.r.IntN(3))
	case 6: // a mutated seed
		s = g.mutate(g.pick(SizeSeeds))
	default: // noise
		n := g.r.IntN(10)
		alphabet := "0123456789.eEpPxX+-_TBMinfaINFAy "
		b := make([]byte, n)
		for i := range b {
			b[i] = alphabet[g.r.IntN(len(alphabet))]
		}
		s = string(b)
	}
	return s + g.pick([]string{"", "", "T", "B", "M"})
}

func (g *corpusGen) hex(n int) string {
	const digits = "0123456789abcdefABCDEF"
	b := make([]byte, n)
	for i := range b {
		b[i] = digits[g.r.IntN(len(digits))]
	}
	return string(b)
}

func Sizes(n int) []string {
	g := newCorpusGen(3)
	out := append([]string(nil), SizeSeeds...)
	for len(out) < n {
		out = append(out, g.size())
	}
	return out
}

// SizePairs pairs sizes that are often equal after rounding: one value
// written with T, B, M or none, and neighbours.
func SizePairs(n int, corpus []string) [][2]string {
	g := newCorpusGen(4)
	out := make([][2]string, 0, n)
	scale := map[string]float64{"T": 1e12, "B": 1e9, "M": 1e6}
	for len(out) < n {
		switch g.r.IntN(3) {
		case 0:
			out = append(out, [2]string{corpus[g.r.IntN(len(corpus))], corpus[g.r.IntN(len(corpus))]})
		case 1:
			a := corpus[g.r.IntN(len(corpus))]
			out = append(out, [2]string{a, g.mutate(a)})
		default:
			// x with suffix s against the product written out (or one ULP off).
			x := float64(g.r.IntN(100000)) / math.Pow(10, float64(g.r.IntN(8)))
			suffix := g.pick([]string{"T", "B", "M"})
			p := x * scale[suffix]
			if g.r.IntN(3) == 0 {
				p = math.Nextafter(p, math.Inf(g.pickInt(1, -1)))
			}
			out = append(out, [2]string{strconv.FormatFloat(x, 'g', -1, 64) + suffix, strconv.FormatFloat(p, 'g', g.pickInt(-1, 17, 20), 64)})
		}
	}
	return out
}

// URLs: KEDA Prometheus server addresses as users write them, and each
// branch of net/url.Parse: schemes, opaque and relative forms, userinfo,
// ports (first and last colon), IP literals, %-escapes (well formed or
// not, ASCII or not, in the host, the path, the userinfo and the
// fragment), characters a host may not have, control characters, and
// mutations of all of these.
var urlSeeds = []string{
	"http://prometheus:9090", "https://prometheus.monitoring.svc:9090/api", "prometheus:9090",
	"localhost:9090", "http//x", "http:/x", "http:x", "http://", "https://:80", "ftp://x", "HTTP://X",
	"", "*", "*#%zz", ":x", "://x", "1a:b", "a/b:c", "/a:b", "./a:b", "?a:b", "x:y/z",
	"http://x:abc", "http://x:1:2", "foo://x:1:2", "http://a:", "http://:80", "http://x:80:",
	"http://u@h", "http://u:p@h", "http://u@", "http://@h", "http://a@b@c", "http://u^@h",
	"http://u%zz@h", "http://u:p%zz@h", "http://u%4@h", "http://u%:x@h", "http://é@h",
	"http://[::1]:80/x", "http://[::1", "http://a[b", "http://[1.2.3.4]", "http://[fe80::1%25en0]",
	"http://[::1]x", "http://[zz]", "http://[::ffff:1.2.3.4]",
	"http://%41", "http://%c3%a9", "http://x%25y", "http://x%2", "http://%80x", "http://%7f",
	"http://a%", "http://a%é", "http://a%aé", "http://a b", "http://a\\b", "http://a^b",
	"http://a`b", "http://a{b", "http://a|b", "http://a}b", "http://a\"b", "http://aéb",
	"http://h/%zz", "http://h/%4", "http://h?%zz", "http://a#%zz", "http://a#", "http://a#%41",
	"http://a\x01", "http://a#\x01", "\x7fhttp://a", "http://a?b#c", "http://a??", "http://a?",
	"//a", "///a", "//a:b", "//a:1:2", "//a#%", "mailto:x@y", "https://prom.example/a%20b",
}

func URLs(n int) []string {
	g := newCorpusGen(5)
	out := append([]string(nil), urlSeeds...)
	schemes := []string{"http://", "https://", "HTTP://", "foo://", "//", "", "http:", "1x://", "a+b.c-d://"}
	users := []string{"", "u@", "u:p@", "u%41@", "u%zz@", "u^@", "@", "a@b@"}
	hosts := []string{"prometheus", "prom.example", "", "a b", "a^b", "%41", "%c3%a9", "x%25y", "[::1]", "[::1", "a[b", "é"}
	ports := []string{"", ":9090", ":", ":x", ":1:2", "::"}
	tails := []string{"", "/", "/api/v1", "/%zz", "/%4", "?q=1", "?%zz", "#f", "#%zz", "#%4", "?", "/a?b#c"}
	for len(out) < n {
		var s string
		switch g.r.IntN(3) {
		case 0:
			s = g.pick(schemes) + g.pick(users) + g.pick(hosts) + g.pick(ports) + g.pick(tails)
		case 1:
			s = g.mutate(g.pick(urlSeeds))
		default:
			alphabet := "htp:/@[]%:?#.x0123456789aAfF zZ^{|}\\-+_é"
			runes := []rune(alphabet)
			b := make([]rune, g.r.IntN(14))
			for i := range b {
				b[i] = runes[g.r.IntN(len(runes))]
			}
			s = string(b)
		}
		out = append(out, s)
	}
	return out
}

// IPLiteral says whether a URL's host may be an IP literal in brackets,
// whose address the stand-in checks by a pattern.
func IPLiteral(s string) bool { return strings.Contains(s, "[") }

// Program compiles expr in env into a program with cel-go's optimizer and
// opts, for a test that holds a stand-in to the corpus; a compile error
// fails the test.
func Program(t testing.TB, env *cel.Env, expr string, opts ...cel.ProgramOption) cel.Program {
	t.Helper()
	ast, iss := env.Compile(expr)
	if iss.Err() != nil {
		t.Fatalf("compile %.300s: %v", expr, iss.Err())
	}
	prg, err := env.Program(ast, append([]cel.ProgramOption{cel.EvalOptions(cel.OptOptimize)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	return prg
}
