package cluster

// Kyverno's admission controller, beside Gatekeeper: the second admission
// engine of the project's bundles. Up installs Kyverno's CRDs, namespace and
// configuration from its module's install manifest and starts the
// controller out of cluster, as Kyverno runs for debugging (--serverIP: its
// webhooks call 127.0.0.1 instead of a Service). It installs no policy: the
// end-to-end checks apply policies/kyverno when they test it, so that the
// Gatekeeper checks see Gatekeeper's answers alone.

import (
	"context"
	"crypto/tls"
	"net/http"
	"path/filepath"
	"strconv"
	"time"
)

// KyvernoVersion is the Kyverno whose admission controller and CRDs the
// cluster runs (the Makefile's KYVERNO_VERSION, which also builds the
// kubectl-kyverno of `make kyverno-verify`).
const KyvernoVersion = "v1.19.1"

// The namespace, names and configuration Kyverno's chart gives the
// admission controller, as its environment reads them.
var kyvernoEnv = []string{
	"KYVERNO_NAMESPACE=kyverno",
	"KYVERNO_POD_NAME=kyverno-admission-controller-local",
	"KYVERNO_DEPLOYMENT=kyverno-admission-controller",
	"KYVERNO_SVC=kyverno-svc",
	"KYVERNO_SERVICEACCOUNT_NAME=kyverno-admission-controller",
	"KYVERNO_ROLE_NAME=kyverno:admission-controller",
	"INIT_CONFIG=kyverno",
	"METRICS_CONFIG=kyverno-metrics",
}

// kyvernoManifest finds Kyverno's config/install-latest-testing.yaml (the
// manifest its chart renders: CRDs, namespace, configuration, RBAC,
// deployments) in the Go module cache, downloading the pinned module if
// need be.
func kyvernoManifest(ctx context.Context) (string, error) {
	dir, err := moduleDir(ctx, "github.com/kyverno/kyverno", KyvernoVersion)
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "config", "install-latest-testing.yaml"), nil
}

// kyvernoSetup is what the admission controller needs before it starts:
// Kyverno's CRDs, its namespace and its two ConfigMaps (what the chart
// installs but its deployments, services, webhooks and RBAC: the controller
// runs as the admin, out of cluster).
func kyvernoSetup(objs []object) (crds, config []object) {
	for _, obj := range objs {
		switch obj.GetKind() {
		case "CustomResourceDefinition", "Namespace":
			crds = append(crds, obj)
		case "ConfigMap":
			config = append(config, obj)
		}
	}
	return crds, config
}

// startKyverno applies Kyverno's configuration, starts its admission
// controller with the chart's flags but those that need a pod (metrics,
// reports, the Service), and waits until its webhook server is ready: it
// has made its CA and serving certificate (secrets in the kyverno
// namespace) and registered its webhooks, pointed at 127.0.0.1.
func (u *upRun) startKyverno(ctx context.Context) error {
	if err := u.kc.applyAll(ctx, u.kyConfig); err != nil {
		return err
	}
	u.kyverno = process{name: "kyverno", dir: u.o.Dir}
	for _, p := range []int{u.st.KyvernoWebhook, u.st.KyvernoMetrics} {
		if err := checkPortFree("kyverno", p); err != nil {
			return err
		}
	}
	addr := "127.0.0.1:" + strconv.Itoa(u.st.KyvernoWebhook)
	u.o.Log("starting Kyverno's admission controller on %s", addr)
	if err := u.kyverno.start(filepath.Join(u.o.Bin, "kyverno"), []string{
		"--kubeconfig=" + u.st.Kubeconfig,
		"--serverIP=" + addr,
		"--webhookServerHost=127.0.0.1",
		"--webhookServerPort=" + strconv.Itoa(u.st.KyvernoWebhook),
		"--caSecretName=kyverno-svc.kyverno.svc.kyverno-tls-ca",
		"--tlsSecretName=kyverno-svc.kyverno.svc.kyverno-tls-pair",
		"--backgroundServiceAccountName=system:serviceaccount:kyverno:kyverno-background-controller",
		"--reportsServiceAccountName=system:serviceaccount:kyverno:kyverno-reports-controller",
		// Metrics on 127.0.0.1 (Kyverno serves them even when it
		// exports none), and no reports: they need the reports
		// controller, which the cluster does not run.
		"--disableMetrics=true",
		"--metricsHost=127.0.0.1",
		"--metricsPort=" + strconv.Itoa(u.st.KyvernoMetrics),
		"--controllerRuntimeMetricsAddress=0",
		"--admissionReports=false",
		"--autoUpdateWebhooks=true",
		"--generateValidatingAdmissionPolicy=true",
		"--omitEvents=PolicyApplied,PolicySkipped",
		"--enablePolicyException=false",
		"--protectManagedResources=false",
		"--loggingFormat=text",
		"--disableLogColor",
		"--v=1",
	}, kyvernoEnv); err != nil {
		return err
	}
	// The readiness probe of the chart, on the webhook server (its
	// certificate is Kyverno's own CA's, which the API server gets in the
	// webhooks' caBundle; the probe only asks whether it answers).
	insecure := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // a readiness probe on 127.0.0.1
	}}
	return waitHTTP(ctx, u.kyverno, insecure, "https://"+addr+"/health/readiness")
}
