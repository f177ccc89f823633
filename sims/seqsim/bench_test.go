package seqsim

import (
	"maps"
	"testing"

	"github.com/thelab/lab/algo/algotest"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/simtest"
)

// trainingSims are the sims whose steps, between evaluations, must not
// allocate: the settings keep evaluations out of the measured steps.
var trainingSims = []struct {
	name string
	spec *sims.Spec
	set  map[string]string
}{
	{"tinygpt", TinyGPT, map[string]string{"eval_every": "10000"}},
	{"tinygpt-copy", TinyGPT, map[string]string{"task": "copy", "eval_every": "10000"}},
	{"tinygpt-explain", TinyGPT, map[string]string{"view": "explain", "eval_every": "10000"}},   // training
	{"tinygpt-explain-draw", TinyGPT, map[string]string{"view": "explain", "train_steps": "0"}}, // drawing
	{"rnn", RNN, map[string]string{"eval_every": "10000"}},
	{"reward", Reward, nil},
}

// smallModel shrinks a training sim for the allocation test: whether a
// step allocates does not depend on the widths, and under -race a default
// tinygpt step costs a second. Every layer kind stays (two heads, two
// blocks), so every code path of a default step is measured.
var smallModel = map[string]map[string]string{
	"tinygpt":      {"dim": "8", "heads": "2", "ffn": "16", "context": "8", "batch": "4", "chars": "2000"},
	"tinygpt-copy": {"dim": "8", "heads": "2", "ffn": "16", "length": "3", "batch": "4"},
	// the explain view's window full (8 of the prompt's 23 characters)
	"tinygpt-explain":      {"dim": "8", "heads": "2", "ffn": "16", "context": "8", "batch": "4", "chars": "2000"},
	"tinygpt-explain-draw": {"dim": "8", "heads": "2", "ffn": "16", "context": "8", "batch": "4", "chars": "2000"},
	"rnn":                  {"hidden": "8", "context": "8", "batch": "4", "chars": "2000"},
}

// TestStepsDoNotAllocate: after the first steps, a training step of
// tinygpt, rnn and reward allocates nothing (issue 16's performance
// item).
func TestStepsDoNotAllocate(t *testing.T) {
	for _, tt := range trainingSims {
		set := maps.Clone(tt.set)
		if set == nil {
			set = map[string]string{}
		}
		maps.Copy(set, smallModel[tt.name])
		s := simtest.Build(t, tt.spec, set, 1, nil)
		simtest.Run(t, s, 2)
		if a := testing.AllocsPerRun(3, func() { s.Step() }); a != 0 {
			t.Errorf("%s: %v allocations a step", tt.name, a)
		}
	}
}

// BenchmarkSimStep is one training step of each training sim at its
// defaults, evaluations left out (README: tinygpt at least 20 steps a
// second).
func BenchmarkSimStep(b *testing.B) {
	for _, tt := range trainingSims {
		b.Run(tt.name, func(b *testing.B) {
			defer algotest.CPUTime(b)()
			s := simtest.Build(b, tt.spec, tt.set, 1, nil)
			simtest.Run(b, s, 2)
			b.ReportAllocs()
			for b.Loop() {
				if err := s.Step(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "steps/s")
		})
	}
}

// TestSizeEstimates: each default estimate stays under 64 MiB (a
// serving budget), and a million characters raise it.
func TestSizeEstimates(t *testing.T) {
	for _, spec := range []*sims.Spec{NGram, RNN, TinyGPT} {
		def := spec.EstimateSize(sims.Config{})
		v, err := sims.Resolve(spec.Params, map[string]string{"chars": "1000000"})
		if err != nil {
			t.Fatal(err)
		}
		big := spec.EstimateSize(sims.Config{Values: v})
		if def > 64<<20 || big <= def {
			t.Errorf("%s: default %s, a million characters %s", spec.Name, sims.Bytes(def), sims.Bytes(big))
		}
	}
}
