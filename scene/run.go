package scene

import (
	"fmt"

	"github.com/thelab/lab/sims"
)

// Result is where a pane's headless run ended: its last Frame, the steps
// made and why it stopped (nil when it made all it was asked;
// sims.ErrConverged when it converged; else the error).
type Result struct {
	Frame sims.Frame
	Steps int
	Err   error
	spec  *sims.Spec
}

// PaneSeed is the seed a pane runs with: its own, or the dashboard's rule
// for panes without one (the first pane 1, each next one more).
func (s Scene) PaneSeed(i int) uint64 {
	if p := s.Panes[i]; p.SeedSet {
		return p.Seed
	}
	return uint64(i) + 1
}

// Run builds every pane of a scene from the catalogue and steps it up to
// steps times headless, as lab run does, returning each pane's Result. A
// pane with a data file runs on its Table (Load reads it; a scene not
// read by Load cannot run it); a pane that cannot be built is an error.
func (s Scene) Run(cat *sims.Catalog, steps int) ([]Result, error) {
	out := make([]Result, len(s.Panes))
	for i, p := range s.Panes {
		if p.Data != "" && p.Table == nil {
			return nil, fmt.Errorf("scene %s, pane %d: runs on %s, not read (scene.Load reads it)", s.Name, i+1, p.Data)
		}
		spec := cat.Lookup(p.Sim)
		if spec == nil {
			return nil, fmt.Errorf("scene %s, pane %d: unknown sim %q", s.Name, i+1, p.Sim)
		}
		v, err := sims.Resolve(spec.Params, p.SetMap())
		if err != nil {
			return nil, fmt.Errorf("scene %s, pane %d: %v", s.Name, i+1, err)
		}
		sim, err := spec.Build(sims.Config{Values: v, Seed: s.PaneSeed(i), Data: p.Table, Headless: true, Workers: 1})
		if err != nil {
			return nil, fmt.Errorf("scene %s, pane %d: %v", s.Name, i+1, err)
		}
		r := Result{spec: spec}
		for r.Steps < steps {
			if err := sim.Step(); err != nil {
				r.Err = err
				break
			}
			r.Steps++
		}
		r.Frame = sim.Frame()
		out[i] = r
	}
	return out, nil
}

// Metric is a pane's metric in a run, by its key (as lab run --json
// writes it) or its name on screen, or an error saying it is missing or
// undefined.
func (r Result) Metric(name string) (float64, error) {
	if r.spec != nil {
		for _, d := range r.spec.Metrics {
			if d.Key == name {
				name = d.Name
			}
		}
	}
	for _, m := range r.Frame.Metrics {
		if m.Name == name {
			if m.Undefined != "" {
				return 0, fmt.Errorf("%s: %s is undefined: %s", r.Frame.Sim, name, m.Undefined)
			}
			return m.Value, nil
		}
	}
	return 0, fmt.Errorf("%s has no metric %q", r.Frame.Sim, name)
}
