// Package sims is the lab's runtime: the catalogue entry of a sim (Spec),
// its parameters, the Frames it yields, and the Runner that drives one sim in
// its own goroutine.
//
// A sim is an engine from algo/ together with its data, its parameters and
// the description of what to draw. The TUI, the headless output and the
// tests all read its Frames; none of them touches the engine.
package sims

import (
	"fmt"
	"slices"
	"time"

	"github.com/thelab/lab/algo"
)

// Errors that end a run cleanly. Step returns them (possibly wrapped).
var (
	ErrConverged = algo.ErrConverged
	ErrDiverged  = algo.ErrDiverged
)

// Sim is one running instance: an engine, its data and what to draw.
type Sim interface {
	// Step advances one iteration. It returns nil, an error wrapping
	// ErrConverged when the stopping rule is met, an error wrapping
	// ErrDiverged when the iterate has blown up, or any other error when
	// the engine fails.
	Step() error
	// Frame returns an immutable snapshot of what to show now. It is
	// called on the same goroutine as Step (never concurrently with it), so
	// it may refresh caches such as an expensive diagnostic, but it must
	// stay cheap: a runner calls it up to 30 times a second.
	Frame() Frame
	// Result returns the run's outcome for headless output: JSON-encodable
	// values such as the final iterate or the fitted parameters.
	Result() map[string]any
}

// Settler is implemented by sims whose Frames refresh an expensive cache
// only now and then, so that a running pane stays cheap however fast it
// goes (the samplers' convergence diagnostics). Settle brings the cache up
// to date; a runner calls it before every Frame it publishes while the sim
// is not running (paused, stepped or finished — every Frame of `lab run`),
// when there is no hurry and the figures should be current.
type Settler interface {
	Settle()
}

// Tuner is implemented by the sims of a spec with Live parameters
// (param.Param.Live). Tune adopts v, which differs from the values the
// sim runs with only in live parameters, without building it again: the
// run goes on from where it is (tinygpt's explainer redraws its bars
// after a new temperature instead of training again). A runner calls it
// on its loop, between steps.
type Tuner interface {
	Tune(v Values) error
}

// Config is everything a sim is built from.
type Config struct {
	Values Values
	Seed   uint64
	Data   *Table // from --data; nil when none was given
	// Headless says that nobody watches the run (lab run): a sim may
	// accept a configuration whose steps are too slow for a live pane,
	// which in a pane it refuses with the headless command to run instead.
	Headless bool
	// Workers is the number of goroutines an engine may use for one step
	// (0: GOMAXPROCS, 1: the stepping goroutine only). No result depends
	// on it (package algo/par). A session whose CPU is budgeted by the
	// CPU time of the thread that steps (lab serve) sets 1.
	Workers int
	// Files opens the files parameters name; nil is the local file
	// system (see Files).
	Files Files
}

// Spec is the catalogue entry of a sim.
type Spec struct {
	Name   string // what the user types: `lab run gd`
	Title  string // one line for the catalogue
	Source string // the seed and section it implements
	Params []Param
	// Metrics declares every metric its Frames publish, in display order:
	// key, display name and meaning (MetricDecl).
	Metrics []MetricDecl
	// Data says how a --data CSV is used; "" means the sim takes no data.
	Data string
	// DataText lists the columns of --data that hold words from a fixed
	// list rather than numbers (LoadCSV stores each as its index).
	DataText []TextColumn
	// DataFile names the Text parameter holding the path of a file that
	// the sim reads whole (a text for a language model) rather than as a
	// CSV table: for such a sim `--data FILE` is `--set DataFile=FILE`,
	// and Data says what the file is. Under lab serve the file opens
	// through Config.Files, as every parameter that names a file does.
	DataFile string
	// Steps is the default number of steps of a headless run.
	Steps int
	// Speed is the steps per second at which a pane starts: slow enough to
	// watch, one of Speeds (the notches the speed keys move through; 0,
	// MaxSpeed, means as fast as it goes). The pacing rule
	// (docs/adding-a-sim.md): at Speed the default run's story — the steps
	// up to convergence, or its declared end — lasts at least about 20 s,
	// unless the sim Replays, and its famous result comes within 120 s.
	Speed float64
	// Replay is, for a sim whose default story is a short fixed sequence
	// of steps (the sweeps of reverse-mode AD, one Newton solve), how long
	// a pane shows its converged run before it starts the next seed's,
	// so that a pane left open keeps teaching; 0: a converged run stays.
	// Headless runs (lab run) never replay.
	Replay time.Duration
	// Famous is, for a sim whose run has no end (training, sampling), the
	// step by which its default run in a pane shows the result it is
	// famous for (vae: digits a person can name); 0 when that is its
	// convergence, or when its result is there from the start. A test of
	// the sim checks the result at this step, and the catalogue's that it
	// comes within MaxStory at Speed.
	Famous int
	// New builds a sim. It returns an error (never panics) when the
	// configuration cannot be run, naming the parameter at fault.
	New func(Config) (Sim, error)
	// Size estimates the bytes that the sim New would build from a
	// configuration holds at its largest: the live heap of the sim, its
	// engine, its data and the Frame it last made, once built and as it
	// runs (garbage is the collector's to reclaim). lab serve charges it to
	// the session, and to the server's total, before anything is built, so
	// it allocates nothing and reads only the configuration. It must be at
	// least what the sim holds and at most 1.5 times that: cmd/lab's
	// TestSizeEstimates measures every sim (lab run --memory) at its
	// defaults, at each integer parameter's maximum and at each choice.
	Size func(Config) int64
}

// The pacing rule (docs/adding-a-sim.md): at its Speed a sim's default
// story lasts at least MinStory, unless it Replays, and shows its famous
// result within MaxStory.
const (
	MinStory = 20 * time.Second
	MaxStory = 120 * time.Second
)

// ReplayPause is the Replay of the sims that declare one: how long a
// short story's result stays on show before the next seed's starts, long
// enough to read its conclusion.
const ReplayPause = 10 * time.Second

// EstimateSize is the estimated bytes the sim built from cfg holds at its
// largest (Size). A Size that panics (on data the sim will refuse, say)
// counts as MaxBytes: as large as any sim may be.
func (s *Spec) EstimateSize(cfg Config) int64 {
	n, err := s.size(cfg)
	if err != nil {
		return MaxBytes
	}
	return n
}

// size is Size's estimate, or the panic it raised as an error.
func (s *Spec) size(cfg Config) (n int64, err error) {
	if cfg.Values.IsZero() {
		cfg.Values = s.Defaults()
	}
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w while estimating %s's size: %v", ErrPanic, s.Name, p)
		}
	}()
	return s.Size(cfg), nil
}

// Defaults returns the spec's parameters all at their defaults.
func (s *Spec) Defaults() Values {
	v, err := Resolve(s.Params, nil)
	if err != nil {
		panic(err) // defaults are validated when the catalogue is built
	}
	return v
}

// MaxBytes is the most one sim may hold, whoever builds it (the local
// lab, lab run, a visitor): a configuration estimated above it is refused
// before anything is built, so that no setting the lab accepts can run the
// machine out of memory. It also bounds a step's time: a step's first
// touch of fresh memory costs the kernel (and a VM's host) a page fault
// per page — 4.2 ms per MB measured on the lab's 2-core VM, so that
// tinygpt at context 64 and batch 64 (275 MB) took 1.55 s for its first
// step and 0.13 s for each after it. 192 MiB holds every sim at its
// defaults many times over, and each size parameter at its maximum
// alone (the largest, 160 MB), and keeps any first step under a second.
const MaxBytes = 192 << 20

// SizeError is a configuration refused because its estimate is over
// MaxBytes.
type SizeError struct {
	Sim  string
	Need int64
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("with these parameters it would hold about %s, more than the %s the lab lets one sim hold: choose smaller sizes",
		Bytes(e.Need), Bytes(MaxBytes))
}

// Build validates a configuration for this spec and builds the sim; a
// configuration whose estimate is over MaxBytes is refused (*SizeError).
func (s *Spec) Build(cfg Config) (Sim, error) {
	if cfg.Data != nil && s.Data == "" {
		return nil, fmt.Errorf("sim %s takes no --data", s.Name)
	}
	if cfg.Values.IsZero() {
		cfg.Values = s.Defaults()
	}
	if s.Size == nil {
		return s.New(cfg)
	}
	need, err := s.size(cfg)
	if err == nil && need > MaxBytes {
		return nil, &SizeError{Sim: s.Name, Need: need}
	}
	sim, newErr := s.New(cfg)
	if newErr != nil || err == nil {
		return sim, newErr // a configuration whose size cannot be estimated is most often one the sim refuses
	}
	return nil, err // the sim took what its size estimate could not: a bug, reported, not run unbounded
}

// Catalog is an ordered set of specs with unique names, in families.
type Catalog struct {
	specs  []*Spec
	fams   []Family       // nil: one family without a name
	family map[string]int // a sim's name → its family's index in fams
}

// Family is a heading of the catalogue: the sims of one area of the notes
// ("optimal transport"), with words that say what it holds (About), which
// a search matches too.
type Family struct {
	Name, About string
	Specs       []*Spec
}

// NewCatalog checks that names are unique and that every default
// validates: a catalogue of one family without a name.
func NewCatalog(specs ...*Spec) (*Catalog, error) {
	c := &Catalog{}
	for _, s := range specs {
		if c.Lookup(s.Name) != nil {
			return nil, fmt.Errorf("sims: duplicate sim name %q", s.Name)
		}
		if s.Size == nil {
			return nil, fmt.Errorf("sims: %s declares no Size: a session's memory budget charges every sim by its estimate", s.Name)
		}
		if _, err := Resolve(s.Params, nil); err != nil {
			return nil, fmt.Errorf("sims: %s: %w", s.Name, err)
		}
		if err := checkMetrics(s.Metrics); err != nil {
			return nil, fmt.Errorf("sims: %s: %w", s.Name, err)
		}
		c.specs = append(c.specs, s)
	}
	return c, nil
}

// NewFamilies is NewCatalog of the families' sims, in order, under their
// headings. Each family must have a name and a sim.
func NewFamilies(fams ...Family) (*Catalog, error) {
	var specs []*Spec
	family := map[string]int{}
	for i, f := range fams {
		if f.Name == "" || len(f.Specs) == 0 {
			return nil, fmt.Errorf("sims: family %d (%q) needs a name and a sim", i, f.Name)
		}
		for _, s := range f.Specs {
			family[s.Name] = i
		}
		specs = append(specs, f.Specs...)
	}
	c, err := NewCatalog(specs...)
	if err != nil {
		return nil, err
	}
	c.fams, c.family = slices.Clone(fams), family
	return c, nil
}

// Specs lists the catalogue in order.
func (c *Catalog) Specs() []*Spec { return slices.Clone(c.specs) }

// Families lists the catalogue's families in order (a catalogue made by
// NewCatalog: one, without a name).
func (c *Catalog) Families() []Family {
	if c.fams == nil {
		return []Family{{Specs: c.Specs()}}
	}
	out := make([]Family, len(c.fams))
	for i, f := range c.fams {
		out[i] = Family{Name: f.Name, About: f.About}
	}
	for _, s := range c.specs {
		i := c.family[s.Name]
		out[i].Specs = append(out[i].Specs, s)
	}
	return out
}

// FamilyOf is the name of the family of the named sim ("" when it has
// none).
func (c *Catalog) FamilyOf(name string) string {
	if i, ok := c.family[name]; ok {
		return c.fams[i].Name
	}
	return ""
}

// Lookup returns the named spec, or nil.
func (c *Catalog) Lookup(name string) *Spec {
	for _, s := range c.specs {
		if s.Name == name {
			return s
		}
	}
	return nil
}

// WithFiles is the catalogue with every sim built under the file access
// f, however its Config was made (lab serve: its visitors' sims open no
// file but by name from the operator's --data-dir).
func (c *Catalog) WithFiles(f Files) *Catalog {
	out := &Catalog{specs: make([]*Spec, len(c.specs)), fams: c.fams, family: c.family}
	for i, s := range c.specs {
		cp := *s
		if build := s.New; build != nil {
			cp.New = func(cfg Config) (Sim, error) {
				cfg.Files = f
				return build(cfg)
			}
		}
		out.specs[i] = &cp
	}
	return out
}

// Names lists the sim names in order.
func (c *Catalog) Names() []string {
	names := make([]string, len(c.specs))
	for i, s := range c.specs {
		names[i] = s.Name
	}
	return names
}
