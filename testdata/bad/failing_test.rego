# One passing and one failing Rego unit test of the match policy.
package bad.match_test

import data.ome.match

test_equal_versions_match if {
	match.version_accepted("Equal", "1.0.0", "1.0.0")
}

test_wrongly_expects_suffix_ordering if {
	match.version_accepted("GreaterThanOrEqual", "4.46.0", "4.45.0.dev0")
}
