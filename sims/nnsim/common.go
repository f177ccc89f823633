// Package nnsim turns the networks of algo/nn into sims: TensorFlow
// Playground in a pane, the optimisers racing on a surface, dropout's
// train/test gap, universal approximation against width, the sliding
// window of a convolution, and a digits classifier trained live (seed 000
// chapter 2, seed 001 §9–10, seed 002 §6.1).
package nnsim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"

	"github.com/thelab/lab/algo/nn"
	"github.com/thelab/lab/algo/tensor/opt"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// The PCG streams of the sims' randomness: the data follow the seed and
// stay put when a parameter of the network changes; the weights and the
// batches have streams of their own.
const (
	dataStream  = 0x6e6e5f64617461 // "nn_data"
	initStream  = 0x6e6e5f696e6974 // "nn_init"
	trainStream = 0x6e6e5f747261696e
)

func streamRNG(seed, stream uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, stream)) }

// liveFLOPs is the most a training step may cost in a pane: about 50 ms
// at the 4 GFLOP/s of thread CPU that the tape's products reach on this
// machine (a 16×16 CNN step of 38 MFLOP takes 9.5 ms), so that a pane
// still steps twenty times a second and a key is answered within a frame
// or two. A headless run has no such limit.
const liveFLOPs = 2e8

// stepFLOPs is the cost of one training step: the forward pass and the two
// products of the backward pass for each example of the batch.
func stepFLOPs(m nn.Model, batch int) float64 { return 3 * float64(batch) * m.FLOPs() }

// checkLive refuses, in a pane, a network whose steps are too slow to
// watch, naming the headless command that runs it.
func checkLive(cfg sims.Config, sim string, m nn.Model, batch int) error {
	cost := stepFLOPs(m, batch)
	if cfg.Headless || cost <= liveFLOPs {
		return nil
	}
	set := cfg.Values.Explicit()
	names := make([]string, 0, len(set))
	for k := range set {
		names = append(names, k)
	}
	sort.Strings(names)
	var cmd strings.Builder
	fmt.Fprintf(&cmd, "lab run %s", sim)
	for _, k := range names {
		fmt.Fprintf(&cmd, " --set %s=%s", k, set[k])
	}
	return fmt.Errorf("this network costs %.2g FLOPs a training step (%d parameters, batch %d), "+
		"over the %.0g a live pane allows; make it smaller or train it headless: %s --json",
		cost, nn.CountParams(m), batch, liveFLOPs, cmd.String())
}

// optimizer parameters shared by the training sims, each with its own
// defaults.
type optParams struct {
	method *param.ChoiceDecl[opt.Method]
	lr     *param.FloatDecl
}

// UpdateRules are the update rules of the training sims' menus, in their
// order.
var UpdateRules = []opt.Method{opt.SGD, opt.Momentum, opt.Nesterov, opt.RMSProp, opt.Adam, opt.AdamW}

func newOptParams(def opt.Method, lr float64) optParams {
	return optParams{
		method: param.Choice("optimizer", UpdateRules, def,
			"update rule (seed 002 Remark 6.3): sgd, momentum (heavy ball), nesterov, rmsprop, adam, adamw"),
		lr: param.Float("lr", lr, "learning rate η").Range(0, 10).OpenMin(),
	}
}

// Params lists the group's declarations (it lists like one declaration).
func (o optParams) Params() []param.Param { return param.List(o.method, o.lr) }

func (o optParams) config(v param.Values) opt.Config {
	return opt.Config{Method: o.method.Get(v), LR: o.lr.Get(v)}
}

// architecture is "2 → 4 → 4 → 1".
func architecture(in int, hidden []int, out int) string {
	parts := []string{fmt.Sprint(in)}
	for _, h := range hidden {
		parts = append(parts, fmt.Sprint(h))
	}
	return strings.Join(append(parts, fmt.Sprint(out)), " → ")
}

// classLegend names classes for a legend: "class 0", "class 1", or the
// digits.
func classLegend(c int) []string {
	out := make([]string, c)
	for k := range out {
		out[k] = fmt.Sprintf("class %d", k)
	}
	return out
}

// lossChart draws train and test loss curves (a log scale when they span
// decades) recorded every `every` steps.
func lossChart(title string, tr *sims.Trace, every int, cols ...int) sims.LineChart {
	x0, x1 := tr.Span()
	names := []string{"train", "test"}
	c := sims.LineChart{Title: title, X0: x0 * float64(every), X1: x1 * float64(every), XLabel: "step"}
	for i, col := range cols {
		c.Series = append(c.Series, sims.Series{Name: names[i], Y: tr.Column(col), Class: i})
	}
	lo, hi := math.Inf(1), 0.0
	for _, s := range c.Series {
		for _, y := range s.Y {
			lo, hi = math.Min(lo, y), math.Max(hi, y)
		}
	}
	c.LogY = lo > 0 && hi/lo > 30
	return c
}

// fmtAffine prints z = a·x + b·y + c.
func fmtAffine(names []string, a []float64, c float64) string {
	var b strings.Builder
	b.WriteString("z =")
	for i, v := range a {
		sign := "+"
		if v < 0 {
			sign = "−"
		}
		if i == 0 && v >= 0 {
			sign = ""
		}
		fmt.Fprintf(&b, " %s %.3g·%s", sign, math.Abs(v), names[i])
	}
	sign := "+"
	if c < 0 {
		sign = "−"
	}
	fmt.Fprintf(&b, " %s %.3g", sign, math.Abs(c))
	return strings.ReplaceAll(b.String(), "=  ", "= ")
}
