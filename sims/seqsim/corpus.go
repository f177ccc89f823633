// Package seqsim holds the sequence-model sims of seed 000 ch. 2, seed 001
// §9–12 and seed 002 ch. 7: the k-gram model by counting (ngram),
// byte-pair encoding (bpe), attention, a character RNN (rnn), a tiny GPT
// (tinygpt) and reward learning with a KL-regularised policy (reward).
package seqsim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/thelab/lab/algo/tensor"
	"github.com/thelab/lab/algo/text"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// builtIn is the value of a text parameter that names the built-in
// language rather than a file.
const builtIn = "animals"

var (
	// seqText names a file: sims.ReadText opens it through cfg.Files,
	// which under `lab serve` reads only the operator's --data-dir, by name.
	seqText = param.Text("text", builtIn,
		"animals: the built-in synthetic language (sentences about animals with subject–verb agreement across "+
			"relative clauses), whose entropy rate per character is known exactly; or the path of a UTF-8 text file")
	seqChars = param.Int("chars", 20_000,
		"characters to train on: of the built-in language, or the first of a file (a tenth more is held out)").Range(1_000, 1_000_000)
)

// samplesShown ends the Data of the sims that sample text: how a sample
// shows what is not plain text (sims.Visible).
const samplesShown = "; a sample shows a newline as ⏎, a tab as →, and any other control or invisible character as <U+001B>"

// heldFrac is the share of a file kept for held-out text (its end); the
// built-in language draws its held-out text from an independent stream.
const heldFrac = 0.1

// corpus is a character-level text: its vocabulary, training and held-out
// token ids, and the language it was drawn from (nil for a file).
type corpus struct {
	name        string
	vocab       *text.Vocab
	train, held []int
	lang        *text.Language
}

// loadCorpus reads the text parameter: the built-in language (chars
// characters of training text and chars/5 held out, from the seed) or
// the first chars·1.1 characters of a file, whose last tenth is held out;
// held-out text must have at least minHeld characters.
func loadCorpus(cfg sims.Config, minHeld int) (*corpus, error) {
	v := cfg.Values
	if path := seqText.Get(v); path != builtIn {
		data, err := sims.ReadText(cfg.Files, seqText.Name(), path)
		if err != nil {
			return nil, err
		}
		voc, err := text.NewVocab(data)
		if err != nil {
			return nil, sims.Blame(err, v, sims.As("text", seqText))
		}
		ids, _ := voc.Encode(data) // every character is in its own vocabulary
		n := seqChars.Get(v)
		// A copy of what is kept, so that the ids of the rest of the file
		// (8 bytes a character, 64 MiB for a file of 8 MiB) are let go.
		ids = slices.Clone(ids[:min(len(ids), n+n/10)])
		nh := int(heldFrac * float64(len(ids)))
		if nh < minHeld || len(ids)-nh < minHeld {
			return nil, fmt.Errorf("parameter text = %q: %d characters; need at least %d (a tenth is held out and must cover %d)",
				path, len(ids), minHeld*10, minHeld)
		}
		return &corpus{name: path, vocab: voc, train: ids[:len(ids)-nh], held: ids[len(ids)-nh:]}, nil
	}
	l, err := text.NewLanguage(text.Animals())
	if err != nil {
		return nil, err
	}
	voc, err := text.VocabOf(l.Alphabet())
	if err != nil {
		return nil, err
	}
	n := seqChars.Get(v)
	train, _ := voc.Encode(l.Generate(rand.New(rand.NewPCG(cfg.Seed, 0x74_7261_696e)), n)) // "train"
	held, _ := voc.Encode(l.Generate(rand.New(rand.NewPCG(cfg.Seed, 0x68_656c_64)), max(n/5, minHeld)))
	return &corpus{name: builtIn, vocab: voc, train: train, held: held, lang: l}, nil
}

// corpusBytes is what a corpus holds at most: the training and held-out
// ids (of a file, the first chars·1.1 characters; of the built-in
// language, chars and chars/5 but at least minHeld), and the language.
func corpusBytes(v param.Values, minHeld int) int64 {
	n := seqChars.Get(v)
	return languageBytes + tensor.Alloc(n) + tensor.Alloc(max(n/5, minHeld))
}

// languageBytes is the built-in language and the vocabulary (measured).
const languageBytes = 64 << 10

// alphabet is the number of characters of the text parameter at most:
// the built-in language's, or any a vocabulary takes.
func alphabet(v param.Values) int {
	if seqText.Get(v) != builtIn {
		return text.MaxVocab
	}
	return animalsAlphabet()
}

// animalsAlphabet is the built-in language's number of characters, worked
// out once (a size estimate asks for it before every build).
var animalsAlphabet = sync.OnceValue(func() int {
	l, err := text.NewLanguage(text.Animals())
	if err != nil {
		return text.MaxVocab
	}
	return len(l.Alphabet())
})

// rate is the language's entropy rate in nats per character, or NaN for
// a file (no line is drawn).
func (c *corpus) rate() float64 {
	if c.lang == nil {
		return nan
	}
	return c.lang.EntropyRate()
}

// shown is ids as one line of text as sims.Visible writes it: line ends
// ⏎, tabs →, and no character that could drive the terminal or shift the
// pane's border.
func shown(v *text.Vocab, ids []int) string {
	return sims.Visible(v.Decode(ids), sims.PlainSpaces)
}
