package scene

import (
	"slices"
	"strings"
	"testing"

	"github.com/thelab/lab/sims/catalog"
)

// TestFormatRoundTrips: a scene written by Format reads back the same,
// quoted values and the pane's own keys included.
func TestFormatRoundTrips(t *testing.T) {
	in := Scene{Name: "a-b", Title: "T", Notes: "002", Chapter: "§3 X", Caption: []string{"one", "two"}, Focus: 1,
		Panes: []Pane{
			{Sim: "mh", Seed: 7, SeedSet: true, Speed: 30, SpeedSet: true, Set: []Setting{{"target", "banana"}}},
			{Sim: "bpe", Steps: 12, Data: "my file.csv", DataSum: strings.Repeat("ab", 32), Speed: 0, SpeedSet: true,
				Set: []Setting{{"text", "a \"quoted\" line\twith tab"}, {"data", "spiral"}, {"steps", "10"}}},
		}}
	out, err := Parse(strings.NewReader(in.Format()), "t")
	if err != nil {
		t.Fatalf("%v\n%s", err, in.Format())
	}
	if out.Format() != in.Format() || out.Name != in.Name || out.Focus != 1 || len(out.Panes) != 2 ||
		out.Panes[1].Set[0].Value != in.Panes[1].Set[0].Value || out.Panes[1].Data != "my file.csv" ||
		len(out.Panes[1].Set) != 3 || out.Panes[1].Steps != 12 ||
		!out.Panes[1].SpeedSet || out.Panes[1].Speed != 0 || out.Panes[0].Seed != 7 {
		t.Errorf("round trip:\n%s\nread back as %+v", in.Format(), out)
	}
}

// TestParseErrors: a scene file with a mistake says where and what.
func TestParseErrors(t *testing.T) {
	for _, tt := range []struct{ text, want string }{
		{"title x\npane gd", ":2: no name"},
		{"name x\n", "no pane"},
		{"name X\npane gd", `name "X"`},
		{"name x\npane gd --seed=-1", "seed"},
		{"name x\npane gd --speed=fast", "speed"},
		{"name x\npane gd --speed=3", "one of 1 2 5"},
		{"name x\npane gd --colour=red", "unknown setting --colour"},
		{"name x\npane gd lr", "name=value"},
		{"name x\npane gd lr=1 lr=2", "lr given twice"},
		{"name x\npane gd\nfocus 2", "focus 2: the scene has 1 panes"},
		{"name x\npane gd\ncolour red", `unknown field "colour"`},
		{"name x\npane gd\npane gd\npane gd\npane gd\npane gd", "5 panes"},
		{"name x\ncaption a\ncaption b\ncaption c\npane gd", "3 caption lines"},
		{"name x\npane gd text=\"open", "quote"},
		{"name x\npane gd --sha256=xyz", "64 hex digits"},
		{"name x\n" + strings.Repeat("# padding\n", MaxBytes/10+1) + "pane gd", "longer than"},
	} {
		_, err := Parse(strings.NewReader(tt.text), "f.scene")
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "f.scene") {
			t.Errorf("%q: error %v, want one with %q", tt.text, err, tt.want)
		}
	}
}

// TestCheck: a scene names sims that exist and parameters they take.
func TestCheck(t *testing.T) {
	cat := catalog.All()
	for _, tt := range []struct{ pane, want string }{
		{"nosuch", "unknown sim"},
		{"gd lrr=1", "lrr"},
		{"gd lr=-1", "lr"},
	} {
		s, err := Parse(strings.NewReader("name x\npane "+tt.pane), "f")
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Check(cat, false); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: %v, want an error naming %q", tt.pane, err, tt.want)
		}
	}
}

// TestBuiltins: every built-in scene reads, names real sims and
// parameters, says what it is, and has a claim (and every claim a scene);
// the tour is in the notes' order.
func TestBuiltins(t *testing.T) {
	cat := catalog.All()
	scenes := Builtins()
	if len(scenes) == 0 {
		t.Fatal("no built-in scenes")
	}
	seen := map[string]bool{}
	for _, s := range scenes {
		if err := s.Check(cat, true); err != nil {
			t.Error(err)
		}
		if _, ok := claims[s.Name]; !ok {
			t.Errorf("scene %s has no claim", s.Name)
		}
		seen[s.Name] = true
	}
	for name := range claims {
		if !seen[name] {
			t.Errorf("claim %s has no scene", name)
		}
	}
	if !slices.IsSortedFunc(scenes, func(a, b Scene) int { return strings.Compare(a.Notes, b.Notes) }) {
		t.Error("the tour is not in the notes' order")
	}
	// One title a section: the tour groups scenes under their chapter.
	titles := map[string]string{}
	for _, s := range scenes {
		num, _, _ := strings.Cut(s.Chapter, " ")
		key := s.Notes + " " + num
		if t0, ok := titles[key]; ok && t0 != s.Chapter {
			t.Errorf("seed %s %s is %q in one scene and %q in %s", s.Notes, num, t0, s.Chapter, s.Name)
		}
		titles[key] = s.Chapter
	}
	// Every seed file of the notes has scenes.
	for notes := range NotesTitles {
		if !slices.ContainsFunc(scenes, func(s Scene) bool { return s.Notes == notes }) {
			t.Errorf("no scene of seed %s", notes)
		}
	}
}

// TestClaims runs every built-in scene headless and checks what its
// caption claims.
func TestClaims(t *testing.T) {
	cat := catalog.All()
	for _, s := range Builtins() {
		t.Run(s.Name, func(t *testing.T) {
			t.Parallel()
			c := claims[s.Name]
			r, err := s.Run(cat, c.Steps)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Check(r); err != nil {
				t.Errorf("claim: %v\ncaption: %s", err, strings.Join(s.Caption, " "))
			}
		})
	}
}
