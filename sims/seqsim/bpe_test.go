package seqsim

import (
	"slices"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/text"
	"github.com/thelab/lab/sims/simtest"
)

// TestBPEAbracadabra (seed 000 L889–895): three merges, ab → 256, ra →
// 257, (256, 257) → 258, leave "ZcadZ" in 5 tokens, and then no pair
// occurs twice.
func TestBPEAbracadabra(t *testing.T) {
	s := simtest.Build(t, BPE, map[string]string{"text": "abracadabra"}, 1, nil)
	if n := simtest.RunToEnd(t, s, 10); n != 3 {
		t.Errorf("%d merges, want 3", n)
	}
	b := s.(*bpeSim).b
	want := []string{"ab", "ra", "abra"}
	for i, m := range b.Merges() {
		if string(b.Piece(m.New)) != want[i] || m.Count != 2 || m.New != text.FirstMerge+i {
			t.Errorf("merge %d: %+v = %q", i+1, m, b.Piece(m.New))
		}
	}
	if !slices.Equal(b.Tokens(), []int{258, 'c', 'a', 'd', 258}) {
		t.Errorf("tokens %v", b.Tokens())
	}
	f := s.Frame()
	if simtest.Metric(t, f, "tokens") != 5 || !strings.Contains(simtest.Text(f), "abra|c|a|d|abra") {
		t.Errorf("frame %v %q", f.Metrics, f.Text)
	}
}

// TestBPEAnimals: on the built-in language every merge shortens the text
// by its count (pairs of distinct tokens never overlap), the tokens still
// spell the text, and the merges stop at the parameter.
func TestBPEAnimals(t *testing.T) {
	s := simtest.Build(t, BPE, map[string]string{"text": "animals", "merges": "60"}, 1, nil)
	g := s.(*bpeSim)
	var orig strings.Builder
	for _, id := range g.b.Tokens() {
		orig.Write(g.b.Piece(id))
	}
	if simtest.RunToEnd(t, s, 100); len(g.b.Merges()) != 60 {
		t.Errorf("%d merges, want 60", len(g.b.Merges()))
	}
	lengths := g.length.Column(0)
	for i, m := range g.b.Merges() {
		if m.Left != m.Right && lengths[i]-lengths[i+1] != float64(m.Count) {
			t.Errorf("merge %d of count %d: %g → %g tokens", i+1, m.Count, lengths[i], lengths[i+1])
		}
	}
	var got strings.Builder
	for _, id := range g.b.Tokens() {
		got.Write(g.b.Piece(id))
	}
	if got.String() != orig.String() {
		t.Error("the tokens no longer spell the text")
	}
}
