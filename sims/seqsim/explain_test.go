package seqsim

import (
	"cmp"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/text"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// explainSim builds tinygpt's explain view with the settings set from
// seed: a few training steps of a small model (width 16, 2 heads, still 2
// layers, batches of 4), so that the tests run quickly — the law of the
// bars and the draws hold for any weights (at the default width, 32 and 4
// heads, the explain tests took 5.1 s of CPU under -race, now 1.3).
func explainSim(t *testing.T, set map[string]string, seed uint64) *gptSim {
	t.Helper()
	return simtest.Build(t, TinyGPT, explainSet(set), seed, nil).(*gptSim)
}

// explainSet is set over the explain view's test settings.
func explainSet(set map[string]string) map[string]string {
	all := map[string]string{"view": "explain", "train_steps": "3", "eval_every": "1000", "chars": "2000",
		"dim": "16", "heads": "2", "ffn": "32", "batch": "4"}
	for k, v := range set {
		all[k] = v
	}
	return all
}

// law is the distribution the explain view's bars should show, computed
// here from the model's logits at the text's last position, independently
// of the sampler: p ∝ exp(z/τ) (τ = 0: all mass on the argmax, ties to the
// smaller id), the k most probable kept (k > 0), then the fewest most
// probable whose total is at least top (top < 1), renormalised. It
// returns the law before the cut too, and the tokens by decreasing z.
func law(t *testing.T, s *gptSim, ids []int, tau float64, k int, top float64) (p, pre []float64, order []int) {
	t.Helper()
	T := min(len(ids), s.cfg.Context)
	tp := tensor.NewForwardTape()
	logits := s.g.Forward(tp, slices.Clone(ids[len(ids)-T:]), 1, T)
	if err := tp.Err(); err != nil {
		t.Fatal(err)
	}
	V := s.cfg.Vocab
	z := logits.Data[(T-1)*V : T*V]
	order = make([]int, V)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(z[b], z[a]) })
	pre = make([]float64, V)
	if tau == 0 {
		pre[order[0]] = 1
	} else {
		sum := 0.0
		for i, zi := range z {
			pre[i] = math.Exp((zi - z[order[0]]) / tau)
			sum += pre[i]
		}
		for i := range pre {
			pre[i] /= sum
		}
	}
	kept := V
	if k > 0 {
		kept = min(k, V)
	}
	if top < 1 {
		acc := 0.0
		for r, i := range order[:kept] {
			if acc += pre[i]; acc >= top {
				kept = r + 1
				break
			}
		}
	}
	if tau == 0 {
		kept = 1
	}
	p = make([]float64, V)
	tot := 0.0
	for _, i := range order[:kept] {
		tot += pre[i]
	}
	for _, i := range order[:kept] {
		p[i] = pre[i] / tot
	}
	return p, pre, order
}

// TestExplainBarsAreTheLaw: the explain view's bars are the ten most
// probable next characters of softmax(z/τ) (the model's logits at the
// text's last position, computed here), each bar its probability after
// top-k and top-p and renormalising, a character the cut removed marked
// ✂ at 0, the character drawn marked ▸ — while training and while
// drawing, at several temperatures and cuts; and the bars' labels and
// the heat map's are the characters as sims.Visible shows them.
func TestExplainBarsAreTheLaw(t *testing.T) {
	for _, c := range []struct {
		name   string
		set    map[string]string
		steps  int
		retune bool // built at the defaults and stepped, then retuned to set (sims.Tuner)
	}{
		{"training, τ 0.8", nil, 2, false},
		{"drawing, τ 0.8", nil, 6, false},
		{"τ 2, top-k 5", map[string]string{"temperature": "2", "top_k": "5"}, 5, false},
		{"τ 0.5, top-p 0.9", map[string]string{"temperature": "0.5", "top_p": "0.9"}, 5, false},
		{"τ 1.3, top-k 8, top-p 0.6", map[string]string{"temperature": "1.3", "top_k": "8", "top_p": "0.6"}, 4, false},
		{"greedy", map[string]string{"temperature": "0"}, 5, false},
		{"retuned to τ 2, top-k 5, drawing", map[string]string{"temperature": "2", "top_k": "5"}, 5, true},
		{"retuned to greedy, training", map[string]string{"temperature": "0"}, 2, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			built := c.set
			if c.retune {
				built = nil
			}
			s := explainSim(t, built, 1)
			simtest.Run(t, s, c.steps)
			v, err := sims.Resolve(TinyGPT.Params, explainSet(c.set))
			if err != nil {
				t.Fatal(err)
			}
			if c.retune {
				if err := s.Tune(v); err != nil {
					t.Fatal(err)
				}
				if got := s.lm.tr.Steps() + s.ex.steps; got != c.steps {
					t.Errorf("retuned after %d steps: %d taken", c.steps, got)
				}
			}
			tau, topK, topP := lmTemp.Get(v), lmTopK.Get(v), lmTopP.Get(v)
			p, pre, order := law(t, s, s.ex.ids, tau, topK, topP)
			f := s.Frame()
			bars, ok := f.Charts[0].(sims.BarChart)
			if !ok {
				t.Fatalf("first chart %T, want the bars", f.Charts[0])
			}
			want := slices.Clone(order[:explainBars])
			if nx := s.ex.next; nx >= 0 && !slices.Contains(want, nx) {
				want = append(want, nx)
			}
			if drawing := c.steps > 3; drawing != (s.ex.next >= 0) {
				t.Errorf("after %d steps of which 3 train: next %d", c.steps, s.ex.next)
			}
			if len(bars.Bars) != len(want) {
				t.Fatalf("%d bars, want %d", len(bars.Bars), len(want))
			}
			cut := 0
			for i, b := range bars.Bars {
				id := want[i]
				mark := " "
				switch {
				case id == s.ex.next:
					mark = "▸"
				case p[id] == 0:
					mark = "✂"
				}
				if lbl := mark + " " + sims.Visible(string(s.lm.c.vocab.Rune(id)), sims.MarkSpaces); b.Label != lbl {
					t.Errorf("bar %d: label %q, want %q", i, b.Label, lbl)
				}
				algotest.Near(t, "bar "+b.Label, b.Value, p[id], 1e-12)
				if p[id] == 0 && pre[id] > 0 {
					cut++
				}
			}
			if topK == 0 && topP == 1 && tau > 0 && cut > 0 {
				t.Errorf("%d bars cut with neither top-k nor top-p", cut)
			}
			if topK > 0 && topK < explainBars && cut < explainBars-topK {
				t.Errorf("top-k %d: %d of the top %d cut", topK, cut, explainBars)
			}
			heat := f.Charts[2].(sims.CanvasChart)
			T := len(s.ex.window)
			if got := strings.Join(heat.XIndex.Labels, ""); got != strings.ReplaceAll(s.lm.c.vocab.Decode(s.ex.ids[len(s.ex.ids)-T:]), " ", "␣") {
				t.Errorf("heat map's labels %q", got)
			}
			for h := range s.cfg.Heads {
				sum := 0.0
				for j := range T {
					sum += heat.Heat.Z[(s.cfg.Heads-1-h)*T+j]
				}
				algotest.Near(t, "a head's weights from the last position", sum, 1, 1e-12)
			}
		})
	}
}

// TestExplainAppendsTheDraw: once training is over, each step appends the
// character drawn at the step before, which is the sampler's draw for the
// seed: u from the explainer's stream (explainStream), the first token,
// in decreasing order of the law computed here from the logits, at which
// the running total passes u.
func TestExplainAppendsTheDraw(t *testing.T) {
	for _, c := range []struct {
		name string
		set  map[string]string
		seed uint64
	}{
		{"τ 0.8", nil, 1},
		{"τ 1.5, top-k 4", map[string]string{"temperature": "1.5", "top_k": "4"}, 7},
		{"τ 1, top-p 0.8, prompt a fox", map[string]string{"temperature": "1", "top_p": "0.8", "prompt": "a fox"}, 3},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := explainSim(t, c.set, c.seed)
			simtest.Run(t, s, 3)
			rng := rand.New(rand.NewPCG(c.seed, explainStream))
			v := s.ex.smp
			voc := s.lm.c.vocab
			prompt := voc.Decode(s.ex.ids)
			text := slices.Clone(s.ex.ids)
			var drawn []int
			for step := range 12 {
				// The step appends the last draw, reads the text and draws.
				if step > 0 {
					text = append(text, drawn[len(drawn)-1])
				}
				p, _, order := law(t, s, text, v.Temperature, v.TopK, v.TopP)
				u := rng.Float64()
				next := -1
				for _, i := range order {
					if p[i] <= 0 {
						break
					}
					next = i
					if u -= p[i]; u < 0 {
						break
					}
				}
				drawn = append(drawn, next)
				simtest.Run(t, s, 1)
				r := s.Result()
				if want := shown(voc, drawn[:len(drawn)-1]); r["drawn"] != want || r["next"] != shown(voc, []int{next}) {
					t.Fatalf("draw %d: drawn %q, next %q; want %q then %q", step, r["drawn"], r["next"], want, string(voc.Rune(next)))
				}
				if r["prompt"] != prompt {
					t.Fatalf("prompt %q, want %q", r["prompt"], prompt)
				}
			}
			if f := s.Frame(); f.Step != 3+12 || s.ex.drawn != 11 {
				t.Errorf("frame step %d, %d appended after 3 training steps and 12 draws", f.Step, s.ex.drawn)
			}
		})
	}
}

// TestExplainKeepsATail: a text longer than the explainer keeps loses its
// front, and the note says so with …, the drawn characters' last ones.
func TestExplainKeepsATail(t *testing.T) {
	s := explainSim(t, map[string]string{"train_steps": "0", "prompt": "the cat."}, 1)
	s.ex.keep = 20
	simtest.Run(t, s, 30)
	ids := s.ex.ids
	if len(ids) != 20 || s.ex.cut != 8+29-20 || s.ex.drawn != 29 {
		t.Fatalf("%d tokens kept, %d cut, %d drawn", len(ids), s.ex.cut, s.ex.drawn)
	}
	if p, d := s.ex.text(); p != "…" || d != "…"+shown(s.lm.c.vocab, ids) {
		t.Errorf("text %q + %q", p, d)
	}
	if tail := s.ex.tail(); tail != fmt.Sprintf("%q", "…"+shown(s.lm.c.vocab, ids)) {
		t.Errorf("the note's tail %s", tail)
	}
}

// TestExplainRefuses: the explain view refuses a prompt with a character
// outside the model's vocabulary, naming it as a pane shows it (never as
// a control character) with its position, an empty prompt, and a puzzle
// task.
func TestExplainRefuses(t *testing.T) {
	for _, c := range []struct {
		name string
		set  map[string]string
		want []string
	}{
		{"a letter outside", map[string]string{"prompt": "the dög"}, []string{"prompt", "character 6, ö,", "vocabulary", "22 characters: "}},
		{"a capital", map[string]string{"prompt": "The"}, []string{"prompt", "character 1, T,"}},
		{"a zero-width space", map[string]string{"prompt": "a\u200bcat"}, []string{"prompt", "character 2, <U+200B>,"}},
		{"an escape", map[string]string{"prompt": "a\x1b[2Jcat"}, []string{"prompt", "one line"}},
		{"a byte that is not UTF-8", map[string]string{"prompt": "cat\xff"}, []string{"prompt", "character 4, <FF>,"}},
		{"empty", map[string]string{"prompt": ""}, []string{"prompt", "empty"}},
		{"a puzzle", map[string]string{"task": "copy"}, []string{"view = explain", "task = text"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			set := map[string]string{"view": "explain"}
			for k, v := range c.set {
				set[k] = v
			}
			_, err := simtest.BuildErr(TinyGPT, set, 1, nil)
			if err == nil {
				t.Fatal("built")
			}
			msg := err.Error()
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%q does not say %q", msg, w)
				}
			}
			if strings.ContainsFunc(msg, func(r rune) bool { return r < ' ' || r == 0x7f }) {
				t.Errorf("%q holds a control character", msg)
			}
		})
	}
	// The train view ignores the prompt.
	if _, err := simtest.BuildErr(TinyGPT, map[string]string{"prompt": "Ö"}, 1, nil); err != nil {
		t.Errorf("train view with a prompt outside the vocabulary: %v", err)
	}
}

// TestExplainTail: the note quotes the text's last explainTail
// characters, the prompt's part and the drawn part apart, from … where
// either is cut.
func TestExplainTail(t *testing.T) {
	voc, err := text.VocabOf([]rune("abcdefghij ."))
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("abcdefghij", 6)
	for _, c := range []struct {
		prompt, drawn string
		cut           int
		want          string
	}{
		{"abc", "", 0, `"abc"`},
		{"abc", "d e", 0, `"abc" + "d e"`},
		{"a.c", long[:explainTail-1], 0, `"…c" + "` + long[:explainTail-1] + `"`},
		{"abc", long, 0, `"…` + long[len(long)-explainTail:] + `"`},
		{"", long[:20], 5, `"…` + long[:20] + `"`},
		{"bc", long[:20], 1, `"…bc" + "` + long[:20] + `"`},
	} {
		ids, err := voc.Encode(c.prompt + c.drawn)
		if err != nil {
			t.Fatal(err)
		}
		e := &explainer{vocab: voc, prompt: len(c.prompt) + c.cut, ids: ids, cut: c.cut}
		if got := e.tail(); got != c.want {
			t.Errorf("%q + %q, %d cut: %s, want %s", c.prompt, c.drawn, c.cut, got, c.want)
		}
	}
}

// TestExplainGreedy (seed 001 [A20]): with decode=greedy each step
// appends the argmax of the model's logits at the text's last position
// (computed here), the bars show the model's own law softmax(z), uncut;
// the text is the one sampling with top_k = 1 writes, and the same from
// another explain stream (deterministic).
func TestExplainGreedy(t *testing.T) {
	greedy := explainSim(t, map[string]string{"decode": "greedy"}, 1)
	top1 := explainSim(t, map[string]string{"top_k": "1"}, 1)
	other := explainSim(t, map[string]string{"decode": "greedy"}, 1)
	other.ex.rng = rand.New(rand.NewPCG(99, 99))
	checked := 0
	for range 9 {
		for _, s := range []*gptSim{greedy, top1, other} {
			if err := s.Step(); err != nil {
				t.Fatal(err)
			}
		}
		p, _, order := law(t, greedy, greedy.ex.ids, 1, 0, 1)
		if greedy.ex.next >= 0 {
			checked++
			if greedy.ex.next != order[0] {
				t.Errorf("greedy drew %d, the argmax is %d", greedy.ex.next, order[0])
			}
		}
		for i := range p {
			algotest.Near(t, "the greedy bars' law", greedy.ex.p[i], p[i], 1e-12)
		}
	}
	if !slices.Equal(greedy.ex.ids, top1.ex.ids) || !slices.Equal(greedy.ex.ids, other.ex.ids) || greedy.ex.drawn != 5 || checked != 6 {
		t.Errorf("%d draws checked; greedy %q (%d drawn), top-k 1 %q, another stream %q", checked, shown(greedy.lm.c.vocab, greedy.ex.ids), greedy.ex.drawn,
			shown(top1.lm.c.vocab, top1.ex.ids), shown(other.lm.c.vocab, other.ex.ids))
	}
	if txt := simtest.Text(greedy.Frame()); !strings.Contains(txt, "greedy") {
		t.Errorf("greedy notes: %q", txt)
	}
}
