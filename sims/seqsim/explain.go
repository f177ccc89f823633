package seqsim

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/thelab/lab/algo/seq"
	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/text"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// gptViewKind is what tinygpt's pane shows: the training story, the
// model explained token by token (Transformer Explainer's picture), or
// one forward pass opened up (block.go).
type gptViewKind string

func (k gptViewKind) String() string { return string(k) }

const (
	gptTrain   gptViewKind = "train"
	gptExplain gptViewKind = "explain"
	gptBlock   gptViewKind = "block"
)

// gptDecodeKind is how the explain view picks the next character.
type gptDecodeKind string

func (k gptDecodeKind) String() string { return string(k) }

const (
	decodeSample gptDecodeKind = "sample"
	decodeGreedy gptDecodeKind = "greedy"
)

var (
	gptView = param.Choice("view", []gptViewKind{gptTrain, gptExplain, gptBlock}, gptTrain,
		"train: the loss against the k-gram and entropy-rate lines, samples, the last sample's attention maps; "+
			"explain (task=text), as Transformer Explainer: the bars are the next character's law after temperature, "+
			"top-k and top-p, renormalised (the ten likeliest; ✂ marks those the cut removes, ▸ the draw), the heat map "+
			"each head's attention from the last character over the window, labelled by character (the last layer); "+
			"the model trains for train_steps steps, then each step appends the ▸ character and the pictures follow the "+
			"new last character (a headless run needs more steps than train_steps; to compare temperatures, open two "+
			"panes with one --seed: they train alike); "+
			"block (task=text): one forward pass of the model as it trains, over the first n_ctx characters of the held-out "+
			"text, opened up: the residual stream's norm ‖h‖ at each position after the embeddings and after each sublayer "+
			"(heat map), the last LayerNorm's input mean and variance per position beside its output's, 0 and 1 (before its "+
			"gain and bias), what each attention and feed-forward sublayer adds (‖Δ‖/‖h‖), and the fraction of ReLU units on")
	gptPrompt = param.Text("prompt", "the dogs that see a cat",
		"view=explain: the text the model continues, one character a step (spaces at either end are trimmed, as in every "+
			"parameter); every character must be in the model's vocabulary, which for the built-in language is its "+
			"lower-case letters, the space and the full stop")
	gptDecode = param.Choice("decode", []gptDecodeKind{decodeSample, decodeGreedy}, decodeSample,
		"view=explain: sample: draw the next character from the law after temperature, top-k and top-p; greedy: append "+
			"the most probable one, the argmax of softmax(z) (seed 001 [A20]; the same text as top_k 1, and no randomness)")
	gptAfter = param.Int("train_steps", 300,
		"view=explain: training steps before the first character is drawn; until then the bars follow the prompt's next "+
			"character as the model learns (0: draw from the untrained model)").Range(0, 100_000)
)

const (
	// explainBars is the most probable characters the bars show (and
	// the one drawn, when it is not among them).
	explainBars = 10
	// explainKeep bounds the text an explainer keeps (a run of hours
	// appends one character a step): the prompt and the last characters
	// drawn (a prompt of param.MaxText bytes whole); the window the model
	// reads is the last n_ctx of them.
	explainKeep = 2 * param.MaxText
	// explainTail is the most characters of the text the note quotes
	// (the line then fits in 80 columns).
	explainTail = 48
	// explainLeft is the characters before each head's strongest key
	// that the note shows as its context.
	explainLeft = 4
)

// explainBytes is what an explainer holds beyond its model and generator:
// its text, logits, laws and attention maps (T·(H·(T+1)−1) values) and
// the labels of one window.
func explainBytes(V, T, H int) int64 {
	return tensor.Alloc(explainKeep+1) + 3*tensor.Alloc(V) + tensor.Alloc(T*(H*(T+1)-1)) + tensor.Alloc(T) + int64(T)*16
}

// explainer is tinygpt's explain view: the prompt and the characters drawn
// after it, and the model's last pass over them — each head's attention
// from the last character, and the law of the next character that the
// sampler draws from (p ∝ exp(z/τ), then top-k and top-p, renormalised),
// with the draw that the next step appends.
type explainer struct {
	g      *seq.GPT
	gen    *seq.Generator
	vocab  *text.Vocab
	smp    *seq.Sampler // the sim's sampler: temperature, top-k, top-p
	plain  *seq.Sampler // temperature only: the law before the cut
	model  *seq.Sampler // τ = 1: the model's own law softmax(z), which greedy decoding shows
	argmax *seq.Sampler // τ = 0: greedy decoding ([A20])
	greedy bool         // decode=greedy: the draw is the argmax, the bars the model's law
	rng    *rand.Rand
	after  int // training steps before the first draw
	prompt int // the prompt's length in tokens
	ids    []int
	keep   int // the most tokens ids keeps (explainKeep)
	cut    int // tokens dropped from its front
	steps  int // steps since training ended (each draws a character)
	drawn  int // characters appended so far: every draw but the pending next
	next   int // the token drawn for the last position, which the next step appends; -1 before the first draw
	z      []float64
	pre, p []float64 // softmax(z/τ); the sampler's law
	kept   int
	window []int     // the tokens of the last pass
	maps   []float64 // its last layer's weights, heads side by side (headMaps)
}

// explainStream is the random stream of the explainer's draws ("explain").
const explainStream = 0x65_7870_6c61_696e

// newExplainer encodes the prompt in the corpus's vocabulary (refusing,
// by name, a character outside it) and reads it once, so that the first
// Frame shows the untrained model's pictures.
func newExplainer(cfg sims.Config, c *corpus, g *seq.GPT, gen *seq.Generator, smp *seq.Sampler) (*explainer, error) {
	v := cfg.Values
	ids, err := encodePrompt(gptPrompt.Get(v), c)
	if err != nil {
		return nil, err
	}
	ids = append(make([]int, 0, explainKeep+1), ids...) // a step appends without allocating
	plain, err := seq.NewSampler(smp.Temperature, 0, 1)
	if err != nil {
		return nil, err
	}
	model, _ := seq.NewSampler(1, 0, 1)
	argmax, _ := seq.NewSampler(0, 0, 1)
	V := c.vocab.Size()
	e := &explainer{g: g, gen: gen, vocab: c.vocab, smp: smp, plain: plain, model: model, argmax: argmax,
		greedy: gptDecode.Get(v) == decodeGreedy, rng: rand.New(rand.NewPCG(cfg.Seed, explainStream)),
		after: gptAfter.Get(v), prompt: len(ids), ids: ids, keep: explainKeep, next: -1,
		z: make([]float64, V), pre: make([]float64, V), p: make([]float64, V)}
	return e, e.read()
}

// encodePrompt is the prompt as tokens of c's vocabulary. A character
// outside it is an error that names it as a pane would show it, with
// its position, and lists the vocabulary when it is short. (The
// parameter is never empty and holds no control character: package param
// refuses both.)
func encodePrompt(prompt string, c *corpus) ([]int, error) {
	ids := make([]int, 0, len(prompt))
	for i, n := 0, 1; i < len(prompt); n++ {
		r, size := utf8.DecodeRuneInString(prompt[i:])
		id, ok := c.vocab.ID(r)
		if !ok || (r == utf8.RuneError && size == 1) { // a byte that is not UTF-8 is no character
			known := fmt.Sprintf("%d characters", c.vocab.Size())
			if c.vocab.Size() <= 64 {
				all := make([]int, c.vocab.Size())
				for j := range all {
					all[j] = j
				}
				known = fmt.Sprintf("%d characters: %s", len(all), sims.Visible(c.vocab.Decode(all), sims.MarkSpaces))
			}
			return nil, fmt.Errorf("parameter %s = %q: character %d, %s, is not in the vocabulary of the text %s (%s); write the prompt in these",
				gptPrompt.Name(), prompt, n, sims.Visible(prompt[i:i+size], sims.MarkSpaces), sims.Shown(c.name), known)
		}
		ids = append(ids, id)
		i += size
	}
	return ids, nil
}

// training reports whether the explainer's next step is a training step.
func (e *explainer) training(steps int) bool { return steps < e.after }

// read runs the model over the last n_ctx tokens and keeps the pictures
// of its last position: the logits, both laws and the attention maps.
func (e *explainer) read() error {
	logits, err := e.gen.Read(e.ids)
	if err != nil {
		return err
	}
	T, V := logits.Dim(1), logits.Dim(2)
	copy(e.z, logits.Data[(T-1)*V:T*V])
	e.window = append(e.window[:0], e.ids[len(e.ids)-T:]...)
	e.maps, _ = headMaps(e.g, e.maps) // the Frames copy what they show of it
	e.laws()
	return nil
}

// laws computes the law before the cut and the law drawn from: the
// sampler's, or under greedy decoding the model's own law, uncut, whose
// argmax is drawn.
func (e *explainer) laws() {
	if e.greedy {
		e.model.Probs(e.z, e.pre)
		copy(e.p, e.pre)
		e.kept = len(e.p)
		return
	}
	e.plain.Probs(e.z, e.pre)
	e.kept = e.smp.Probs(e.z, e.p)
}

// draw picks the next token: the argmax under greedy decoding, else a
// draw from the sampler's law. Both take one number from the stream, so
// that greedy and top_k = 1 write the same text.
func (e *explainer) draw() int {
	if e.greedy {
		return e.argmax.Sample(e.z, e.rng)
	}
	return e.smp.Sample(e.z, e.rng)
}

// retune recomputes both laws of the last position after the sampler
// changed (a new temperature, top-k or top-p) or the decoding did
// (greedy), and draws the next character again from the new law once
// the explainer draws.
func (e *explainer) retune(greedy bool) {
	e.plain.Temperature, e.greedy = e.smp.Temperature, greedy
	e.laws()
	if e.next >= 0 {
		e.next = e.draw()
	}
}

// advance appends the character drawn at the last step (if any), reads
// the new text and draws the next character from the sampler's law.
func (e *explainer) advance() error {
	e.steps++
	if e.next >= 0 {
		e.ids = append(e.ids, e.next)
		e.drawn++
		if d := len(e.ids) - e.keep; d > 0 {
			e.ids = e.ids[:copy(e.ids, e.ids[d:])]
			e.cut += d
		}
	}
	if err := e.read(); err != nil {
		return err
	}
	e.next = e.draw()
	return nil
}

// label is a token as a chart labels it: its character, a space as ␣.
func (e *explainer) label(id int) string {
	return sims.Visible(string(e.vocab.Rune(id)), sims.MarkSpaces)
}

// order is the tokens by decreasing probability before the cut, ties to
// the smaller id (the sampler's order).
func (e *explainer) order() []int {
	idx := make([]int, len(e.pre))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(e.z[b], e.z[a]) })
	return idx
}

// bars is the law of the next character: the explainBars most probable
// (and the draw, if it is not among them), each bar its probability after
// the cut, a character the cut removed marked ✂, the draw ▸.
func (e *explainer) bars() sims.BarChart {
	idx := e.order()
	top := idx[:min(explainBars, len(idx))]
	if e.next >= 0 && !slices.Contains(top, e.next) {
		top = append(slices.Clone(top), e.next)
	}
	title := "p(next char), " + e.tau() + e.cuts()
	if e.greedy {
		title = "p(next char) = softmax(z); greedy: ▸ the argmax"
	}
	c := sims.BarChart{Title: title, Max: 1}
	for _, id := range top {
		mark, class := " ", 0
		switch {
		case id == e.next:
			mark, class = "▸", 1
		case e.p[id] == 0:
			mark = "✂"
		}
		c.Bars = append(c.Bars, sims.Bar{Label: mark + " " + e.label(id), Value: e.p[id], Class: class})
	}
	return c
}

// cuts names the sampler's cuts, if any: ", top-k 5, top-p 0.9".
func (e *explainer) cuts() string {
	s := ""
	if e.smp.TopK > 0 {
		s += fmt.Sprintf(", top-k %d", e.smp.TopK)
	}
	if e.smp.TopP < 1 {
		s += fmt.Sprintf(", top-p %.3g", e.smp.TopP)
	}
	return s
}

// tau is the temperature as the titles say it.
func (e *explainer) tau() string {
	if e.smp.Temperature == 0 {
		return "τ 0 (greedy)"
	}
	return fmt.Sprintf("τ %.3g", e.smp.Temperature)
}

// lastRow is each head's attention from the last position over the
// window: a heads × T heat map, head 1 on top, labelled by token.
func (e *explainer) lastRow(layer, H int) sims.CanvasChart {
	T := len(e.window)
	z := make([]float64, H*T)
	for h := range H {
		copy(z[(H-1-h)*T:(H-h)*T], e.maps[h*(T+1):h*(T+1)+T]) // the maps' bottom row is the last query
	}
	labels := make([]string, T)
	for j, id := range e.window {
		labels[j] = e.label(id)
	}
	heads := make([]string, H)
	for h := range heads {
		heads[h] = fmt.Sprintf("h%d", h+1)
	}
	return sims.CanvasChart{Title: fmt.Sprintf("last char %s attends to, layer %d", labels[T-1], layer),
		View:   sims.Rect{XMin: 0, XMax: float64(T), YMin: 0, YMax: float64(H)},
		Heat:   &sims.Grid{NX: T, NY: H, Z: z, Scale: sims.Sequential, Lo: 0, Hi: 1},
		XLabel: "key", YLabel: "head",
		XIndex: &sims.Index{First: 0, Last: T - 1, At: 0.5, Step: 1, Labels: labels},
		YIndex: &sims.Index{First: 1, Last: H, At: float64(H) + 0.5, Step: -1, Labels: heads}}
}

// text is the prompt and the characters drawn after it, as the pane
// shows them (sims.Visible), each starting with … where the explainer has
// dropped its front (explainKeep).
func (e *explainer) text() (prompt, drawn string) {
	p := max(0, e.prompt-e.cut) // the prompt's tokens still kept
	prompt, drawn = shown(e.vocab, e.ids[:p]), shown(e.vocab, e.ids[p:])
	if e.cut > 0 {
		prompt = "…" + prompt
	}
	if e.cut > e.prompt {
		drawn = "…" + drawn
	}
	return prompt, drawn
}

// tail is the text's last explainTail characters as the note quotes
// them: the prompt's part and the drawn part each in quotes, from … where
// cut.
func (e *explainer) tail() string {
	p := max(0, e.prompt-e.cut)
	from := max(0, len(e.ids)-explainTail)
	lead := ""
	if from > 0 || e.cut > 0 {
		lead = "…"
	}
	var parts []string
	for _, part := range [][]int{e.ids[min(from, p):p], e.ids[max(from, p):]} {
		if len(part) > 0 {
			parts = append(parts, fmt.Sprintf("%q", lead+shown(e.vocab, part)))
			lead = ""
		}
	}
	return strings.Join(parts, " + ")
}

// notes say what the pictures show at this stage: the text and the
// draw, each head's strongest key in its context (legible however narrow
// the heat map), and how the bars' law is made.
func (e *explainer) notes(steps, heads int) []string {
	line := e.tail()
	if e.next >= 0 {
		line += fmt.Sprintf(" → ▸ %s p %.2f", e.label(e.next), e.p[e.next])
	}
	keys := make([]string, heads)
	T := len(e.window)
	for h := range heads {
		row := e.maps[h*(T+1) : h*(T+1)+T]
		j := 0
		for k, w := range row {
			if w > row[j] {
				j = k
			}
		}
		keys[h] = fmt.Sprintf("h%d %s[%s] %.2f", h+1, sims.Visible(e.vocab.Decode(e.window[max(0, j-explainLeft):j]), sims.MarkSpaces),
			e.label(e.window[j]), row[j])
	}
	strongest := "strongest key: " + strings.Join(keys, "  ")
	how := "p ∝ exp(z/τ), " + e.tau()
	if e.greedy {
		how = "argmax p: greedy decoding [A20]"
	}
	if V := len(e.p); e.kept < V {
		lost := 0.0
		for i, p := range e.p {
			if p == 0 {
				lost += e.pre[i]
			}
		}
		how += fmt.Sprintf("%s ✂ %d (%.2g of p)", e.cuts(), V-e.kept, lost)
	}
	if e.training(steps) {
		return []string{line, strongest, fmt.Sprintf("training step %d of %d, then each step appends ▸ ~ %s", steps, e.after, how)}
	}
	if e.greedy {
		return []string{line, strongest, "each step appends ▸, the " + how}
	}
	return []string{line, strongest, "each step appends ▸, drawn from " + how}
}

// result is the explainer's state for --json: the text, the next
// character's law (the ten likeliest, before and after the cut) and the
// character drawn, which the next step appends.
func (e *explainer) result(r map[string]any) {
	prompt, drawn := e.text()
	r["prompt"], r["drawn"] = prompt, drawn
	type entry struct {
		Char string  `json:"char"`
		P    float64 `json:"p"`
		Pre  float64 `json:"p_before_cut"`
	}
	var law []entry
	for _, id := range e.order()[:min(explainBars, len(e.p))] {
		law = append(law, entry{shown(e.vocab, []int{id}), e.p[id], e.pre[id]})
	}
	r["next_law"] = law
	r["decode"] = map[bool]string{false: decodeSample.String(), true: decodeGreedy.String()}[e.greedy]
	if e.next >= 0 {
		r["next"] = shown(e.vocab, []int{e.next})
	}
}
