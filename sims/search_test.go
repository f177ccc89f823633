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
