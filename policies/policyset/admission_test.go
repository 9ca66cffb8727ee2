package policyset

import (
	"strings"
	"testing"
	"testing/fstest"
)

// What a release's webhook checks comes from releases.yaml, per release;
// a list without it leaves the summary to name the release alone.
func TestWebhookChecks(t *testing.T) {
	fsys := fstest.MapFS{
		"cel/match.yaml":  {Data: []byte(baseCEL)},
		"rego/match.rego": {Data: []byte(baseRego)},
		"releases.yaml": {Data: []byte(`releases:
- name: v2.0.0
  webhook: [the name, the model it names exists]
- name: v1.0.0
`)},
	}
	set, err := Load(fsys, "test")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := set.WebhookSummary(), "OME v2.0.0's admission webhook checks, in this order: the name; the model it names exists."; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	old, err := set.ForRelease("v1.0.0")
	if err != nil {
		t.Fatal(err)
	}
	if got := old.WebhookChecks(); got != nil {
		t.Errorf("v1.0.0's checks %q, want none", got)
	}
	if got, want := old.WebhookSummary(), "It refuses what OME v1.0.0's admission webhook refuses."; got != want {
		t.Errorf("summary %q, want %q", got, want)
	}
	// The embedded policies say it of every release they state.
	embedded, err := Embedded()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range embedded.Releases() {
		s, err := embedded.ForRelease(r)
		if err != nil {
			t.Fatal(err)
		}
		if checks := s.WebhookChecks(); len(checks) == 0 || !strings.HasPrefix(s.WebhookSummary(), "OME "+r+"'s admission webhook checks") {
			t.Errorf("%s: checks %q, summary %q", r, checks, s.WebhookSummary())
		}
	}
}
