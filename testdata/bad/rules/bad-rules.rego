package bad

# deny is a single value here, not a set of messages.
deny := "every runtime is refused"

warn contains msg if {
	msg := ome.version.newest(input.spec.supportedModelFormats[_].modelFramework.version)
}
