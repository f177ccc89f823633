package privacy

import (
	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor"
)

// SGDBytes is what an SGD of the network a holds besides the network, on
// n training examples of d features and outs outputs: the per-example
// gradients (nn.PerExampleBytes), the optimiser's state, the batch, the
// epoch's order, the norms and the accountant's orders (for estimating a
// model's memory before it is built; see tensor.Footprint).
func SGDBytes(a nn.Arch, loss nn.Loss, n, d, outs int, cfg SGDConfig) int64 {
	b := cfg.Batch
	return nn.PerExampleBytes(a, loss, b, d, outs) + nn.StateBytes(a, cfg.Opt.Method) + nn.BatchBytes(b, d) +
		2*tensor.Alloc(b) + tensor.Alloc(n) + 2*tensor.Alloc(len(Orders))
}

// PLDBytes is the memory a PLD of FFT length n holds (for a size estimate
// before it is built: PLDLen gives n; at most PLDMaxLen, 7 MB).
func PLDBytes(n int) int64 { return int64(n) * pldBytesPer }
