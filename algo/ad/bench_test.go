package ad

import "testing"

// bigGraph is a 10,000-node DAG over 8 inputs: each operation reads the
// previous node and one of the eight nodes before it (fan-out everywhere),
// cycling through + × sin tanh − sigmoid.
func bigGraph(tb testing.TB, nodes int) *Graph {
	g := NewGraph()
	for k := range 8 {
		g.Input(string(rune('a'+k)), 0.1*float64(k+1))
	}
	ops := []Op{Add, Mul, Sin, Tanh, Sub, Sigmoid}
	for i := 8; i < nodes; i++ {
		op := ops[i%len(ops)]
		g.Apply(op, i-1, i-1-i%8)
	}
	if err := g.SetOutputs(g.Len() - 1); err != nil {
		tb.Fatal(err)
	}
	return g
}

// BenchmarkReverse10k is reverse mode on a 10,000-node graph: a forward
// pass of values and local derivatives, then the adjoints (README target:
// under 1 ms).
func BenchmarkReverse10k(b *testing.B) {
	g := bigGraph(b, 10000)
	grad := make([]float64, 8)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if err := g.SetInput(0, 0.1+1e-9*float64(i%2)); err != nil { // forces a fresh forward pass
			b.Fatal(err)
		}
		if err := g.Gradient(grad, 0); err != nil {
			b.Fatal(err)
		}
	}
}
