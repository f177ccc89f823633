package sims

import (
	"slices"
	"testing"
)

// noSize is the size of a test sim that holds nothing to speak of.
func noSize(Config) int64 { return 0 }

func TestSearchRanks(t *testing.T) {
	spec := func(name, title, source string) *Spec {
		return &Spec{Name: name, Title: title, Source: source, Size: noSize}
	}
	c, err := NewCatalog(
		spec("mh", "Metropolis–Hastings on a 2-D target", "seed 002"),
		spec("kernel-pca", "kernel PCA by subspace iteration", "seed 000"),
		spec("em-gmm", "EM for a Gaussian mixture, k-means start", "seed 002"),
		spec("kmeans", "Lloyd's k-means", "seed 002"),
		spec("gd", "gradient descent", "seed 001 §8"),
		spec("pregd", "gd before anything", "seed 001"),
		spec("bbvi", "black-box VI with a pregaussian", "seed 002"),
	)
	if err != nil {
		t.Fatal(err)
	}
	names := func(term string) []string {
		var out []string
		for _, m := range c.Search(term) {
			out = append(out, m.Spec.Name)
		}
		return out
	}
	for _, tt := range []struct {
		term string
		want []string
	}{
		{"kme", []string{"kmeans"}},               // no loose matches when a name holds it
		{"gd", []string{"gd", "pregd"}},           // exact, then inside a name
		{"GD", []string{"gd", "pregd"}},           // case-insensitive
		{"k-means", []string{"em-gmm", "kmeans"}}, // words of titles, catalogue order
		{"gauss", []string{"em-gmm", "bbvi"}},     // a word's start before inside a word
		{"kpca", []string{"kernel-pca"}},          // letters in order, when nothing contains it
		{"zzz", nil},                              // nothing
		{"", []string{"mh", "kernel-pca", "em-gmm", "kmeans", "gd", "pregd", "bbvi"}}, // everything, in order
	} {
		if got := names(tt.term); !slices.Equal(got, tt.want) {
			t.Errorf("Search(%q) = %v, want %v", tt.term, got, tt.want)
		}
	}
	if got := Subsequence("kernel pca", "kpca"); !slices.Equal(got, []int{0, 7, 8, 9}) {
		t.Errorf("Subsequence: %v", got)
	}
}

// TestSearchFamilies: a catalogue in families lists them in order with
// their sims, says each sim's family, and a search finds a family's sims
// by its name or words, after the sims whose own name or title holds the
// term; a family without a name or a sim is refused.
func TestSearchFamilies(t *testing.T) {
	spec := func(name, title string) *Spec {
		return &Spec{Name: name, Title: title, Source: "seed 002", Size: noSize}
	}
	sink, lp, dp, rr := spec("sinkhorn", "entropic transport"), spec("ot-lp", "the Kantorovich LP"),
		spec("dp-sgd", "clipped noisy SGD"), spec("rr", "randomized response, a private survey")
	c, err := NewFamilies(
		Family{Name: "optimal transport", About: "Wasserstein, Sinkhorn", Specs: []*Spec{sink, lp}},
		Family{Name: "trustworthy ML", About: "differential privacy", Specs: []*Spec{dp, rr}},
	)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range c.Families() {
		got = append(got, f.Name+":")
		for _, s := range f.Specs {
			got = append(got, s.Name)
		}
	}
	if want := []string{"optimal transport:", "sinkhorn", "ot-lp", "trustworthy ML:", "dp-sgd", "rr"}; !slices.Equal(got, want) {
		t.Errorf("Families: %v, want %v", got, want)
	}
	if f := c.WithFiles(nil).FamilyOf("rr"); f != "trustworthy ML" {
		t.Errorf("FamilyOf(rr) after WithFiles = %q", f)
	}
	for _, tt := range []struct {
		term string
		want []string
	}{
		{"optimal transport", []string{"sinkhorn", "ot-lp"}},
		{"transport", []string{"sinkhorn", "ot-lp"}}, // sinkhorn's title first, then the family
		{"privacy", []string{"dp-sgd", "rr"}},
		{"priv", []string{"rr", "dp-sgd"}}, // rr's title holds "private"
	} {
		var names []string
		for _, m := range c.Search(tt.term) {
			names = append(names, m.Spec.Name)
		}
		if !slices.Equal(names, tt.want) {
			t.Errorf("Search(%q) = %v, want %v", tt.term, names, tt.want)
		}
	}
	if flat, _ := NewCatalog(sink); len(flat.Families()) != 1 || flat.FamilyOf("sinkhorn") != "" {
		t.Errorf("a catalogue without families: %v, family %q", flat.Families(), flat.FamilyOf("sinkhorn"))
	}
	if _, err := NewFamilies(Family{Name: "", Specs: []*Spec{sink}}); err == nil {
		t.Error("a family without a name was accepted")
	}
	if _, err := NewFamilies(Family{Name: "empty"}); err == nil {
		t.Error("a family without a sim was accepted")
	}
}
