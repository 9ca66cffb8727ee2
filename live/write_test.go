package live

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// A write the API server refuses is one line naming the user, the verb the
// server refused (create, for an apply that would create the report), the
// resource, where, and the check; a group not served is no error.
func TestWriteErrors(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/apis/openreports.io/v1alpha1" {
			w.WriteHeader(http.StatusNotFound)
			_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "NotFound", "code": 404})
			return
		}
		verb := map[string]string{http.MethodPatch: "create", http.MethodDelete: "delete", http.MethodGet: "list"}[r.Method]
		w.WriteHeader(http.StatusForbidden)
		_ = json.NewEncoder(w).Encode(map[string]any{"kind": "Status", "apiVersion": "v1", "status": "Failure", "reason": "Forbidden", "code": 403,
			"message": `policyreports.wgpolicyk8s.io "ome-lint" is forbidden: User "system:serviceaccount:audit:evaluate" cannot ` + verb + ` resource "policyreports" in API group "wgpolicyk8s.io" in the namespace "team-a"`})
	}))
	t.Cleanup(srv.Close)
	c, err := Connect(flags(t, kubeconfig(t, srv, "")), Options{})
	require.NoError(t, err)
	ctx := context.Background()
	reports := Kind{Group: "wgpolicyk8s.io", Version: "v1alpha2", Plural: "policyreports", Kind: "PolicyReport", Namespaced: true}

	served, err := c.Served(ctx, Kind{Group: "openreports.io", Version: "v1alpha1", Plural: "reports", Kind: "Report", Namespaced: true})
	require.NoError(t, err)
	require.False(t, served)

	err = c.Apply(ctx, reports, "team-a", "ome-lint", []byte(`{}`), "evaluate", false)
	require.EqualError(t, err, `the cluster of context "dev" forbids user "system:serviceaccount:audit:evaluate" to create policyreports.wgpolicyk8s.io in namespace "team-a" (403 Forbidden): ask for the right, and check it with: kubectl auth can-i create policyreports.wgpolicyk8s.io -n team-a --context dev`)
	err = c.Delete(ctx, reports, "team-a", "ome-lint", false)
	require.ErrorContains(t, err, `to delete policyreports.wgpolicyk8s.io in namespace "team-a" (403 Forbidden)`)
	_, err = c.Names(ctx, reports, "", "app.kubernetes.io/managed-by=evaluate")
	require.ErrorContains(t, err, `to list policyreports.wgpolicyk8s.io in every namespace (403 Forbidden): ask for the right, and check it with: kubectl auth can-i list policyreports.wgpolicyk8s.io -A --context dev`)
	require.False(t, strings.Contains(err.Error(), "\n"))
}
