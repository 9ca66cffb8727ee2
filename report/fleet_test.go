package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ome-policy/evaluator/results"
)

// A fleet's page in the browser: the clusters listed in the header, a row
// each with its counts and why one could not be read; the cluster filter
// shows each cluster's own matrix; the page holds the first cluster's data
// as a page of one cluster does.
func TestFleetReportInBrowser(t *testing.T) {
	ex := filepath.Join("..", "testdata", "examples")
	prod := loadInput(t, "cel", []string{filepath.Join(ex, "models")}, []string{filepath.Join(ex, "runtimes")}, nil)
	dev := loadInput(t, "cel", []string{filepath.Join(ex, "models", "llama-3-2-3b-instruct.yaml")}, []string{filepath.Join(ex, "runtimes", "vllm-llama-3-2-3b-instruct.yaml")}, nil)
	clusters := []FleetCluster{
		{Cluster: results.Cluster{Name: "prod", Contexts: []string{"prod", "prod-admin"}, Server: "https://prod:6443", UID: "u-prod"}, In: prod},
		{Cluster: results.Cluster{Name: "staging", Contexts: []string{"staging"}, Server: "https://staging:6443"}, Error: "cannot reach the cluster"},
		{Cluster: results.Cluster{Name: "dev", Contexts: []string{"dev"}, Server: "https://dev:6443"}, In: dev},
	}
	var page bytes.Buffer
	sum, err := WriteFleet(&page, clusters)
	require.NoError(t, err)
	require.Equal(t, len(prod.Models)+len(dev.Models), sum.Models)
	docs, err := Documents(page.Bytes())
	require.NoError(t, err)
	require.Contains(t, string(docs["models"]), "llama-3-2-3b-instruct")

	path := filepath.Join(t.TempDir(), "fleet.html")
	require.NoError(t, os.WriteFile(path, page.Bytes(), 0o644))
	b := newBrowser(t)
	url, _ := b.open(t, path)
	rows := evalJS[[][]string](t, b, `[...document.querySelectorAll('#clusters tbody tr')].map((r) => [...r.cells].map((c) => c.textContent))`)
	require.Len(t, rows, 3)
	require.Equal(t, []string{"prod", "prod, prod-admin", "https://prod:6443", "u-prod"}, rows[0][:4])
	require.Equal(t, "cannot reach the cluster", rows[1][9])
	require.Equal(t, "1", rows[2][4]) // dev's one model
	shape := evalJS[map[string]any](t, b, `omeReport.cells()`)
	require.EqualValues(t, len(prod.Models), shape["M"])
	require.EqualValues(t, len(prod.Runtimes), shape["R"])
	require.True(t, evalJS[bool](t, b, `document.querySelector('#cluster option[value="1"]').disabled`))

	// The filter shows dev's matrix, and a cell of it explains its pair.
	b.eval(t, `(() => { const s = document.getElementById('cluster'); s.value = '2'; s.dispatchEvent(new Event('change')); })()`, nil)
	shape = evalJS[map[string]any](t, b, `omeReport.cells()`)
	require.EqualValues(t, 1, shape["M"])
	require.EqualValues(t, 1, shape["R"])
	require.Equal(t, "dev", evalJS[string](t, b, `document.body.dataset.cluster`))
	require.Equal(t, "dev", evalJS[string](t, b, `document.querySelector('#clusters tr.current td').textContent`))
	b.eval(t, `document.querySelector('#matrix-body td.c').click()`, nil)
	b.waitDetail(t)
	require.Contains(t, evalJS[string](t, b, `document.getElementById('detail').textContent`), "vllm-llama-3-2-3b-instruct")
	b.clean(t, url)
}
