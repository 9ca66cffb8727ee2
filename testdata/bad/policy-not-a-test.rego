# A policy, not a unit test: `evaluate test` refuses it.
package example.policy

deny contains msg if {
	input.kind == "ConfigMap"
	msg := "no ConfigMaps"
}
