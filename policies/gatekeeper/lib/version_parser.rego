# How lib.ome.version reads OME versions: the Go parser of
# builtins/version.go, step by step, with its error texts.
package lib.ome.version_parser

# The largest number a version may hold, an unsigned 64-bit integer.
max_uint64 := "18446744073709551615"

# is_valid reports whether x is a string that parses as an OME version.
is_valid(x) if _split(x).problem == ""

else := false

# problem says why a string does not parse, in the Go parser's words ("a
# suffix may only follow the third number"), or "" when it parses.
problem(s) := _split(s).problem if is_string(s)

# parse gives the parsed version as the builtin does: original, v, parts,
# major, minor, patch (numbers), dev, pre and build (lists of strings).
parse(s) := {
	"original": s,
	"v": p.v,
	"parts": count(p.numbers),
	"major": to_number(_number(p.numbers, 0)),
	"minor": to_number(_number(p.numbers, 1)),
	"patch": to_number(_number(p.numbers, 2)),
	"dev": p.dev,
	"pre": p.pre,
	"build": p.build,
} if {
	p := _split(s)
	p.problem == ""
}

# has_suffix reports whether a version has a dev, pre-release or build suffix.
has_suffix(s) := p.suffixed if {
	p := _split(s)
	p.problem == ""
}

# parts is how many numbers are written: 1, 2 or 3.
parts(s) := count(p.numbers) if {
	p := _split(s)
	p.problem == ""
}

# has_v reports whether a version starts with a lowercase v.
has_v(s) := p.v if {
	p := _split(s)
	p.problem == ""
}

# equal_versions: the same three numbers (a missing one is 0) and the same dev,
# pre-release and build parts; the v and the number of parts do not count.
equal_versions(a, b) := x.same == y.same if {
	x := _split(a)
	x.problem == ""
	y := _split(b)
	y.problem == ""
}

# compare orders major, then minor, then patch, numerically: -1, 0 or 1.
# Suffixes, the v and the number of parts are not looked at.
compare(a, b) := _ordered(x.order, y.order) if {
	x := _split(a)
	x.problem == ""
	y := _split(b)
	y.problem == ""
}

_ordered(x, y) := -1 if x < y
else := 1 if x > y
else := 0

# A version's three numbers (a missing one is "0"), each as its count of
# digits and its digits: numbers have no leading zeros, so a longer one is
# larger, and two of the same length compare as text. Two such keys
# compare as the numbers do (an array compares element by element).
_order_key(nums) := [count(a), a, count(b), b, count(c), c] if {
	a := _number(nums, 0)
	b := _number(nums, 1)
	c := _number(nums, 2)
}

# Numbers have no leading zeros, so a longer one is larger, and two of the
# same length compare as text.
_compare_digits(a, b) := -1 if count(a) < count(b)
else := 1 if count(a) > count(b)
else := -1 if a < b
else := 1 if a > b
else := 0

# The i-th number as text; "0" when it is not written.
_number(nums, i) := n if n := nums[i]

else := "0"

# _split takes a string apart as the Go parser does and says what is wrong
# with it: the text after the first "+" is the build; in what is left, the
# text after the first "-" is the pre-release; what remains splits on "."
# into up to three numbers, then the dev parts.
_split(s) := p if {
	is_string(s)
	p := _well_formed(s)
} else := _keyed(_split_step_by_step(s))

# _well_formed is what _split gives for a version with nothing wrong, read
# in one match: v, then either three numbers (no leading zero, at most 19
# digits, so that each fits in 64 bits) followed by the dev parts (after
# "."), the pre-release (after "-") and the build (after "+"), each part
# non-empty, or one or two numbers alone. Anything else (a number of 20
# digits too) is left to _split_step_by_step, which also says what is wrong.
_well_formed(s) := {
	"v": m[1] == "v",
	"numbers": numbers,
	"dev": dev,
	"pre": pre,
	"build": build,
	"problem": "",
	"suffixed": [dev, pre, build] != [[], [], []],
	"order": order,
	"same": [order, dev, pre, build],
} if {
	m := regex.find_all_string_submatch_n(`^(v?)(?:((?:0|[1-9][0-9]{0,18})\.(?:0|[1-9][0-9]{0,18})\.(?:0|[1-9][0-9]{0,18}))((?:\.[^.+-]+)*)(?:-([^.+]+(?:\.[^.+]+)*))?(?:\+([^.]+(?:\.[^.]+)*))?|((?:0|[1-9][0-9]{0,18})(?:\.(?:0|[1-9][0-9]{0,18}))?))$`, s, 1)[0]
	numbers := split(concat("", [m[2], m[6]]), ".")
	dev := _parts(substring(m[3], 1, -1))
	pre := _parts(m[4])
	build := _parts(m[5])
	order := _order_key(numbers)
}

# A version that parses also carries what has_suffix, compare and
# equal_versions look at: suffixed, order, its numbers' key (_order_key),
# and same, that key with the dev, pre-release and build parts.
_keyed(p) := object.union(p, {
	"suffixed": [p.dev, p.pre, p.build] != [[], [], []],
	"order": k,
	"same": [k, p.dev, p.pre, p.build],
}) if {
	p.problem == ""
	k := _order_key(p.numbers)
} else := p

_parts("") := []

_parts(t) := split(t, ".") if t != ""

_split_step_by_step(s) := {"problem": "not a string"} if {
	not is_string(s)
} else := {"problem": "the version is empty"} if {
	s == ""
} else := {
	"v": v,
	"numbers": nums,
	"dev": dev,
	"pre": pre,
	"build": build,
	"problem": _problem(nums, dev, pre, build, count(at_minus) + count(at_plus) > 2),
} if {
	v := startswith(s, "v")
	at_plus := split(_without_v(s, v), "+")
	at_minus := split(at_plus[0], "-")
	pieces := split(at_minus[0], ".")
	nums := array.slice(pieces, 0, 3)
	dev := array.slice(pieces, 3, count(pieces))
	pre := _suffix(at_minus, "-")
	build := _suffix(at_plus, "+")
}

_without_v(s, true) := substring(s, 1, -1)

_without_v(s, false) := s

# The text after the first separator, split on "."; [] when there is none.
_suffix(pieces, _) := [] if count(pieces) < 2

_suffix(pieces, sep) := split(concat(sep, array.slice(pieces, 1, count(pieces))), ".") if count(pieces) > 1

# The parser's first complaint: a number (the first bad one), a suffix after
# fewer than three numbers, then an empty dev, pre-release or build part.
_problem(nums, dev, pre, build, suffixed) := bad[0] if {
	bad := [p |
		some i, n in nums
		p := _number_problem(i + 1, n)
		p != ""
	]
	count(bad) > 0
} else := "a suffix may only follow the third number" if {
	suffixed
	count(nums) < 3
} else := "dev suffix: a part is empty" if {
	"" in dev
} else := "pre-release suffix: a part is empty" if {
	"" in pre
} else := "build suffix: a part is empty" if {
	"" in build
} else := ""

_number_problem(i, "") := sprintf("number %d: a number is missing", [i])

_number_problem(i, n) := sprintf("number %d: %s", [i, reason]) if {
	n != ""
	reason := _digits_problem(i, n)
	reason != ""
}

_number_problem(i, n) := "" if {
	n != ""
	_digits_problem(i, n) == ""
}

_digits_problem(i, n) := sprintf("%q is not a decimal number (a suffix may only follow the third number, after \".\", \"-\" or \"+\")", [n]) if {
	not regex.match(`^[0-9]+$`, n)
	i > 1
} else := sprintf("%q is not a decimal number", [n]) if {
	not regex.match(`^[0-9]+$`, n)
} else := sprintf("%q has a leading zero", [n]) if {
	count(n) > 1
	startswith(n, "0")
} else := sprintf("%q does not fit in 64 bits", [n]) if {
	_compare_digits(n, max_uint64) > 0
} else := ""
