# The ome.go.* Go builtins, in plain Rego, for Gatekeeper: what OME's
# InferenceService webhook reads with Go's standard library
# (builtins/webhook.go).
#
# is_float is strconv.ParseFloat's verdict, which lib.ome.size states
# already (size.float_parses).
#
# parse_url follows net/url.Parse step by step: the fragment is cut off at
# the first "#"; a control character is refused; "*" is a URL; the scheme
# is what comes before the first ":" when it starts with a letter and has
# only letters, digits, "+", "-" and "." (a leading ":" is a missing
# scheme), lowercased; the query is cut off; without a leading "/", a URL
# with a scheme is opaque, and one without may not have a ":" in its first
# path segment; after "//", the authority runs to the next "/": its host,
# after the last "@", is an IP literal in brackets or a name with an
# optional port (":" and digits, from the first ":" for http and https,
# the last for other schemes), and each %-escape of the name must be
# well formed and stand for a byte that is not ASCII (but %25), and its
# ASCII characters allowed in a host; the userinfo before it has only the
# characters RFC 3986 allows (and "@"), with well-formed escapes; the path
# and the fragment need well-formed escapes. Its errors are OME's texts,
# with the bytes Go quotes.
#
# Two things differ from the builtin, neither of which OME's message
# shows: host is the host as written (OME only asks whether there is
# one), and the address in an IP literal is checked by a pattern, not by
# Go's net/netip: an address that does not parse is refused, as by OME,
# but with the words "unable to parse IP" where Go may say more.
package lib.ome.go

import data.lib.ome.size

is_float(s) if {
	is_string(s)
	size.float_parses(s)
}

parse_url(s) := _fragment(_parse(u), u, s, frag) if {
	is_string(s)
	parts := split(s, "#")
	u := parts[0]
	frag := concat("#", array.slice(parts, 1, count(parts)))
}

_fragment(r, u, raw, frag) := {"error": sprintf("parse %q: %s", [u, r.error]), "scheme": "", "host": ""} if {
	r.error != ""
} else := {"error": sprintf("parse %q: %s", [raw, e]), "scheme": "", "host": ""} if {
	e := _unescape_error(frag, "other")
	e != ""
} else := r

_ok(scheme, host) := {"error": "", "scheme": scheme, "host": host}

# The first error of errors ("" for none), else ok.
_first_error(errors, ok) := {"error": found[0]} if {
	found := [e | some e in errors; e != ""]
	count(found) > 0
} else := ok

_parse(u) := {"error": "net/url: invalid control character in URL"} if {
	regex.match(`[\x00-\x1f\x7f]`, u)
} else := _ok("", "") if {
	u == "*"
} else := {"error": "missing protocol scheme"} if {
	startswith(u, ":")
} else := _after_scheme(lower(m[1]), _query_cut(m[2])) if {
	m := regex.find_all_string_submatch_n(`^([a-zA-Z][a-zA-Z0-9+.\-]*):((?s).*)$`, u, 1)[0]
} else := _after_scheme("", _query_cut(u))

# A "?" at the end, the only one, goes; else what follows the first "?".
_query_cut(r) := trim_suffix(r, "?") if {
	endswith(r, "?")
	count(split(r, "?")) == 2
} else := split(r, "?")[0]

_after_scheme(scheme, rest) := _ok(scheme, "") if {
	not startswith(rest, "/")
	scheme != ""
} else := {"error": "first path segment in URL cannot contain colon"} if {
	not startswith(rest, "/")
	contains(split(rest, "/")[0], ":")
} else := _authority(scheme, substring(rest, 2, -1)) if {
	startswith(rest, "//")
	_has_authority(scheme, rest)
} else := _first_error([_unescape_error(rest, "other")], _ok(scheme, ""))

_has_authority(scheme, _) if scheme != ""

_has_authority(_, rest) if not startswith(rest, "///")

# The authority runs to the first "/" of what follows "//", and the host
# comes after its last "@": the host's errors first, then the userinfo's,
# then the path's.
_authority(scheme, after) := _first_error(
	[_host_error(scheme, host), _userinfo_error(userinfo), _unescape_error(path, "other")],
	_ok(scheme, host),
) if {
	authority := split(after, "/")[0]
	path := substring(after, count(authority), -1)
	[userinfo, host] := _userinfo_host(authority)
}

_userinfo_host(authority) := [m[1], m[2]] if {
	m := regex.find_all_string_submatch_n(`^((?s).*)@([^@]*)$`, authority, 1)[0]
} else := [null, authority]

_userinfo_error(null) := ""

_userinfo_error(u) := "net/url: invalid userinfo" if {
	is_string(u)
	not regex.match(`^[A-Za-z0-9\-._:~!$&'()*+,;=%@]*$`, u)
} else := _first_error([_unescape_error(user, "other"), _unescape_error(password, "other")], {"error": ""}).error if {
	is_string(u)
	parts := split(u, ":")
	user := parts[0]
	password := concat(":", array.slice(parts, 1, count(parts)))
}

_host_error(scheme, h) := "invalid IP-literal" if {
	regex.match(`^(?s).+\[`, h)
} else := _ip_literal_error(h) if {
	startswith(h, "[")
} else := sprintf("invalid port %q after host", [port]) if {
	port := _port(scheme, h)
	not regex.match(`^:[0-9]*$`, port)
} else := _unescape_error(h, "host")

# The port: from the first ":" for http and https, the last for others.
_port(scheme, h) := m[1] if {
	scheme in {"http", "https"}
	m := regex.find_all_string_submatch_n(`^[^:]*((?s):.*)$`, h, 1)[0]
} else := m[1] if {
	m := regex.find_all_string_submatch_n(`^(?s).*(:[^:]*)$`, h, 1)[0]
}

_ip_literal_error(h) := "missing ']' in host" if {
	not contains(h, "]")
} else := sprintf("invalid port %q after host", [port]) if {
	port := regex.find_all_string_submatch_n(`^(?s).*\]([^\]]*)$`, h, 1)[0][1]
	not regex.match(`^(:[0-9]*)?$`, port)
} else := e if {
	e := _unescape_error(_literal_parts(h)[0], "host")
	e != ""
} else := e if {
	e := _unescape_error(_literal_parts(h)[1], "zone")
	e != ""
} else := sprintf("invalid host: ParseAddr(%q): zone must be a non-empty string", [concat("", [_literal_parts(h)[0], "%"])]) if {
	_literal_parts(h)[1] == "%25"
} else := "invalid IP-literal" if {
	regex.match(_ipv4_only, _literal_parts(h)[0])
} else := sprintf("invalid host: ParseAddr(%q): unable to parse IP", [_literal_address(h)]) if {
	not regex.match(_ipv6, _literal_parts(h)[0])
} else := ""

# An IP literal's address and its zone (from "%25" on, "" for none).
_literal_parts(h) := [substring(a, 0, i), substring(a, i, -1)] if {
	a := _literal_address(h)
	i := indexof(a, "%25")
	i >= 0
} else := [_literal_address(h), ""]

_literal_address(h) := regex.find_all_string_submatch_n(`^\[((?s).*)\][^\]]*$`, h, 1)[0][1]

_hex4 := `[0-9a-fA-F]{1,4}`

_ipv4 := `(?:(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])\.){3}(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])`

_ipv4_only := concat("", ["^", _ipv4, "$"])

# An IPv6 address: eight groups, or six and an IPv4 address, or fewer with
# "::" standing for at least one group of zeros.
_ipv6 := concat("", ["^(?:", concat("|", array.concat(
	[concat("", ["(?:", _hex4, ":){7}", _hex4]), concat("", ["(?:", _hex4, ":){6}", _ipv4])],
	array.concat(
		[concat("", [_groups_before(k), "::", _groups_after(7 - k)]) | some k in numbers.range(0, 7)],
		[concat("", [_groups_before(k), "::(?:", _hex4, ":){0,", format_int(5 - k, 10), "}", _ipv4]) | some k in numbers.range(0, 5)],
	),
)), ")$"])

_groups_before(0) := ""

_groups_before(k) := concat("", ["(?:", _hex4, ":){", format_int(k - 1, 10), "}", _hex4]) if k > 0

_groups_after(0) := ""

_groups_after(n) := concat("", ["(?:(?:", _hex4, ":){0,", format_int(n - 1, 10), "}", _hex4, ")?"]) if n > 0

# _unescape_error is net/url's unescape: "" when s is well formed in mode
# host (a host name) or other (a path, a fragment, a user or password),
# else its error at the first offending place. Each token is a %-escape, a
# "%" that starts none (its error quotes up to three bytes from there), a
# character a host may not have, or a run of other characters.
_unescape_error(s, mode) := _token_error(tokens, i, mode) if {
	contains(s, "%")
	tokens := regex.find_all_string_submatch_n(`%[0-9a-fA-F]{2}|%|[ \\^\x60{|}]|[^% \\^\x60{|}]+`, s, -1)
	bad := [i | some i, t in tokens; _bad_token(t[0], mode)]
	i := bad[0]
} else := _token_error(tokens, i, mode) if {
	mode in {"host", "zone"}
	tokens := regex.find_all_string_submatch_n(`[ \\^\x60{|}]|[^ \\^\x60{|}]+`, s, -1)
	bad := [i | some i, t in tokens; _bad_token(t[0], mode)]
	i := bad[0]
} else := ""

_bad_token("%", _)

_bad_token(t, mode) if {
	mode in {"host", "zone"}
	regex.match(`^[ \\^\x60{|}]$`, t)
}

# In a zone, an escape must stand for a byte a host may have as it is, or
# for a space or "%".
_bad_token(t, "zone") if {
	regex.match(`^%[0-9a-fA-F]{2}$`, t)
	not t in {"%25", "%20"}
	not regex.match(`^[A-Za-z0-9\-._~!$&'()*+,;=:\[\]<>"]$`, hex.decode(substring(t, 1, 2)))
}

_bad_token(t, "host") if {
	regex.match(`^%[0-7][0-9a-fA-F]$`, t)
	t != "%25"
}

_token_error(tokens, i, _) := sprintf("invalid URL escape %q", [hex.decode(substring(hex.encode(rest), 0, 6))]) if {
	tokens[i][0] == "%"
	rest := concat("", [t[0] | some j, t in tokens; j >= i])
} else := sprintf("invalid URL escape %q", [tokens[i][0]]) if {
	startswith(tokens[i][0], "%")
} else := sprintf("invalid character %q in host name", [tokens[i][0]])
