package sims

// Level is a flat line at one value for a Frame's chart beside a Trace's
// columns (an exact mean, an entropy): made once with room for TraceCap
// rows, it hands every Frame a prefix of itself, which nothing writes
// again, where Trace.Map would copy a fresh column each Frame.
type Level []float64

// NewLevel is the line at v.
func NewLevel(v float64) Level {
	l := make(Level, TraceCap)
	for i := range l {
		l[i] = v
	}
	return l
}

// Of is the line as long as t's kept rows (t.Map of the constant).
func (l Level) Of(t *Trace) []float64 {
	rows := len(t.y) / t.cols
	return l[:rows:rows]
}
