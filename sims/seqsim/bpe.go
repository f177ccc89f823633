package seqsim

import (
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/thelab/lab/algo/text"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// BPE is byte-pair encoding one merge per step (seed 000 §2.2.1–2.2.2,
// L875–909; catalogue §2.3): the most frequent adjacent pair of tokens
// becomes a new token, ties broken by the smallest (left, right) ids, so
// that the notes' abracadabra goes ab → X, ra → Y, XY → Z exactly (the
// notes merge two pairs in one round: erratum 11, avoided).
//
// A token is shown as sims.Visible writes text with marked spaces: its
// whole printable characters as themselves, a byte of a character it
// splits as <E2>, a control character as <U+001B>, a space as ␣, a newline
// as ⏎ and a tab as →. --json gives each new token in that form (pieces)
// and its exact bytes in hex (piece_hex).
var BPE = &sims.Spec{
	Name:   "bpe",
	Title:  "Byte-pair encoding, one merge per step: the pair counts, the merges, the text in tokens",
	Source: "seed 000 §2.2 (L875–909, the abracadabra example)",
	Steps:  200,
	Speed:  2,
	Params: param.List(bpeText, bpeMerges),
	Data: "a text file to tokenise (its first bytes) instead of the built-in paragraph. A token shows its whole printable characters, " +
		"a byte of a character it splits as <E2>, a control character as <U+001B>, a space as ␣, a newline as ⏎, a tab as →; " +
		"--json gives each new token so (pieces) and its bytes in hex (piece_hex)",
	DataFile: bpeText.Name(),
	New:      newBPE,
	Size:     bpeSize,

	Metrics: bpeMetrics,
}

// bpeSize is the tokeniser on the text (text.BPEBytes) and the Frame's
// table, a row for each merge, with the tokens as shown; a merge takes a
// pair that occurs twice, so there are at most half as many as bytes.
func bpeSize(cfg sims.Config) int64 {
	v := cfg.Values
	n := bpeMaxBytes // of a file
	switch bpeText.Get(v) {
	case bpeAbra:
		n = len(bpeAbra)
	case bpeParagraph:
		n = bpeParagraphChars
	case bpeAnimals:
		n = bpeAnimalsChars
	}
	merges := min(bpeMerges.Get(v), n/2)
	return 32<<10 + text.BPEBytes(n, merges) + int64(text.FirstMerge+merges)*bpeShownBytes + int64(merges)*bpeRowBytes + sims.TraceBytes(1)
}

// bpeRowBytes is a row of the merges' table: its label, four cells and
// their strings (measured).
const bpeRowBytes = 256

// bpeShownBytes is a token as shown, kept: its string header and text.
const bpeShownBytes = 32

// The presets of bpe's text parameter.
const (
	bpeAbra      = "abracadabra"
	bpeParagraph = "paragraph"
	bpeAnimals   = "animals"
	// bpeParagraphChars is the length of the default text, a paragraph of
	// the built-in language: 44–55 merges until no pair occurs twice
	// (seeds 1–6), 22–28 s at the pane's 2 merges a second, from letters
	// to words and phrases (abracadabra is over in 3 merges).
	bpeParagraphChars = 300
	// bpeAnimalsChars is the length of the built-in language's sample.
	bpeAnimalsChars = 3000
	// bpeMaxBytes is the most of a file BPE reads: each merge recounts
	// the pairs of the whole sequence.
	bpeMaxBytes = 50_000
	// bpeShown is the number of pairs in the bar chart.
	bpeShown = 8
	// bpeLine is the number of tokens shown in the text.
	bpeLine = 40
)

var (
	bpeText = param.Text("text", bpeParagraph,
		fmt.Sprintf("paragraph: %d characters of the built-in language; abracadabra: the notes' example; "+
			"animals: %d characters of the built-in language; or the path of a text file (its first %d bytes)",
			bpeParagraphChars, bpeAnimalsChars, bpeMaxBytes))
	bpeMerges = param.Int("merges", 500, "stop after this many merges (n_voc = 256 + merges), or when no pair occurs twice").Range(1, 5000)
)

type bpeSim struct {
	b      *text.BPE
	bytes  int
	max    int
	length *sims.Trace // tokens after each merge
	done   bool
	shown  []string // token id → as shown (piece), made on first need
}

func newBPE(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	var data []byte
	switch name := bpeText.Get(v); name {
	case bpeAbra:
		data = []byte(bpeAbra)
	case bpeParagraph, bpeAnimals:
		l, err := text.NewLanguage(text.Animals())
		if err != nil {
			return nil, err
		}
		n := bpeAnimalsChars
		if name == bpeParagraph {
			n = bpeParagraphChars
		}
		data = []byte(l.Generate(rand.New(rand.NewPCG(cfg.Seed, 0x62_7065)), n)) // "bpe"
	default:
		t, err := sims.ReadText(cfg.Files, bpeText.Name(), name)
		if err != nil {
			return nil, err
		}
		data = []byte(t)[:min(len(t), bpeMaxBytes)]
	}
	s, err := newBPEOn(data, bpeMerges.Get(v))
	if err != nil {
		return nil, sims.Blame(err, v, sims.As("text", bpeText))
	}
	return s, nil
}

// newBPEOn is the sim on the bytes data, merging at most max times.
func newBPEOn(data []byte, max int) (*bpeSim, error) {
	b, err := text.NewBPE(data)
	if err != nil {
		return nil, err
	}
	s := &bpeSim{b: b, bytes: len(data), max: max, length: sims.NewTrace(0, 1)}
	s.length.Add(float64(len(data)))
	return s, nil
}

// Step makes one merge.
func (s *bpeSim) Step() error {
	if s.done {
		return sims.ErrConverged
	}
	if err := s.b.Step(); err != nil {
		s.done = true
		return err // ErrConverged: no pair occurs twice
	}
	s.length.Add(float64(len(s.b.Tokens())))
	if len(s.b.Merges()) >= s.max {
		s.done = true
		return sims.ErrConverged
	}
	return nil
}

// piece is token id as shown (sims.Visible, spaces marked): a token's
// bytes never change, so each is written once.
func (s *bpeSim) piece(id int) string {
	for len(s.shown) <= id {
		s.shown = append(s.shown, "")
	}
	if s.shown[id] == "" {
		s.shown[id] = sims.Visible(string(s.b.Piece(id)), sims.MarkSpaces)
	}
	return s.shown[id]
}

func (s *bpeSim) Frame() sims.Frame {
	ms := s.b.Merges()
	toks := s.b.Tokens()
	f := sims.Frame{Sim: BPE.Name, Step: len(ms), Metrics: []sims.Metric{
		{Name: "merges", Value: float64(len(ms))},
		{Name: "tokens", Value: float64(len(toks))},
		{Name: "n_voc", Value: float64(s.b.VocabSize())},
		{Name: "bytes/token", Value: float64(s.bytes) / float64(len(toks))},
	}}
	table := sims.TableChart{Title: "merges (newest last)", Corner: "#", Columns: []string{"left", "right", "new token", "count"}}
	for i, m := range ms {
		tone := sims.TonePlain
		if i == len(ms)-1 {
			tone = sims.ToneFocus
		}
		table.Rows = append(table.Rows, sims.TableRow{Label: fmt.Sprint(i + 1), Cells: []sims.Cell{
			{Text: s.piece(m.Left), Tone: tone}, {Text: s.piece(m.Right), Tone: tone},
			{Text: fmt.Sprintf("%d = %s", m.New, s.piece(m.New)), Tone: tone}, sims.Num(float64(m.Count), fmt.Sprint(m.Count)).Styled(tone, 0)}})
	}
	bars := sims.BarChart{Title: "adjacent pairs now (the first is merged next)"}
	for i, p := range s.b.Pairs() {
		if i == bpeShown {
			break
		}
		class := 0
		if i == 0 && p.Count >= 2 {
			class = 1
		}
		bars.Bars = append(bars.Bars, sims.Bar{Label: s.piece(p.Left) + "·" + s.piece(p.Right), Value: float64(p.Count), Class: class})
	}
	f.Charts = []sims.Chart{bars, table}
	if s.bytes > 100 {
		x0, x1 := s.length.Span()
		f.Charts = append(f.Charts, sims.LineChart{Title: "tokens in the text against merges", X0: x0, X1: x1, XLabel: "merges",
			Series: []sims.Series{{Name: "tokens", Y: s.length.Column(0)}}})
	}
	var line strings.Builder
	for i, id := range toks[:min(len(toks), bpeLine)] {
		if i > 0 {
			line.WriteString("|")
		}
		line.WriteString(s.piece(id))
	}
	if len(toks) > bpeLine {
		line.WriteString("|…")
	}
	f.Text = []string{line.String()}
	if best, ok := s.b.Best(); ok {
		f.Text = append(f.Text, fmt.Sprintf("next: %s·%s (%d times) becomes token %d; ties go to the smallest (left, right) ids",
			s.piece(best.Left), s.piece(best.Right), best.Count, s.b.VocabSize()))
	} else {
		f.Text = append(f.Text, "no pair occurs twice: BPE stops")
	}
	return f
}

// Result gives the new token of each merge as the pane shows it (pieces)
// and as its bytes in lower-case hex (piece_hex): JSON holds only UTF-8
// text, and a token may split a character.
func (s *bpeSim) Result() map[string]any {
	ms := s.b.Merges()
	pieces, raw := make([]string, len(ms)), make([]string, len(ms))
	for i, m := range ms {
		pieces[i], raw[i] = s.piece(m.New), hex.EncodeToString(s.b.Piece(m.New))
	}
	return map[string]any{"merges": len(ms), "tokens": len(s.b.Tokens()), "n_voc": s.b.VocabSize(), "pieces": pieces, "piece_hex": raw}
}
