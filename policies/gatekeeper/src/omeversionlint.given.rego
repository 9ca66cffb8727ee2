# What OMEVersionLint gives the lint policy as its input, from
# Gatekeeper's input: the object under review, and no source text of its
# scalars (raw: the API server has parsed them).
#
# The template's copy of lint.rego reads given.object and given.raw where
# the source reads input.object and input.raw (`evaluate gatekeeper`
# rewrites every input.x for a rule x of this package), so that the rules
# run without replacing input in a with scope, whose every function call
# costs a lookup of the function's name among the with's replacements.
package lib.ome.given

object := input.review.object

raw := {}
