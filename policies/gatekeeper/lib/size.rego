# The ome.size.* Go builtins, in plain Rego, for Gatekeeper.
#
# OME reads a model size with Go's strconv.ParseFloat, after taking off one
# last letter T (x 10^12), B (x 10^9) or M (x 10^6); text that ParseFloat
# refuses, or whose value is out of float64 range, counts as 0
# (builtins/size.go). This module gives the same answers on every string,
# which it reaches this way:
#
#   - syntax is checked here, as ParseFloat's: "inf" or "infinity" (any
#     case, optional sign) and "nan" (any case, no sign) are the special
#     values; a decimal has digits with at most one ".", an optional
#     exponent, and "_" only between two digits ("1_000B"); a hexadecimal
#     mantissa ("0x1.8p3") needs a "p" exponent and may have "_" between
#     digits or right after "0x";
#   - the value is read by ParseFloat itself: sprintf formats a number
#     that is not an integer through it (in OPA 1.17, which Gatekeeper 3.23
#     embeds, and in this project's OPA), so the number is written the way
#     the user wrote it, with "_" left out, an exponent always present and,
#     for a hexadecimal mantissa, always a "."; the exponent is written as
#     ParseFloat saturates it (once it reaches 10000 further digits are
#     ignored), so even ParseFloat's quirks are kept;
#   - when ParseFloat's value is out of range, to_number fails on the
#     number; OPA, and Gatekeeper, which does not turn on strict builtin
#     errors, then leave the expression undefined, and the size is 0, as
#     in OME (to_number also fails on a number beyond 2^100000 written
#     with an integer part of more than about 30,000 digits, a size OME
#     might read differently);
#   - the float64 is then taken by its exact decimal expansion (sprintf
#     "%.800e"), multiplied by 10^k by moving the decimal point, and read
#     by ParseFloat once more: that is the float64 product OME computes,
#     or an infinity when the product is beyond the largest float64.
#
# NaN is neither smaller nor larger than anything; parse turns NaN and the
# infinities into 0, as the builtin does.
package lib.ome.size

# compare orders two sizes as OME does: -1, 0 or 1.
compare(a, b) := _order(_value(a), _value(b)) if {
	is_string(a)
	is_string(b)
}

# parse reads a size as a number; sizes that are not finite count as 0.
parse(s) := _finite_number(_value(s)) if is_string(s)

_finite_number(v) := to_number(sprintf("%g", [to_number(v.text)])) if v.kind == "finite"

else := 0

# --- reading a size --------------------------------------------------------

_value(s) := _scaled(_float(trim_suffix(s, "T")), 12) if endswith(s, "T")

else := _scaled(_float(trim_suffix(s, "B")), 9) if endswith(s, "B")

else := _scaled(_float(trim_suffix(s, "M")), 6) if endswith(s, "M")

else := _float(s)

_zero := {"kind": "zero"}

_digit_run := `[0-9](?:_?[0-9])*`

_hex_run := `[0-9a-fA-F](?:_?[0-9a-fA-F])*`

_decimal_syntax := concat("", [
	`^[+-]?(?:`, _digit_run, `(?:\.(?:`, _digit_run, `)?)?|\.`, _digit_run, `)`,
	`(?:[eE][+-]?`, _digit_run, `)?$`,
])

_hex_syntax := concat("", [
	`^[+-]?0[xX](?:_?`, _hex_run, `(?:\.(?:`, _hex_run, `)?)?|\.`, _hex_run, `)`,
	`[pP][+-]?`, _digit_run, `$`,
])

_infinity_syntax := `^[+-]?(?:[iI][nN][fF]|[iI][nN][fF][iI][nN][iI][tT][yY])$`

_nan_syntax := `^[nN][aA][nN]$`

# _float is strconv.ParseFloat(t, 64), or zero when it fails.
_float(t) := {"kind": "inf", "negative": startswith(t, "-")} if {
	regex.match(_infinity_syntax, t)
} else := {"kind": "nan"} if {
	regex.match(_nan_syntax, t)
} else := _read(_number_text(t)) if {
	regex.match(_decimal_syntax, t)
} else := _read(_number_text(t)) if {
	regex.match(_hex_syntax, t)
} else := _zero

# float_parses is whether strconv.ParseFloat(t, 64) reads t without an
# error (ome.go.is_float): a special value, or a number in its syntax that
# is not beyond the largest float64. to_number takes every number in range
# (see _read) and fails on the others, too large or too small; ParseFloat
# reads one too small as 0, or a subnormal, without an error. A number is
# too small when its leading digit stands below the units (_leading_order
# < 0).
float_parses(t) if regex.match(_infinity_syntax, t)

float_parses(t) if regex.match(_nan_syntax, t)

float_parses(t) if {
	regex.match(_decimal_syntax, t)
	_in_range_or_small(t)
}

float_parses(t) if {
	regex.match(_hex_syntax, t)
	_in_range_or_small(t)
}

_in_range_or_small(t) if _ = to_number(_number_text(t))

_in_range_or_small(t) if _leading_order(_number_text(t)) < 0

# _leading_order of a number as _number_text writes it: the power of the base (10,
# or 2 for a hexadecimal mantissa) of its leading digit; 0 for zero.
_leading_order(text) := _digits_order(m[1], m[2], 1) + to_number(m[3]) if {
	m := regex.find_all_string_submatch_n(`^[+-]?([0-9]*)\.?([0-9]*)e(-?[0-9]+)$`, text, 1)[0]
} else := _digits_order(m[1], m[2], 4) + to_number(m[3]) if {
	m := regex.find_all_string_submatch_n(`^[+-]?0x([0-9a-fA-F]*)\.([0-9a-fA-F]*)p(-?[0-9]+)$`, text, 1)[0]
}

# The order of the leading digit of a mantissa with integer digits i and
# fraction digits f, each digit worth bits powers of the base.
_digits_order(i, f, bits) := (count(trim_left(i, "0")) * bits) - 1 if {
	trim_left(i, "0") != ""
} else := 0 - ((count(f) - count(trim_left(f, "0"))) + 1) * bits if {
	trim_left(f, "0") != ""
} else := 0

# _number_text is a number of _decimal_syntax or _hex_syntax written as
# sprintf writes it (see above): "_" left out, an exponent always present,
# and a "." in a hexadecimal mantissa.
_number_text(t) := concat("", [m[1], m[2], "e", _exponent(m[3], m[4])]) if {
	m := regex.find_all_string_submatch_n(`^([+-]?)([0-9.]*)(?:[eE]([+-]?)([0-9]+))?$`, replace(t, "_", ""), 1)[0]
} else := concat("", [m[1], "0x", m[2], _dot(m[2]), "p", _exponent(m[3], m[4])]) if {
	m := regex.find_all_string_submatch_n(`^([+-]?)0[xX]([0-9a-fA-F.]*)[pP]([+-]?)([0-9]+)$`, replace(t, "_", ""), 1)[0]
}

# An exponent as ParseFloat reads it: once it reaches 10000, further digits
# are ignored, so only the first five significant digits count.
_exponent(sign, digits) := concat("", [_minus(sign), _or_zero(substring(trim_left(digits, "0"), 0, 5))])

_minus("-") := "-"

_minus(sign) := "" if sign != "-"

_or_zero("") := "0"

_or_zero(s) := s if s != ""

_dot(mantissa) := "" if contains(mantissa, ".")

else := "."

# _read is ParseFloat's value of a number written as text, or zero when it
# is out of range.
_read(text) := _finite(text) if _ = to_number(text)

else := _zero

# _finite takes the float64 that ParseFloat reads from text, which must be
# in range, by its exact decimal expansion: sign, exponent and 801
# significant digits (a float64 has at most 767). Numbers travel between
# functions as text: OPA compares numbers as big rationals, which is slow
# for numbers of hundreds of digits.
_finite(text) := _expansion(regex.find_all_string_submatch_n(`^(-?)([0-9])\.([0-9]+)e([+-])0*([0-9]+)$`, sprintf("%.800e", [to_number(text)]), 1)[0], text)

_expansion(m, text) := _zero if trim_left(concat("", [m[2], m[3]]), "0") == ""

else := {
	"kind": "finite",
	"negative": m[1] == "-",
	"exp": _exp_value(m[4], to_number(m[5])),
	"digits": concat("", [m[2], m[3]]),
	"text": text,
}

_exp_value("-", n) := 0 - n

_exp_value("+", n) := n

# _scaled multiplies a float64 by 10^k and rounds the product to float64,
# as OME's `f * mult` does: an infinity, NaN or zero stays what it is, and
# a product at or beyond the half-way point above the largest float64
# (2^1024 - 2^970) is an infinity. As 0.sig x 10^q, that is q > 309, or
# q == 309 and sig at least the significant digits of 2^1024 - 2^970.
_scaled(v, k) := v if v.kind != "finite"

_scaled(v, k) := _product(v.negative, trim_right(v.digits, "0"), (v.exp + 1) + k) if v.kind == "finite"

_product(negative, sig, q) := {"kind": "inf", "negative": negative} if _overflows(sig, q)

else := _finite(concat("", [_sign_text(negative), "0.", sig, "e", format_int(q, 10)]))

_overflows(_, q) if q > 309

_overflows(sig, 309) if sig >= _max_half_way

_max_half_way := "179769313486231580793728971405303415079934132710037826936173778980444968292764750946649017977587207096330286416692887910946555547851940402630657488671505820681908902000708383676273854845817711531764475730270069855571366959622842914819860834936475292719074168444365510704342711559699508093042880177904174497792"

_sign_text(true) := "-"

_sign_text(false) := ""

# --- ordering --------------------------------------------------------------

_order(a, b) := 0 if a.kind == "nan"

else := 0 if b.kind == "nan"

else := -1 if _rank(a) < _rank(b)

else := 1 if _rank(a) > _rank(b)

else := _magnitude(a, b) if {
	a.kind == "finite"
	not a.negative
} else := 0 - _magnitude(a, b) if {
	a.kind == "finite"
} else := 0

# -infinity, negative, zero, positive, +infinity.
_rank(v) := 2 if v.kind == "zero"

_rank(v) := 0 if {
	v.kind == "inf"
	v.negative
}

_rank(v) := 4 if {
	v.kind == "inf"
	not v.negative
}

_rank(v) := 1 if {
	v.kind == "finite"
	v.negative
}

_rank(v) := 3 if {
	v.kind == "finite"
	not v.negative
}

# Two finite values of the same sign: by exponent, then by digits (801 of
# them on both sides, so text order is numeric order).
_magnitude(a, b) := -1 if a.exp < b.exp

else := 1 if a.exp > b.exp

else := -1 if a.digits < b.digits

else := 1 if a.digits > b.digits

else := 0
