package main

import (
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/sims/param"
)

// Size estimates are checked against what `lab run --memory` measures, each
// configuration in a process of its own (so that nothing else's garbage or
// caches are counted, and without the race detector's slowness): the peak
// live heap of the sim once built, at every checkpoint of its run and with
// its last Frame held, must be at most Spec.Size's estimate, and the
// estimate at most sizeSlack times it (plus sizeFloor, the noise of a
// measurement of a few kilobytes). A session's memory budget (lab serve)
// refuses a build by its estimate before anything is allocated, so an
// estimate below the truth lets a visitor past the budget, and one far
// above it turns honest visitors away.
const (
	sizeSlack = 1.5
	sizeFloor = 64 << 10
)

// sizeConfig is one configuration to measure: the parameters set (the
// others at their defaults), the steps to run and how often to measure.
type sizeConfig struct {
	name         string
	set          map[string]string
	steps, every int
}

// Steps of the measured runs. The defaults run long enough for every
// lazily made buffer (a tape's nodes, an evaluation's batch) to exist;
// the large configurations build and take a few steps, which allocate
// what their later steps reuse. sizeSteps lengthens the default run of a
// sim whose memory grows to its bound over more steps than that, and
// sizeLongSteps the runs of its large configurations.
const (
	sizeDefaultSteps = 64
	sizeMaxSteps     = 4
)

// sizeSteps are the sims whose default run must be longer to reach the
// memory it holds at its largest (a bounded store of draws filling up),
// and, keyed sim/configuration (the subtest's name), the other
// configurations whose store fills over more than sizeMaxSteps steps (a
// choice, or a maximum, that makes it larger).
var sizeSteps = map[string]int{
	// networks, sequence models, generative models, diffusion, trust, privacy
	"optimizers":                   2047, // its traces full (2048 rows, with the first), and the Frame's copies
	"optimizers/surface=quadratic": 2047,
	"optimizers/surface=saddle":    2047,
	"diffusion/steps=5000":         1000, // the trails' 1000 points
	"score-match/n=20000":          3008, // the samplers of the sampling phase, after the 3000 training steps
	"randomized-response":          2048, // its trace full, and the Frame's copies

	// linear models, optimisation, estimation, mixtures, samplers, inference

	// transport, kernels, random features, Gaussian processes, AD
}

// sizeLongSteps are the sims whose large configurations (each size
// parameter at its maximum, each choice, the combinations) must run longer
// than sizeMaxSteps to reach the memory they hold at their largest: a
// store that grows with each observation taken in or each point added,
// up to a bound its parameters set.
var sizeLongSteps = map[string]int{
	// networks, sequence models, generative models, diffusion, trust, privacy

	// linear models, optimisation, estimation, mixtures, samplers, inference

	// transport, kernels, random features, Gaussian processes, AD
	"gram":     120,  // a point a step, up to n = 120
	"gp":       1000, // an observation a step, up to n = 1000
	"implicit": 800,  // the circle's table, two rows a point, up to 400 points
}

// sizeCombos are configurations measured besides the defaults, each size
// parameter at its maximum and each choice: sizes that grow together.
var sizeCombos = map[string][]map[string]string{
	// networks, sequence models, generative models, diffusion, trust, privacy

	// linear models, optimisation, estimation, mixtures, samplers, inference

	// transport, kernels, random features, Gaussian processes, AD
	"assignment": {{"preset": "gaussians", "n": "300"}}, // the default preset is a worked example
	"ot-lp":      {{"n": "200", "m": "200"}},
	"ot-1d":      {{"preset": "samples", "n": "100000", "m": "100000"}, {"preset": "gauss-hist", "n": "100000"}},
	"sinkhorn":   {{"preset": "gaussians", "n": "1000", "m": "1000"}}, // gauss-hist has one support: m is n
	"barycenter": {{"input": "shapes", "grid": "128"}},
	"jacobian":   {{"n": "8", "m": "8"}},
	"hessian":    {{"fn": "chain", "n": "6", "k": "2000"}},                        // the Rosenbrock function has no K
	"implicit":   {{"demo": "circle", "points": "400"}},                           // the other demos have no points
	"coloring":   {{"problem": "path", "n": "16"}, {"problem": "grid", "n": "4"}}, // the notes' problem is fixed
}

// sizeConfigs are the configurations of spec to measure: its defaults,
// each integer parameter at its maximum, each value of each choice, and
// its combinations of sizeCombos. A configuration the sim refuses (a
// maximum that contradicts another parameter's default) is skipped: it is
// never built, so never charged.
func sizeConfigs(spec *sims.Spec) []sizeConfig {
	steps := sizeDefaultSteps
	if n, ok := sizeSteps[spec.Name]; ok {
		steps = n
	}
	cs := []sizeConfig{{name: "defaults", steps: steps, every: max(1, steps/8)}}
	def := spec.Defaults()
	for _, p := range spec.Params {
		switch p.Kind {
		case param.KindInt:
			v := strconv.Itoa(int(p.Max))
			cs = append(cs, sizeConfig{name: p.Name + "=" + v, set: map[string]string{p.Name: v}})
		case param.KindChoice:
			for _, c := range p.Choices {
				if c != def.Text(p.Name) {
					cs = append(cs, sizeConfig{name: p.Name + "=" + c, set: map[string]string{p.Name: c}})
				}
			}
		}
	}
	for _, set := range sizeCombos[spec.Name] {
		var words []string
		for _, k := range slices.Sorted(maps.Keys(set)) {
			words = append(words, k+"="+set[k])
		}
		cs = append(cs, sizeConfig{name: strings.Join(words, ","), set: set})
	}
	long := max(sizeMaxSteps, sizeLongSteps[spec.Name])
	for i := range cs {
		if n, ok := sizeSteps[spec.Name+"/"+cs[i].name]; ok {
			cs[i].steps, cs[i].every = n, max(1, n/8)
		} else if cs[i].steps == 0 {
			cs[i].steps, cs[i].every = long, max(1, long/8)
		}
	}
	return cs
}

func TestSizeEstimates(t *testing.T) {
	for _, spec := range catalog.All().Specs() {
		for _, c := range sizeConfigs(spec) {
			t.Run(spec.Name+"/"+c.name, func(t *testing.T) {
				t.Parallel()
				if spec.Size == nil {
					t.Fatalf("%s declares no Size", spec.Name)
				}
				args := []string{"run", spec.Name, "--json", "--memory",
					"--steps", strconv.Itoa(c.steps), "--every", strconv.Itoa(c.every)}
				for _, k := range slices.Sorted(maps.Keys(c.set)) {
					args = append(args, "--set", k+"="+c.set[k])
				}
				peak, est, refused, err := measureSize(args)
				switch {
				case err != nil:
					t.Fatal(err)
				case refused != "":
					t.Skipf("refused: %s", refused)
				case peak > est:
					t.Errorf("lab %s: holds %s, estimated %s (%.2f×)", strings.Join(args, " "), sims.Bytes(peak), sims.Bytes(est), float64(peak)/float64(est))
				case float64(est) > sizeSlack*float64(peak)+sizeFloor:
					t.Errorf("lab %s: holds %s, estimated %s: more than %g× (+%s)", strings.Join(args, " "), sims.Bytes(peak), sims.Bytes(est), sizeSlack, sims.Bytes(sizeFloor))
				}
			})
		}
	}
}

// measureSize runs `lab args…` (a run with --json --memory) and returns
// the peak and the estimate it reports, or the message of a configuration
// the sim refuses (exit status 2).
func measureSize(args []string) (peak, est int64, refused string, err error) {
	cmd := exec.Command(labBin, args...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 2 {
		return 0, 0, strings.TrimSpace(stderr.String()), nil
	}
	// A run that diverges or fails (status 1) still reports its memory.
	if ee, ok := err.(*exec.ExitError); err != nil && (!ok || ee.ExitCode() != 1) {
		return 0, 0, "", fmt.Errorf("lab %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	var last struct {
		Memory *struct{ Estimate, Peak int64 }
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil || last.Memory == nil {
		return 0, 0, "", fmt.Errorf("lab %s: no memory in its last line (%v): %s\n%s", strings.Join(args, " "), err, lines[len(lines)-1], stderr.String())
	}
	return last.Memory.Peak, last.Memory.Estimate, "", nil
}
