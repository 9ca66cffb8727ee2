package corpus.multifile

# The package's helpers, in a file of their own.
floor := "4.40"

old(entry) if ome.version.compare(entry.modelFramework.version, floor) < 0

describe(entry) := sprintf("%s %s, older than %s", [entry.modelFramework.name, entry.modelFramework.version, floor])
