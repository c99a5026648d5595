package content

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// goldenInsight is what the API publishes of an insight, with the body
// replaced by its digest to keep the golden file readable.
type goldenInsight struct {
	Slug, Title, Description, Date, DateISO, DateModifiedISO, Topic, ReadTime string
	BodySHA256                                                                string
}

// TestSampleGolden pins everything the embedded sample loads to, so that
// teaching the loader other formats cannot change what the sample publishes.
func TestSampleGolden(t *testing.T) {
	site, err := Sample()
	if err != nil {
		t.Fatalf("Sample() error: %v", err)
	}
	insights := make([]goldenInsight, len(site.Insights))
	for i, in := range site.Insights {
		sum := sha256.Sum256([]byte(in.Body))
		insights[i] = goldenInsight{in.Slug, in.Title, in.Description, in.Date, in.DateISO,
			in.DateModifiedISO, in.Topic, in.ReadTime, hex.EncodeToString(sum[:])}
	}
	got, err := json.MarshalIndent(map[string]any{
		"profile":      site.Profile,
		"companyFacts": site.CompanyFacts,
		"initiatives":  site.Initiatives,
		"signals":      site.Signals,
		"pages":        site.Pages,
		"insights":     insights,
	}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "sample.golden.json", append(got, '\n'))
}

// checkGolden compares got with testdata/name, or rewrites it with -update.
func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	file := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(file, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(got) != string(want) {
		t.Errorf("%s differs from what was loaded (go test -update rewrites it):\ngot:\n%s", file, got)
	}
}
