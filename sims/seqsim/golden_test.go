package seqsim

import (
	"testing"

	"github.com/thelab/lab/tui/tuitest"
)

// TestGoldenFrames pins each sim's pane, as `lab run SIM --frames` draws
// it in monochrome at 100×30, after a few steps from seed 1. Run with
// -update to rewrite testdata/TestGoldenFrames after an intended change.
func TestGoldenFrames(t *testing.T) {
	tuitest.Run(t, tuitest.Frames, []tuitest.Case{
		{Name: "ngram", Spec: NGram, Steps: 20},
		{Name: "bpe", Spec: BPE, Steps: 2},
		{Name: "bpe-animals", Spec: BPE, Set: map[string]string{"text": "animals"}, Steps: 40},
		{Name: "attention", Spec: Attention, Steps: 2},
		{Name: "attention-positions", Spec: Attention, Set: map[string]string{"view": "positions"}, Steps: 5},
		{Name: "attention-kernel", Spec: Attention, Set: map[string]string{"view": "kernel"}, Steps: 20},
		{Name: "tinygpt-sort", Spec: TinyGPT, Set: map[string]string{"task": "sort", "length": "4"}, Steps: 25},
		// The explain view: 20 training steps, then 6 characters drawn
		// after the prompt, top-k 5 cutting the rest.
		{Name: "tinygpt-explain", Spec: TinyGPT, Set: map[string]string{"view": "explain", "train_steps": "20", "eval_every": "20", "top_k": "5"}, Steps: 26},
		{Name: "reward", Spec: Reward, Steps: 40},
	})
	// Runs shared with TestRNN and TestTinyGPTText (fixture_test.go): rnn
	// after 25 steps, tinygpt with eval_every=10 after 10.
	tuitest.RunShared(t, tuitest.Frames, []tuitest.SharedCase{{Name: "rnn", Run: rnnGolden}, {Name: "tinygpt", Run: gptText}})
}
