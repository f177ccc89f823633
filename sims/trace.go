package sims

// Trace records a row of values per step (a loss, or the coordinates of an
// iterate) for a curve or a path, in bounded memory. It keeps the rows of
// steps first, first+s, first+2s, ... for a stride s that starts at 1 and
// doubles, dropping every other kept row, whenever the trace is full.
// Recording never allocates, and a snapshot holds at most TraceCap rows
// however long the run.
type Trace struct {
	cols   int
	y      []float64 // kept rows, flattened
	stride int
	first  int // step of the first row
	n      int // rows offered
}

// TraceCap is the number of rows a Trace keeps at most (even).
const TraceCap = 2048

// TraceBytes is the memory of a trace of cols columns at its fullest, and
// of a copy of each column (Column) that a Frame holds: what a sim's size
// counts for one.
func TraceBytes(cols int) int64 { return 2 * 8 * TraceCap * int64(cols) }

// TraceBytesAfter is the memory of a trace of cols columns (TraceCap rows,
// allocated when it is made) and of series curves a Frame copies from it
// after a run of steps steps (the trace keeps at most TraceCap of them):
// what a sim whose run has a bounded length counts for one.
func TraceBytesAfter(cols, series, steps int) int64 {
	return 8 * (TraceCap*int64(cols) + int64(min(steps, TraceCap))*int64(series))
}

// NewTrace returns an empty trace of rows of cols values, whose first row
// will be for step first.
func NewTrace(first, cols int) *Trace {
	return &Trace{cols: cols, y: make([]float64, 0, TraceCap*cols), stride: 1, first: first}
}

// Add records the row of the next step; it takes the trace's cols values.
func (t *Trace) Add(row ...float64) {
	i := t.n
	t.n++
	if i%t.stride != 0 {
		return
	}
	if len(t.y) == cap(t.y) {
		rows := len(t.y) / t.cols
		for j := 0; 2*j < rows; j++ {
			copy(t.y[j*t.cols:(j+1)*t.cols], t.y[2*j*t.cols:(2*j+1)*t.cols])
		}
		t.y = t.y[:(rows+1)/2*t.cols]
		t.stride *= 2
		if i%t.stride != 0 {
			return
		}
	}
	t.y = append(t.y, row...)
}

// Column returns a copy of column c of the kept rows, oldest first.
func (t *Trace) Column(c int) []float64 {
	rows := len(t.y) / t.cols
	out := make([]float64, rows)
	for j := range out {
		out[j] = t.y[j*t.cols+c]
	}
	return out
}

// Map returns f(step) at the steps of the kept rows, e.g. a theoretical
// bound to draw beside a curve.
func (t *Trace) Map(f func(step int) float64) []float64 {
	out := make([]float64, len(t.y)/t.cols)
	for j := range out {
		out[j] = f(t.first + j*t.stride)
	}
	return out
}

// Len is the number of rows offered.
func (t *Trace) Len() int { return t.n }

// Span returns the steps of the first and last kept rows, for a LineChart's
// X0 and X1.
func (t *Trace) Span() (x0, x1 float64) {
	rows := len(t.y) / t.cols
	return float64(t.first), float64(t.first + max(rows-1, 0)*t.stride)
}
