package corpus.library

import data.lib.corpus.versions
import data.util

deny contains msg if {
	input.kind in util.runtime_kinds
	some entry in input.spec.supportedModelFormats
	entry.autoSelect
	not versions.plain(entry.modelFramework.version)
	msg := sprintf("%s: an autoSelect entry pins %q, not a plain release", [util.name(input), entry.modelFramework.version])
}

warn contains msg if {
	input.kind in data.util.runtime_kinds
	not input.spec.supportedModelFormats
	msg := sprintf("%s has no entries", [data.util.name(input)])
}
