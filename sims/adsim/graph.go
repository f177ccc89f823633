package adsim

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/thelab/lab/algo/ad"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// preset is an expression of the ad-graph sim with its variables.
type preset string

const (
	// presetNeuron is the default: one neuron's logistic loss, twelve
	// nodes (24 steps of reverse mode, 24 s at the pane's speed), with z
	// read twice so that the naive recursion is wrong (§1.4).
	presetNeuron  preset = "neuron"
	presetNotes   preset = "notes"   // §1.4: x + x² at 3
	presetFanout  preset = "fanout"  // an inner node read twice: naive backprop double-counts
	presetProduct preset = "product" // x·y + sin x
	presetChain   preset = "chain"   // six sines: flat against triangular memory
)

func (p preset) String() string { return string(p) }

var presetExprs = map[preset][2]string{ // expression, variables
	presetNeuron:  {"z = w*x + b; log(1 + exp(z)) - y*z", "w=0.5, x=2, b=-1, y=1"},
	presetNotes:   {"x + x*x", "x=3"},
	presetFanout:  {"u = x*y; u + sin(u)", "x=3, y=2"},
	presetProduct: {"x*y + sin(x)", "x=3, y=2"},
	presetChain:   {"sin(sin(sin(sin(sin(sin(x))))))", "x=1"},
}

// graphMaxNodes is the largest graph the pane draws.
const graphMaxNodes = 40

// ad-graph's parameters.
var (
	agPreset = param.Choice("preset", []preset{presetNeuron, presetNotes, presetFanout, presetProduct, presetChain}, presetNeuron,
		"neuron: the logistic loss log(1 + e^z) − y·z of z = w·x + b at w = 0.5, x = 2, b = −1, y = 1 (seed 001 §4; "+
			"∂f/∂w = (σ(z) − y)·x = −1, and z read twice); notes: x + x·x at 3, §1.4 (value 12, derivative 7); fanout: u = x·y; u + sin u, where a naive "+
			"recursive backprop counts u twice; product: x·y + sin x; chain: six nested sines (memory, §1.6)")
	agExpr = param.Text("expr", presetExprs[presetNeuron][0],
		"the function: + - * / ^, exp log sin cos tanh sigmoid relu abs sqrt, pi; "+
			"\"u = x*y; u + sin(u)\" names an inner node; commas separate several outputs").
		DefaultFunc(func(v param.Values) string { return presetExprs[agPreset.Get(v)][0] }, "the preset's expression")
	agVars = param.Text("vars", presetExprs[presetNeuron][1], "the variables and their values, as x=3, y=2").
		DefaultFunc(func(v param.Values) string { return presetExprs[agPreset.Get(v)][1] }, "the preset's variables")
	agMode = param.Choice("mode", []ad.Mode{ad.ForwardMode, ad.ReverseMode}, ad.ReverseMode,
		"forward: (value | tangent) node by node, one pass per input (§1.2); "+
			"reverse: values onto a tape, then adjoints popping it (§1.3)")
	agWrt = param.Text("wrt", "x", "forward mode's seed: the variable whose tangent starts at 1 (the others at 0)").
		DefaultFunc(func(v param.Values) string {
			if vars, err := parseVars(agVars.Name(), agVars.Get(v)); err == nil && len(vars) > 0 {
				return vars[0].Name
			}
			return "x"
		}, "the first variable")
	agOutput = param.Int("output", 1, "reverse mode's seed: the output whose adjoint starts at 1, when expr lists several").
			Range(1, graphMaxNodes)
)

// Graph steps forward or reverse mode through the computational graph of a
// typed expression one node at a time (seed 000 §1.1–1.6): the graph as
// boxes of value | tangent or value | adjoint, the trace or tape, the
// memory held (flat in forward mode, a triangle in reverse mode, §1.6), and
// the gradient next to what a naive recursive backprop gets (§1.4: it
// double-counts a node read twice).
var Graph = &sims.Spec{
	Name:   "ad-graph",
	Title:  "AD on a computational graph: forward (value|tangent) or reverse (tape, adjoints) node by node",
	Source: "seed 000 §1.1–1.6 (eqs 1.2–1.12, Figure 1.3; memory, Figures 1.4–1.5)",
	Steps:  80,
	Speed:  1,
	Params: param.List(agPreset, agExpr, agVars, agMode, agWrt, agOutput),
	New:    newGraph,
	Size:   graphSize,

	Metrics: graphMetrics,
}

// graphSize is the graph, its twin and the sweep, with the pane's boxes,
// trace or tape and memory curve: about a kilobyte a node, for at most
// graphMaxNodes nodes, and no more than one a byte of the expression and
// of its variables (each names one input).
func graphSize(cfg sims.Config) int64 {
	v := cfg.Values
	nodes := min(graphMaxNodes, len(agExpr.Get(v))+len(agVars.Get(v)))
	return graphBase + 1<<10*int64(nodes)
}

// graphBase is what ad-graph holds whatever its size: the sim and the
// Frame's charts and texts.
const graphBase = 8 << 10

type graphSim struct {
	src    string
	g      *ad.Graph
	sw     *ad.Sweep
	mode   ad.Mode
	wrt    int // forward: the seeded input
	out    int // reverse: the seeded output
	cols   []int
	rows   []int
	other  []float64 // the other mode's memory per step, for reference
	exact  []float64 // ∇f_out by reverse mode, computed at the start
	naive  []float64 // the naive recursion's answer
	failed *ad.EvalError
}

func newGraph(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	src := agExpr.Get(v)
	vars, err := parseVars(agVars.Name(), agVars.Get(v))
	if err != nil {
		return nil, err
	}
	g, err := parseExpr(agExpr.Name(), src, vars)
	if err != nil {
		return nil, err
	}
	if g.Len() > graphMaxNodes {
		return nil, fmt.Errorf("parameter expr = %q: its graph has %d nodes; the pane draws at most %d", src, g.Len(), graphMaxNodes)
	}
	s := &graphSim{src: src, g: g, mode: agMode.Get(v), out: agOutput.Get(v) - 1}
	if s.out >= len(g.Outputs()) {
		return nil, fmt.Errorf("parameter output = %d: the expression has %d output(s)", s.out+1, len(g.Outputs()))
	}
	wrt := agWrt.Get(v)
	s.wrt = slices.IndexFunc(vars, func(x ad.Var) bool { return x.Name == wrt })
	if s.wrt < 0 {
		return nil, fmt.Errorf("parameter wrt = %q: not a variable (vars = %q)", wrt, agVars.Get(v))
	}
	seed := make([]float64, len(vars))
	seed[s.wrt] = 1
	if s.sw, err = ad.NewSweep(g, s.mode, seed, s.out); err != nil {
		return nil, err
	}
	s.cols, s.rows = layout(g)
	// A twin graph for what the pane shows beside the sweep: the other
	// mode's memory, the gradient and the naive recursion's. An evaluation
	// error leaves them out; the sweep stops at the failing node.
	twin, _ := ad.Parse(src, vars)
	other := ad.ReverseMode
	if s.mode == ad.ReverseMode {
		other = ad.ForwardMode
	}
	if sw, err := ad.NewSweep(twin, other, seed, s.out); err == nil && sw.Run() == nil {
		for _, m := range sw.Memory() {
			s.other = append(s.other, float64(m))
		}
	}
	exact, naive := make([]float64, len(vars)), make([]float64, len(vars))
	if twin.Gradient(exact, s.out) == nil && ad.NaiveBackprop(twin, naive, s.out) == nil {
		s.exact, s.naive = exact, naive
	}
	return s, nil
}

func (s *graphSim) Step() error {
	err := s.sw.Step()
	var ee *ad.EvalError
	if errors.As(err, &ee) {
		s.failed = ee
		return fmt.Errorf("%s", evalMessage(s.g, s.src, ee))
	}
	return err
}

// phase names what the sweep is doing.
func (s *graphSim) phase() string {
	switch {
	case s.sw.Done():
		return "done"
	case s.mode == ad.ForwardMode:
		return "forward"
	case s.sw.Backward():
		return "popping"
	}
	return "recording"
}

// known reports whether node i's derivative (tangent, or final adjoint)
// has been computed.
func (s *graphSim) known(i int) bool {
	if s.mode == ad.ForwardMode {
		return s.sw.Processed(i)
	}
	return s.sw.Backward() && s.sw.Processed(i)
}

// valued reports whether node i's value has been computed.
func (s *graphSim) valued(i int) bool {
	return s.mode == ad.ReverseMode && s.sw.Backward() || s.sw.Processed(i)
}

func (s *graphSim) derivative(i int) float64 {
	if s.mode == ad.ForwardMode {
		return s.g.Node(i).Tangent
	}
	return s.g.Node(i).Adjoint
}

func (s *graphSim) Frame() sims.Frame {
	g := s.g
	last := s.sw.Last()
	if s.failed != nil {
		last = s.failed.Node
	}
	nodes := make([]sims.GraphNode, g.Len())
	for i := range nodes {
		n := g.Node(i)
		label := nodeName(g, i)
		if n.Op.Arity() > 0 {
			label += " " + opSymbol(n.Op)
		}
		value, deriv := "·", "·"
		if s.valued(i) {
			value = num(n.Value)
		}
		if s.known(i) {
			deriv = num(s.derivative(i))
		}
		gn := sims.GraphNode{Col: s.cols[i], Row: s.rows[i], Label: label, Detail: value + "|" + deriv}
		switch {
		case s.failed != nil && i == s.failed.Node:
			gn.Detail, gn.Tone, gn.Class = "✗ "+s.failed.Reason, sims.ToneFocus, classWrong
		case i == last:
			gn.Tone, gn.Class = sims.ToneFocus, classNow
		case s.known(i) && s.mode == ad.ReverseMode:
			gn.Tone, gn.Class = sims.ToneInk, classNow
		case s.valued(i):
			gn.Tone, gn.Class = sims.ToneInk, classDone
		default:
			gn.Tone = sims.ToneDim
		}
		nodes[i] = gn
	}
	title := "forward: value|tangent"
	if s.mode == ad.ReverseMode {
		title = "reverse: value|adjoint"
	}
	charts := []sims.Chart{
		sims.GraphChart{Title: title, Nodes: nodes, Edges: graphEdges(g, last)},
		s.memoryChart(),
		s.tapeTable(last),
	}
	return sims.Frame{
		Sim:     Graph.Name,
		Step:    s.sw.Steps(),
		Metrics: s.metrics(),
		Charts:  charts,
		Text:    s.notes(last),
	}
}

func (s *graphSim) metrics() []sims.Metric {
	g := s.g
	out := g.Outputs()[s.out]
	f, d := 0.0, 0.0
	if s.valued(out) {
		f = g.Node(out).Value
	}
	name := "tangent"
	if s.mode == ad.ForwardMode {
		if s.known(out) {
			d = g.Node(out).Tangent
		}
	} else {
		name = "adjoint"
		if in := g.Inputs()[s.wrt]; s.known(in) {
			d = g.Node(in).Adjoint
		}
	}
	ms := []sims.Metric{{Name: "f", Value: f}, {Name: name, Value: d}}
	if s.naive != nil && s.sw.Done() {
		ms = append(ms, sims.Metric{Name: "naive", Value: s.naive[s.wrt]})
	}
	return append(ms,
		sims.Metric{Name: "nodes", Value: float64(g.Len())},
		sims.Metric{Name: "live", Value: float64(s.sw.Live())},
		sims.Metric{Name: "peak", Value: float64(s.sw.Peak())})
}

// memoryChart is §1.6's lost Figures 1.4 and 1.5: what is stored after
// each step, this sweep's against the other mode's (dotted).
func (s *graphSim) memoryChart() sims.LineChart {
	mem := s.sw.Memory()
	y := make([]float64, len(mem))
	for k, m := range mem {
		y[k] = float64(m)
	}
	this, that := "pairs held", "tape (reverse)"
	if s.mode == ad.ReverseMode {
		this, that = "tape", "pairs (forward)"
	}
	series := []sims.Series{{Name: this, Y: y, Class: classDone}}
	if s.other != nil {
		series = append(series, sims.Series{Name: that, Y: s.other, Class: classNow, Bound: true})
	}
	n := max(s.sw.Len(), len(s.other))
	return sims.LineChart{Title: "live memory (§1.6)", Series: series, X0: 1, X1: float64(n), XLabel: "step"}
}

func naiveWrong(exact, naive float64) bool {
	return math.Abs(exact-naive) > 1e-12*math.Max(1, math.Abs(exact))
}

// tapeTable lists the nodes in creation order — the tape of reverse mode
// (pushed, then popped), the evaluation trace of forward mode. In reverse
// mode the inputs' rows end with ∂f/∂x and, beside it, what a naive
// recursion gets.
func (s *graphSim) tapeTable(last int) sims.TableChart {
	g := s.g
	t := sims.TableChart{Title: "trace", Corner: "node", Columns: []string{"formula", "value", "tangent"}}
	if s.mode == ad.ReverseMode {
		t = sims.TableChart{Title: "tape", Corner: "node", Columns: []string{"formula", "value", "adjoint", "tape", "naive"}}
	}
	for i := range g.Len() {
		n := g.Node(i)
		row := sims.TableRow{Label: nodeName(g, i), Cells: []sims.Cell{{Text: nodeFormula(g, i)}}}
		value, deriv := sims.Cell{Text: "·", Tone: sims.ToneDim}, sims.Cell{Text: "·", Tone: sims.ToneDim}
		if s.valued(i) {
			value = numCell(n.Value)
		}
		if s.known(i) {
			deriv = numCell(s.derivative(i)).Styled(sims.ToneInk, classNow)
		}
		if i == last {
			if s.mode == ad.ReverseMode && s.sw.Backward() {
				deriv.Tone, deriv.Class = sims.ToneFocus, classNow
			} else {
				value.Tone, value.Class = sims.ToneFocus, classNow
			}
		}
		row.Cells = append(row.Cells, value, deriv)
		if s.mode == ad.ReverseMode {
			row.Cells = append(row.Cells, s.tapeState(i), s.naiveCell(i))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

// tapeState is node i's place on the tape.
func (s *graphSim) tapeState(i int) sims.Cell {
	switch {
	case s.known(i):
		return sims.Cell{Text: "popped", Tone: sims.ToneDim}
	case s.valued(i):
		return sims.Cell{Text: "on tape"}
	}
	return sims.Cell{}
}

// naiveCell is, on an input's row once the sweep is done, the naive
// recursion's ∂f/∂x, marked wrong when it is.
func (s *graphSim) naiveCell(i int) sims.Cell {
	k := slices.Index(s.g.Inputs(), i)
	if k < 0 || s.naive == nil || !s.sw.Done() {
		return sims.Cell{}
	}
	if naiveWrong(s.exact[k], s.naive[k]) {
		return sims.Num(s.naive[k], "✗ "+num(s.naive[k])).Styled(sims.ToneInk, classWrong)
	}
	return sims.Num(s.naive[k], "✓ "+num(s.naive[k])).Styled(sims.ToneInk, classOK)
}

// stepNote says what the last step computed, in the notes' notation.
func (s *graphSim) stepNote(i int) string {
	g := s.g
	n := g.Node(i)
	name := nodeName(g, i)
	if s.mode == ad.ReverseMode && s.sw.Backward() {
		if n.Op.Arity() == 0 {
			return fmt.Sprintf("%s, a leaf: ∂f/∂%s = %s", name, name, num(n.Adjoint))
		}
		var parts []string
		args := [2]int{n.A, n.B}
		for k, a := range args[:n.Op.Arity()] {
			parts = append(parts, fmt.Sprintf("r_%s += %s·%s", nodeName(g, a), num(n.Adjoint), num(n.D1[k])))
		}
		return fmt.Sprintf("%s (r = %s): %s", name, num(n.Adjoint), strings.Join(parts, ", "))
	}
	val := fmt.Sprintf("%s = %s = %s", name, nodeFormula(g, i), num(n.Value))
	if n.Op.Arity() == 0 {
		val = fmt.Sprintf("%s = %s", name, num(n.Value))
	}
	if s.mode == ad.ReverseMode {
		return val
	}
	if n.Op.Arity() == 0 {
		return fmt.Sprintf("%s, t = %s (the seed)", val, num(n.Tangent))
	}
	var terms []string
	args := [2]int{n.A, n.B}
	for k, a := range args[:n.Op.Arity()] {
		terms = append(terms, fmt.Sprintf("%s·%s", num(n.D1[k]), num(g.Node(a).Tangent)))
	}
	return fmt.Sprintf("%s, t = %s = %s", val, strings.Join(terms, " + "), num(n.Tangent))
}

func (s *graphSim) notes(last int) []string {
	g := s.g
	var lines []string
	if s.failed != nil {
		lines = append(lines, "✗ "+evalMessage(g, s.src, s.failed))
	} else if last >= 0 {
		lines = append(lines, fmt.Sprintf("step %d/%d, %s: %s", s.sw.Steps(), s.sw.Len(), s.phase(), s.stepNote(last)))
	}
	wrt := g.Node(g.Inputs()[s.wrt]).Name
	if s.mode == ad.ForwardMode {
		lines = append(lines, fmt.Sprintf("t_k = Σ ∂f_k/∂s·t_s (eq 1.4), t_%s = 1: a pass per input, n = %d", wrt, len(g.Inputs())))
	} else {
		lines = append(lines, "r_s += r_k·∂f_k/∂s popping the tape (eq 1.11): one pass, all of ∇f")
	}
	if s.sw.Done() && s.exact != nil {
		if k := s.firstWrong(); k >= 0 {
			lines = append(lines, fmt.Sprintf("✗ naive backprop counts %s twice: ∂f/∂%s = %s, not %s",
				s.twice(), g.Node(g.Inputs()[k]).Name, num(s.naive[k]), num(s.exact[k])))
		} else {
			lines = append(lines, "✓ naive backprop agrees: no operation is read twice")
		}
	}
	switch {
	case s.failed != nil:
	case s.mode == ad.ForwardMode:
		lines = append(lines, fmt.Sprintf("memory: at most %d pair(s) held; a tape would hold %d", s.sw.Peak(), g.Len()))
	default:
		lines = append(lines, fmt.Sprintf("memory: the tape rises to %d entries, then empties", s.sw.Peak()))
	}
	return lines
}

// firstWrong is the first input whose naive derivative is wrong, or −1.
func (s *graphSim) firstWrong() int {
	for k := range s.g.Inputs() {
		if naiveWrong(s.exact[k], s.naive[k]) {
			return k
		}
	}
	return -1
}

// twice names the operations read by more than one node (fan-out).
func (s *graphSim) twice() string {
	g := s.g
	uses := make([]int, g.Len()+1)
	for i := range g.Len() {
		n := g.Node(i)
		uses[n.A+1]++ // index 0 counts absent arguments
		if n.B != n.A {
			uses[n.B+1]++
		}
	}
	var names []string
	for i := range g.Len() {
		if uses[i+1] > 1 && g.Node(i).Op.Arity() > 0 {
			names = append(names, nodeName(g, i))
		}
	}
	return strings.Join(names, ", ")
}

func (s *graphSim) Result() map[string]any {
	g := s.g
	out := g.Outputs()[s.out]
	res := map[string]any{
		"mode":  s.mode.String(),
		"nodes": g.Len(),
		"steps": s.sw.Steps(),
		"peak":  s.sw.Peak(),
		"done":  s.sw.Done(),
	}
	if s.valued(out) {
		res["f"] = g.Node(out).Value
	}
	if s.mode == ad.ForwardMode && s.known(out) {
		res["tangent"] = g.Node(out).Tangent
	}
	if s.exact != nil {
		res["gradient"] = s.exact
		res["naive"] = s.naive
	}
	if s.failed != nil {
		res["error"] = evalMessage(g, s.src, s.failed)
	}
	return res
}
