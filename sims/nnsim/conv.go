package nnsim

import (
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/conv"
	"github.com/thelab/lab/algo/digits"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/param"
)

// convImage is the conv sim's input.
type convImage string

func (c convImage) String() string { return string(c) }

const (
	imgEx101 convImage = "ex10.1"
	imgGrid3 convImage = "grid3"
	imgDigit convImage = "digit"
)

// kernelName names a kernel of the conv sim.
type kernelName string

func (k kernelName) String() string { return string(k) }

const (
	kCross    kernelName = "cross"
	kW2x2     kernelName = "w2x2"
	kSobelX   kernelName = "sobel-x"
	kSobelY   kernelName = "sobel-y"
	kLaplace  kernelName = "laplace"
	kBlur     kernelName = "blur"
	kBox      kernelName = "box"
	kIdentity kernelName = "identity"
)

// kernels are the weights, row by row, and the side.
var kernels = map[kernelName]struct {
	side int
	w    []float64
}{
	kCross:    {3, []float64{1, 0, 1, 0, 1, 0, 1, 0, 1}},
	kW2x2:     {2, []float64{1, 2, 3, 4}},
	kSobelX:   {3, []float64{-1, 0, 1, -2, 0, 2, -1, 0, 1}},
	kSobelY:   {3, []float64{-1, -2, -1, 0, 0, 0, 1, 2, 1}},
	kLaplace:  {3, []float64{0, 1, 0, 1, -4, 1, 0, 1, 0}},
	kBlur:     {3, []float64{1. / 16, 2. / 16, 1. / 16, 2. / 16, 4. / 16, 2. / 16, 1. / 16, 2. / 16, 1. / 16}},
	kBox:      {3, []float64{1. / 9, 1. / 9, 1. / 9, 1. / 9, 1. / 9, 1. / 9, 1. / 9, 1. / 9, 1. / 9}},
	kIdentity: {3, []float64{0, 0, 0, 0, 1, 0, 0, 0, 0}},
}

// padding is how the conv sim pads.
type padding string

func (p padding) String() string { return string(p) }

const (
	padValid  padding = "valid"
	padSame   padding = "same"
	padCustom padding = "custom"
)

// conv's parameters.
var (
	cvImage = param.Choice("image", []convImage{imgEx101, imgGrid3, imgDigit}, imgEx101,
		"ex10.1: the notes' 5×5 example; grid3: 1..9 on a 3×3 grid (the matrix form's example); digit: a 16×16 hand-drawn digit")
	cvDigit  = param.Int("digit", 3, "which digit (image=digit)").Range(0, 9)
	cvKernel = param.Choice("kernel", []kernelName{kCross, kW2x2, kSobelX, kSobelY, kLaplace, kBlur, kBox, kIdentity}, kCross,
		"cross: Ex 10.1's; w2x2: 1 2 / 3 4; sobel-x, sobel-y: edge detectors; laplace; blur (Gaussian); box; identity").
		DefaultFunc(func(v param.Values) kernelName {
			switch cvImage.Get(v) {
			case imgGrid3:
				return kW2x2
			case imgDigit:
				return kSobelX
			}
			return kCross
		}, "cross for ex10.1, w2x2 for grid3, sobel-x for digit")
	cvStride  = param.Int("stride", 1, "stride s: the window moves s cells at a time").Range(1, 4)
	cvPadding = param.Choice("padding", []padding{padValid, padSame, padCustom}, padValid,
		"valid: none; same: p = ⌈(m(s−1) + a − s)/2⌉, the output keeps the input's size (erratum E12 corrected); custom: pad")
	cvPad      = param.Int("pad", 1, "zeros on each side (padding=custom)").Range(0, 4)
	cvPool     = param.Choice("pool", []conv.Pool{conv.NoPool, conv.MaxPool, conv.AvgPool}, conv.NoPool, "pooling after the convolution")
	cvPoolSize = param.Int("pool_size", 2, "pooling window and stride").Range(1, 4)
)

// Conv is the sliding window of a convolution over a numeric grid (seed
// 001 §10, [A18]): one output cell per step, the window marked on the
// input, the sum written out, then the pooling; the output-size formula
// with the numbers, "same" padding, and the matrix form W_circ.
var Conv = &sims.Spec{
	Name:   "conv",
	Title:  "Convolution by hand: the sliding window, padding, stride, pooling, W_circ",
	Source: "seed 001 §10 (Ex 10.1, L1049–L1110; erratum E12)",
	Steps:  400,
	Speed:  1,
	// A short story (the window visits the nine outputs of Ex 10.1: then again).
	Replay: sims.ReplayPause,
	Params: param.List(cvImage, cvDigit, cvKernel, cvStride, cvPadding, cvPad, cvPool, cvPoolSize),
	New:    newConv,
	Size:   func(sims.Config) int64 { return convBytes },

	Metrics: convMetrics,
}

// convBytes is the size of a conv sim whatever its parameters: an image
// of at most 16×16 with its padded copy and feature map, a circulant of
// at most 100 pixels by their outputs, and the Frame's pictures of them.
const convBytes = 48 << 10

type convSim struct {
	sw     *conv.Sweep
	g      conv.Geometry
	x      []float64
	k      []float64
	kname  kernelName
	image  convImage
	pad    padding
	pool   conv.Pool
	psize  int
	circ   []float64 // W_circ, when the image is small enough to draw it
	signed bool      // the kernel has negative weights
}

// maxCirculant is the largest image (pixels) whose W_circ is drawn.
const maxCirculant = 100

func newConv(cfg sims.Config) (sims.Sim, error) {
	v := cfg.Values
	s := &convSim{image: cvImage.Get(v), kname: cvKernel.Get(v), pad: cvPadding.Get(v), pool: cvPool.Get(v),
		psize: cvPoolSize.Get(v)}
	var side int
	switch s.image {
	case imgEx101:
		side = 5
		s.x = []float64{1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0}
	case imgGrid3:
		side = 3
		s.x = []float64{1, 2, 3, 4, 5, 6, 7, 8, 9}
	default:
		side = 16
		s.x = make([]float64, side*side)
		st := digits.Default
		st.Noise = 0
		if err := digits.Draw(s.x, side, cvDigit.Get(v), st, streamRNG(cfg.Seed, dataStream)); err != nil {
			return nil, err
		}
	}
	kern := kernels[s.kname]
	s.k = kern.w
	for _, w := range s.k {
		s.signed = s.signed || w < 0
	}
	s.g = conv.Geometry{H: side, W: side, KH: kern.side, KW: kern.side, Stride: cvStride.Get(v)}
	switch s.pad {
	case padSame:
		s.g.Pad = conv.SamePad(side, kern.side, s.g.Stride)
	case padCustom:
		s.g.Pad = cvPad.Get(v)
	}
	var err error
	if s.sw, err = conv.NewSweep(s.g, s.x, s.k, s.pool, s.psize); err != nil {
		return nil, sims.Blame(err, v, sims.As("pool_size", cvPoolSize), sims.As("stride", cvStride), sims.As("pad", cvPad))
	}
	if side*side <= maxCirculant {
		if s.circ, err = conv.Circulant(s.g, s.k); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *convSim) Step() error {
	err := s.sw.Step()
	if errors.Is(err, algo.ErrConverged) {
		return fmt.Errorf("all %d cells computed: %w", s.sw.Total(), err)
	}
	return err
}

func (s *convSim) Frame() sims.Frame {
	g := s.g
	i, j, pooled, value, ok := s.sw.Last()
	charts := []sims.Chart{s.input(i, j, ok && !pooled), s.kernel(), s.output(i, j, ok, pooled)}
	if s.sw.Pooled() != nil {
		charts = append(charts, s.pooledChart(i, j, ok && pooled))
	}
	if s.circ != nil {
		charts = append(charts, s.circulant(i, j, ok && !pooled))
	}
	metrics := []sims.Metric{
		{Name: "cells", Value: float64(s.sw.Done())},
		{Name: "of", Value: float64(s.sw.Total())},
		{Name: "out_h", Value: float64(g.OH())},
		{Name: "out_w", Value: float64(g.OW())},
		{Name: "pad", Value: float64(g.Pad)},
	}
	if ok {
		metrics = append(metrics, sims.Metric{Name: "value", Value: value})
	}
	return sims.Frame{Sim: Conv.Name, Step: s.sw.Done(), Metrics: metrics, Charts: charts, Text: s.notes()}
}

// input is the padded image (padding drawn as ·) with the window of the
// last output cell marked.
func (s *convSim) input(i, j int, mark bool) sims.ImageChart {
	g := s.g
	w, h := g.W+2*g.Pad, g.H+2*g.Pad
	im := sims.Image{W: w, H: h, Pix: make([]float64, w*h)}
	for r := range h {
		for c := range w {
			rr, cc := r-g.Pad, c-g.Pad
			if rr < 0 || rr >= g.H || cc < 0 || cc >= g.W {
				im.Pix[r*w+c] = math.NaN()
			} else {
				im.Pix[r*w+c] = s.x[rr*g.W+cc]
			}
		}
	}
	if mark {
		im.Mark = sims.Window{X0: j * g.Stride, Y0: i * g.Stride, X1: j*g.Stride + g.KW, Y1: i*g.Stride + g.KH}
	}
	title := fmt.Sprintf("input X, %d×%d", g.H, g.W)
	if g.Pad > 0 {
		im.Caption = fmt.Sprintf("padding %d: ·", g.Pad)
	}
	c := sims.ImageChart{Title: title, Images: []sims.Image{im}, Numbers: true, Scale: sims.Sequential}
	if s.image == imgDigit {
		c.Scale, c.Lo, c.Hi = sims.Grey, 0, 1
	}
	return c
}

func (s *convSim) kernel() sims.ImageChart {
	m := 0.0
	for _, w := range s.k {
		m = math.Max(m, math.Abs(w))
	}
	c := sims.ImageChart{Title: fmt.Sprintf("kernel K: %s", s.kname), Numbers: true, Scale: sims.Sequential,
		Images: []sims.Image{{W: s.g.KW, H: s.g.KH, Pix: s.k}}}
	if s.signed {
		c.Scale, c.Lo, c.Hi = sims.Diverging, -m, m
	}
	return c
}

// output is K∗X, cells not computed yet blank, the last one (or the last
// pooling window) marked.
func (s *convSim) output(i, j int, ok, pooled bool) sims.ImageChart {
	g := s.g
	im := sims.Image{W: g.OW(), H: g.OH(), Pix: append([]float64(nil), s.sw.Out()...),
		Caption: fmt.Sprintf("%d×%d", g.OH(), g.OW())}
	switch {
	case ok && pooled:
		p := s.psize
		im.Mark = sims.Window{X0: j * p, Y0: i * p, X1: (j + 1) * p, Y1: (i + 1) * p}
	case ok:
		im.Mark = sims.Window{X0: j, Y0: i, X1: j + 1, Y1: i + 1}
	}
	c := sims.ImageChart{Title: "output K∗X", Images: []sims.Image{im}, Numbers: true, Scale: sims.Sequential}
	if s.signed {
		m := 0.0
		for _, v := range im.Pix {
			if !math.IsNaN(v) {
				m = math.Max(m, math.Abs(v))
			}
		}
		c.Scale, c.Lo, c.Hi = sims.Diverging, -m, m
	}
	return c
}

func (s *convSim) pooledChart(i, j int, mark bool) sims.ImageChart {
	ph, pw := s.sw.PoolShape()
	im := sims.Image{W: pw, H: ph, Pix: append([]float64(nil), s.sw.Pooled()...), Caption: fmt.Sprintf("%d×%d", ph, pw)}
	if mark {
		im.Mark = sims.Window{X0: j, Y0: i, X1: j + 1, Y1: i + 1}
	}
	c := sims.ImageChart{Title: "pooled", Images: []sims.Image{im}, Numbers: true, Scale: sims.Sequential}
	if s.signed {
		c.Scale = sims.Diverging
	}
	return c
}

// circulant draws W_circ, a row per output cell and a column per pixel,
// the last cell's row marked.
func (s *convSim) circulant(i, j int, mark bool) sims.ImageChart {
	g := s.g
	n := g.H * g.W
	rows := g.OH() * g.OW()
	im := sims.Image{W: n, H: rows, Pix: s.circ}
	if mark {
		r := i*g.OW() + j
		im.Mark = sims.Window{X0: 0, Y0: r, X1: n, Y1: r + 1}
	}
	m := 0.0
	for _, w := range s.k {
		m = math.Max(m, math.Abs(w))
	}
	return sims.ImageChart{Title: fmt.Sprintf("W_circ, %d×%d: W_circ·vec(X) = vec(K∗X)", rows, n),
		Images: []sims.Image{im}, Numbers: true, Scale: sims.Diverging, Lo: -m, Hi: m}
}

func (s *convSim) notes() []string {
	g := s.g
	var lines []string
	i, j, pooled, value, ok := s.sw.Last()
	switch {
	case !ok:
		lines = append(lines, "s slides the window one cell; space runs")
	case pooled:
		lines = append(lines, fmt.Sprintf("pooled[%d,%d] = %s of its %d×%d window = %s", i, j, s.pool, s.psize, s.psize, fmtNum(value)))
	default:
		ks, xs := s.sw.Terms(i, j)
		if len(ks) <= 9 {
			terms := make([]string, len(ks))
			for t := range ks {
				terms[t] = fmtNum(ks[t]) + "·" + fmtNum(xs[t])
			}
			lines = append(lines, fmt.Sprintf("out[%d,%d] = %s = %s", i, j, strings.Join(terms, " + "), fmtNum(value)))
		} else {
			lines = append(lines, fmt.Sprintf("out[%d,%d] = Σ of %d products K[u,v]·X[%d·%d+u−%d, %d·%d+v−%d] = %s",
				i, j, len(ks), i, g.Stride, g.Pad, j, g.Stride, g.Pad, fmtNum(value)))
		}
	}
	lines = append(lines, fmt.Sprintf("size ⌊(m + 2p − a)/s⌋ + 1 = ⌊(%d + 2·%d − %d)/%d⌋ + 1 = %d per side",
		g.H, g.Pad, g.KH, g.Stride, g.OH()))
	if s.pad == padSame {
		lines = append(lines, fmt.Sprintf("same: p = ⌈(m(s−1) + a − s)/2⌉ = %d; the notes' m(s−a) gives %d (E12)",
			g.Pad, conv.NotesSamePad(g.H, g.KH, g.Stride)))
		if g.OH() != g.H {
			lines = append(lines, fmt.Sprintf("an even kernel at stride 1 cannot keep the size: %d, not %d", g.OH(), g.H))
		}
	}
	if s.circ != nil {
		lines = append(lines, fmt.Sprintf("W_circ has %d entries but only %d distinct weights (the kernel's)",
			len(s.circ), g.KH*g.KW))
	}
	return lines
}

// fmtNum prints a grid value: integers as they are, others to 3 digits.
func fmtNum(x float64) string {
	if x == math.Trunc(x) && math.Abs(x) < 1e9 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.3g", x)
}

func (s *convSim) Result() map[string]any {
	g := s.g
	r := map[string]any{"output": grid(s.sw.Out(), g.OW()), "pad": g.Pad, "out_h": g.OH(), "out_w": g.OW(),
		"cells": s.sw.Done()}
	if p := s.sw.Pooled(); p != nil {
		_, pw := s.sw.PoolShape()
		r["pooled"] = grid(p, pw)
	}
	return r
}

// grid is a row-major image as rows, null for a cell not computed yet.
func grid(v []float64, w int) [][]any {
	rows := make([][]any, len(v)/w)
	for i := range rows {
		rows[i] = make([]any, w)
		for j := range w {
			if x := v[i*w+j]; !math.IsNaN(x) {
				rows[i][j] = x
			}
		}
	}
	return rows
}
