package sims

import (
	"fmt"
	"math"
	"strconv"
)

// MetricDecl declares one metric a sim publishes: the one source of its
// display name, its key and its meaning. The pane's header shows Name
// ("ε one", "batch loss": they read well on screen); `lab run` prints and
// --json writes Key, a stable ASCII identifier a script can rely on
// ("eps_one", "batch_loss"); `lab help SIM` lists Key, Name and Meaning.
// A Frame's Metric names its declaration by Name.
type MetricDecl struct {
	Name    string
	Key     string
	Meaning string // one line: what it measures, in the notes' terms
}

// Declare declares a metric whose display name is already an ASCII
// identifier ("grad_norm", "W1"), and is its key.
func Declare(name, meaning string) MetricDecl {
	return MetricDecl{Name: name, Key: name, Meaning: meaning}
}

// DeclareAs declares a metric shown as name and keyed key ("ε one",
// "eps_one").
func DeclareAs(name, key, meaning string) MetricDecl {
	return MetricDecl{Name: name, Key: key, Meaning: meaning}
}

// IsMetricKey reports whether k is a valid metric key: an ASCII letter
// followed by ASCII letters, digits and underscores.
func IsMetricKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		letter := 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
		if !letter && (i == 0 || !('0' <= c && c <= '9' || c == '_')) {
			return false
		}
	}
	return true
}

// checkMetrics validates a spec's metric declarations: each with a name,
// a key that IsMetricKey and a meaning, no name or key twice. (That every
// metric a sim publishes is declared is sims/catalog's test: it takes
// running the sim.)
func checkMetrics(ds []MetricDecl) error {
	names, keys := map[string]bool{}, map[string]bool{}
	for _, d := range ds {
		switch {
		case d.Name == "" || d.Meaning == "":
			return fmt.Errorf("metric %q (key %q) needs a name and a meaning", d.Name, d.Key)
		case !IsMetricKey(d.Key):
			return fmt.Errorf("metric %q: key %q is not an ASCII identifier", d.Name, d.Key)
		case names[d.Name]:
			return fmt.Errorf("metric %q declared twice", d.Name)
		case keys[d.Key]:
			return fmt.Errorf("metric key %q declared twice", d.Key)
		}
		names[d.Name], keys[d.Key] = true, true
	}
	return nil
}

// Metric is the declaration of the metric the pane shows as name.
func (s *Spec) Metric(name string) (MetricDecl, bool) {
	for _, d := range s.Metrics {
		if d.Name == name {
			return d, true
		}
	}
	return MetricDecl{}, false
}

// MetricKey is the key of the metric shown as name: its declared Key, or
// name itself for a metric not declared (which the catalogue's tests
// refuse).
func (s *Spec) MetricKey(name string) string {
	if d, ok := s.Metric(name); ok {
		return d.Key
	}
	return name
}

// FormatMetric writes a metric's value as `lab run` prints it, in text
// and JSON: the shortest form that reads back exactly, and null when it
// has none (undefined or not finite).
func FormatMetric(m Metric) string {
	if m.Undefined != "" || math.IsNaN(m.Value) || math.IsInf(m.Value, 0) {
		return "null"
	}
	return strconv.FormatFloat(m.Value, 'g', -1, 64)
}

// Why is the reason a metric has no value ("" when it has one): its
// Undefined, or what it is when it is not finite.
func (m Metric) Why() string {
	switch {
	case m.Undefined != "":
		return m.Undefined
	case math.IsNaN(m.Value):
		return "not a number (NaN)"
	case math.IsInf(m.Value, 0):
		return fmt.Sprintf("infinite (%v)", m.Value)
	}
	return ""
}
