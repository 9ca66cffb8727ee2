# A library in conftest's convention: any package without deny, warn or
# violation, imported by the rules.
package util

runtime_kinds := {"ServingRuntime", "ClusterServingRuntime"}

name(o) := sprintf("%s/%s", [o.metadata.namespace, o.metadata.name]) if o.metadata.namespace

else := o.metadata.name
