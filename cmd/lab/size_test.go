package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/sims/param"
)

// Size estimates are checked against what `lab run --memory` measures
// (outside the race detector, several configurations to a process, each
// measured from the live heap before it is built, after a collection, so
// that the garbage of the runs before it is not counted): the peak live
// heap of the sim once built, at every checkpoint of its run and with
// its last Frame held, must be at most Spec.Size's estimate (plus
// sizeNoise), and, at the default seed, the estimate at most sizeSlack
// times it (plus sizeFloor, for a measurement of a few kilobytes). sizeNoise is what the
// measurement itself varies by, whatever the sim: thirty runs of jacobian
// at m = n = 8 measured 59.5–65.1 kB, and one under the suite's load
// 71 kB against its estimate of 70 kB. A session's memory budget (lab serve)
// refuses a build by its estimate before anything is allocated, so an
// estimate below the truth lets a visitor past the budget, and one far
// above it turns honest visitors away.
const (
	sizeSlack = 1.5
	sizeFloor = 64 << 10
	sizeNoise = 16 << 10
)

// sizeConfig is one configuration to measure: the parameters set (the
// others at their defaults), the steps to run and how often to measure.
type sizeConfig struct {
	name         string
	set          map[string]string
	seed         int // 0: the default seed
	steps, every int
	extreme      bool // held to the guards, not to the size estimate
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
	// the explainer's window full (64 characters) from the first step
	"tinygpt/context=64,heads=16,train_steps=0,view=explain": 64,

	// linear models, optimisation, estimation, mixtures, samplers, inference

	// transport, kernels, random features, Gaussian processes, AD
	"kernel-geometry/demo=poly": 19, // the explicit map of degree 20, the largest, at the last step
}

// sizeLongSteps are the sims whose large configurations (each size
// parameter at its maximum, each choice, the combinations) must run longer
// than sizeMaxSteps to reach the memory they hold at their largest: a
// store that grows with each observation taken in or each point added,
// up to a bound its parameters set.
var sizeLongSteps = map[string]int{
	// networks, sequence models, generative models, diffusion, trust, privacy
	"bpe": 64, // a row of the merges' table a merge, up to the paragraph's ~50

	// linear models, optimisation, estimation, mixtures, samplers, inference
	"classifiers": 500,  // a forest's tree a step, up to trees = 500
	"gaussian":    2100, // the moments' trace and the kept points full, a draw a step

	// transport, kernels, random features, Gaussian processes, AD
	"gram":     120,  // a point a step, up to n = 120
	"gp":       1000, // an observation a step, up to n = 1000
	"implicit": 800,  // the circle's table, two rows a point, up to 400 points
}

// sizeCombos are configurations measured besides the defaults, each size
// parameter at its maximum and each choice: sizes that grow together, and
// the settings issue 25 found that hung, crashed or took gigabytes.
var sizeCombos = map[string][]map[string]string{
	// networks, sequence models, generative models, diffusion, trust, privacy
	"digits": {{"model": "cnn", "n": "50000", "layers": "3", "hidden": "1024", "filters": "64", "blocks": "3", "kernel": "7", "batch": "4096"}},
	"rnn":    {{"chars": "1000000", "hidden": "128", "context": "256", "batch": "128"}},
	"tinygpt": {{"context": "64", "batch": "64"},
		{"chars": "1000000", "dim": "128", "heads": "16", "layers": "6", "ffn": "1024", "context": "64", "batch": "64"},
		{"view": "explain", "train_steps": "0", "context": "64", "heads": "16"}}, // drawing from the first step, the widest maps

	// linear models, optimisation, estimation, mixtures, samplers, inference
	"softmax": {{"n": "20000", "classes": "8"}},
	"gd":      {{"fn": "logistic", "n": "20000"}, {"fn": "lsq", "method": "batches", "n": "20000", "schedule": "step"}},
	"laplace": {{"model": "logistic2d", "n": "1000"}},

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
	"svm-primal": {{"n": "5000", "C": "10000"}},                                   // its reference optimum by SMO took minutes
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
	// The defaults run at the default seed and at a second draw of the
	// data and the start (seed 2), as a user changing the seed would.
	// The defaults' run at the default seed goes on as far as the pacing
	// rule needs (storySteps).
	story := max(steps, storySteps(spec))
	cs := []sizeConfig{
		{name: "defaults", steps: story, every: max(1, story/8)},
		{name: "defaults,seed=2", seed: 2, steps: steps, every: max(1, steps/8)},
	}
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

// Every setting is also held to the guards of issue 25: a configuration
// at any extreme of its parameters (each integer's minimum and maximum,
// each real's ends, each choice) either runs or is refused with a
// message — never a crash, a hang or gigabytes. A run must end within
// settingTime and stay under settingRSS of resident memory; a refusal
// ends in state "refused" with its reason, a failure in "diverged" or
// "failed" with its reason, and the exit status is the worst (2, 1); a
// run that ends well reports only finite metrics.
const (
	settingTime = 20 * time.Second
	settingRSS  = 1 << 30
)

// extremeConfigs are the ends of spec's parameters that sizeConfigs does
// not run: each integer at its minimum, each real at its least and
// greatest (the least above an open minimum: 5e-324 above 0), but an end
// that is the parameter's default, which the defaults' runs go through.
// They are held to the guards, not to the size estimates.
func extremeConfigs(spec *sims.Spec) []sizeConfig {
	var cs []sizeConfig
	def := spec.Defaults()
	add := func(name string, x float64) {
		if d, err := strconv.ParseFloat(def.Text(name), 64); err == nil && d == x {
			return
		}
		v := strconv.FormatFloat(x, 'g', -1, 64)
		cs = append(cs, sizeConfig{name: name + "=" + v, set: map[string]string{name: v}, steps: extremeSteps, every: extremeSteps, extreme: true})
	}
	for _, p := range spec.Params {
		switch p.Kind {
		case param.KindInt:
			add(p.Name, p.Min)
		case param.KindFloat:
			lo := p.Min
			if p.OpenMin {
				lo = math.Nextafter(lo, math.Inf(1))
			}
			add(p.Name, lo)
			add(p.Name, p.Max)
		}
	}
	return cs
}

// exampleConfig is the setting of the example `lab help SIM` shows that
// sets a parameter (exampleSet, at exampleSeed), if it has one: built and
// stepped as an extreme is, held to the guards, in the process of the
// sim's extremes (TestEverySimsHelp checks the help shows this setting).
func exampleConfig(spec *sims.Spec) []sizeConfig {
	set, ok := exampleSet(spec)
	if !ok {
		return nil
	}
	name, value, _ := strings.Cut(set, "=")
	return []sizeConfig{{name: "example " + set, set: map[string]string{name: value}, seed: exampleSeed,
		steps: extremeSteps, every: extremeSteps, extreme: true}}
}

// extremeSteps are the steps of a run at an extreme: its build and first
// steps are where a setting breaks, and a few more where a value that is
// not finite creeps into a result. Of the 809 extremes of the 104 sims
// run 32 steps, 20 ended diverged or failed (with their reasons): 18 by
// step 6, and two only at steps 30 and 32 (blr at noise = 5e-324 and
// em-bernoulli at a = 1 + 2⁻⁵², whose results turn NaN late), which 16
// steps did not reach either; none ended well with a metric that was not
// finite. 8 steps reach the 18, at half the cost of 16.
const extremeSteps = 8

func TestSizeEstimates(t *testing.T) {
	for _, spec := range catalog.All().Specs() {
		// The settings of a sim run several to a process, one for each
		// --every (a process costs 30 ms of CPU before any sim works, and
		// the settings were 1,461 processes); the processes run as
		// parallel subtests.
		groups := map[int][]sizeConfig{}
		for _, c := range append(append(sizeConfigs(spec), extremeConfigs(spec)...), exampleConfig(spec)...) {
			groups[c.every] = append(groups[c.every], c)
		}
		for _, every := range slices.Sorted(maps.Keys(groups)) {
			cs := groups[every]
			t.Run(fmt.Sprintf("%s/every=%d", spec.Name, every), func(t *testing.T) {
				t.Parallel()
				for i, r := range runBatch(t, spec, every, cs) {
					checkSize(t, spec, cs[i], r)
				}
			})
		}
	}
}

// checkSize holds the run r of the setting c of spec to its size estimate,
// and the run of the defaults to the pacing rule.
func checkSize(t *testing.T, spec *sims.Spec, c sizeConfig, r settingRun) {
	t.Helper()
	if c.name == "defaults" {
		checkPacing(t, spec, r)
	}
	switch {
	case c.extreme || r.refused: // an extreme is held to the guards only
	case r.peak > r.est+sizeNoise:
		t.Errorf("lab %s: holds %s, estimated %s (%.2f×)", r.cmd, sims.Bytes(r.peak), sims.Bytes(r.est), float64(r.peak)/float64(r.est))
	case c.seed == 0 && float64(r.est) > sizeSlack*float64(r.peak)+sizeFloor:
		// How tight the bound is, is judged on the default draw: another
		// may hold less (bpe's second paragraph merges fewer pairs).
		t.Errorf("lab %s: holds %s, estimated %s: more than %g× (+%s)", r.cmd, sims.Bytes(r.peak), sims.Bytes(r.est), sizeSlack, sims.Bytes(sizeFloor))
	}
}

// settingRun is what a guarded run of a setting came to.
type settingRun struct {
	cmd       string // the command that runs the setting alone, for messages
	refused   bool   // the sim refused the setting
	peak, est int64  // of --memory
	state     string
	step      int // the final line's step
}

// settingArgs are the arguments of `lab run` for the setting c of spec.
func settingArgs(spec *sims.Spec, c sizeConfig) []string {
	args := []string{spec.Name, "--steps", strconv.Itoa(c.steps)}
	if c.seed != 0 {
		args = append(args, "--seed", strconv.Itoa(c.seed))
	} else {
		args = append(args, "--seed", "1") // a run among several would take the next seed
	}
	for _, k := range slices.Sorted(maps.Keys(c.set)) {
		args = append(args, "--set", k+"="+c.set[k])
	}
	return args
}

// runBatch runs the settings cs of spec with `lab run --json --memory
// --every every`, all in one process, fails the test on any breach of the
// guards, and returns what each came to. Each run must end within
// settingTime of the one before it, and the process, whichever of its
// runs is the largest, must stay under settingRSS of resident memory: a
// run in its own process would hold no more. --memory measures each run
// from the heap before it is built, so what the runs before it left
// behind is not counted.
func runBatch(t *testing.T, spec *sims.Spec, every int, cs []sizeConfig) []settingRun {
	t.Helper()
	flags := []string{"--json", "--memory", "--every", strconv.Itoa(every)}
	args := append([]string{"run"}, flags...)
	rs := make([]settingRun, len(cs))
	for i, c := range cs {
		a := settingArgs(spec, c)
		args = append(args, a...)
		rs[i].cmd = "run " + strings.Join(append(a, flags...), " ")
	}
	cmd := exec.Command(labBin, args...)
	// The processes run as parallel subtests, as many at once as there
	// are cores: each gets one, and with GOMAXPROCS=1 its runtime does not
	// spin a second thread looking for work or run the collector's
	// workers beside it (a third of the CPU of a short run with --memory,
	// a sixth of tinygpt's).
	cmd.Env = append(os.Environ(), "GOMAXPROCS=1")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string)
	go func() {
		defer close(lines)
		rd := bufio.NewReader(pipe)
		for {
			line, err := rd.ReadString('\n')
			if line != "" {
				lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	// Each run's lines, as they come: a run ends with its final line, and
	// the next must end within settingTime of it.
	runs := make([][]string, 0, len(cs))
	var cur []string
	timer := time.NewTimer(settingTime)
	for open := true; open; {
		select {
		case line, ok := <-lines:
			if !ok {
				open = false
				break
			}
			cur = append(cur, line)
			if strings.Contains(line, `"final":true`) {
				runs, cur = append(runs, cur), nil
				timer.Reset(settingTime)
			}
		case <-timer.C:
			cmd.Process.Kill()
			for range lines {
			}
			cmd.Wait()
			t.Fatalf("lab %s did not end within %v", rs[min(len(runs), len(cs)-1)].cmd, settingTime)
		}
	}
	timer.Stop()
	cmd.Wait()
	msg := stderr.String()
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok && ru.Maxrss<<10 > settingRSS {
		t.Errorf("lab %s: resident memory reached %s, over %s", strings.Join(args, " "), sims.Bytes(ru.Maxrss<<10), sims.Bytes(settingRSS))
	}
	if strings.Contains(msg, "panic") || strings.Contains(msg, "fatal error") || strings.Contains(msg, "crashed") {
		t.Fatalf("lab %s crashed:\n%s", rs[min(len(runs), len(cs)-1)].cmd, msg)
	}
	if len(cs) == 1 && len(runs) == 0 && cmd.ProcessState.ExitCode() == 2 && strings.TrimSpace(msg) != "" {
		rs[0].refused = true // a run alone is refused by its status and message, no line
		return rs
	}
	if len(runs) < len(cs) {
		t.Fatalf("lab %s: the process ended (%v) before its final line\n%s", rs[len(runs)].cmd, cmd.ProcessState, msg)
	}
	worst := 0
	for i := range cs {
		run := 0 // a run alone does not say its number
		if len(cs) > 1 {
			run = i + 1
		}
		checkRun(t, spec, cs[i], &rs[i], runs[i], run)
		switch {
		case rs[i].refused:
			worst = 2
		case rs[i].state == "diverged" || rs[i].state == "failed":
			worst = max(worst, 1)
		}
	}
	if code := cmd.ProcessState.ExitCode(); code != worst {
		t.Errorf("lab %s: exit status %d, want %d, the worst of its runs'\n%s", strings.Join(args, " "), code, worst, msg)
	}
	return rs
}

// checkRun holds the JSON lines of the run of setting c (number run among
// several, or 0) to the form of --json and the guards, and fills r.
func checkRun(t *testing.T, spec *sims.Spec, c sizeConfig, r *settingRun, lines []string, run int) {
	t.Helper()
	// Every line's metrics are declared on the spec (so that lab help
	// lists them with their meanings): each choice is run here, outside
	// the race detector, rather than built again in the catalogue's tests.
	type jsonLine struct {
		Sim       string
		Run       int
		Step      int
		Final     bool
		Result    json.RawMessage
		State     string
		Reason    string
		Metrics   map[string]*float64
		Undefined map[string]string
		Memory    *struct{ Estimate, Peak int64 }
	}
	var last jsonLine
	undeclared := map[string]bool{}
	for i, line := range lines {
		last = jsonLine{}
		if err := json.Unmarshal([]byte(line), &last); err != nil {
			t.Fatalf("lab %s: line %d is not JSON (%v): %s", r.cmd, i+1, err, line)
		}
		if last.State == "refused" {
			if len(lines) != 1 || last.Sim != spec.Name || last.Run != run || strings.TrimSpace(last.Reason) == "" {
				t.Errorf("lab %s was refused without a reason, or not alone: %s", r.cmd, line)
			}
			r.refused = true
			return
		}
		// The lines' form: each names the sim (and the run) and has
		// metrics, the first at step --every, and the last alone is
		// final, with the result (a run that converges within --every
		// steps prints only its final line).
		final := i == len(lines)-1
		if last.Sim != spec.Name || last.Run != run || last.Metrics == nil || last.Final != final || (last.Result != nil) != final ||
			i == 0 && !final && last.Step != c.every {
			t.Errorf("lab %s: line %d of %d is not of the form of --json: %.200s", r.cmd, i+1, len(lines), line)
		}
		for key := range last.Metrics {
			if !undeclared[key] && !slices.ContainsFunc(spec.Metrics, func(d sims.MetricDecl) bool { return d.Key == key }) {
				undeclared[key] = true
				t.Errorf("lab %s: metric %q is not declared in %s's Metrics", r.cmd, key, spec.Name)
			}
		}
	}
	if last.State == "" || last.Memory == nil {
		t.Fatalf("lab %s: no final line with a state and memory: %s", r.cmd, lines[len(lines)-1])
	}
	r.state, r.step = last.State, last.Step
	r.peak, r.est = last.Memory.Peak, last.Memory.Estimate
	switch last.State {
	case "diverged", "failed":
		if strings.TrimSpace(last.Reason) == "" {
			t.Errorf("lab %s: %s without a reason", r.cmd, last.State)
		}
	case "converged", "stopped":
		for name, v := range last.Metrics {
			if v == nil && last.Undefined[name] == "" {
				t.Errorf("lab %s ended %s with metric %s not finite, and no reason", r.cmd, last.State, name)
			}
		}
	default:
		t.Errorf("lab %s: state %q", r.cmd, last.State)
	}
}
