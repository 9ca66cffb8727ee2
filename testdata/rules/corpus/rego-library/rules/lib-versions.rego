# A library in Gatekeeper's convention: a package under lib.
package lib.corpus.versions

plain(v) if {
	ome.version.is_valid(v)
	not ome.version.has_suffix(v)
}
