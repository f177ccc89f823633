package nn

import (
	"fmt"
	"math/rand/v2"

	"github.com/thelab/lab/algo"
	"github.com/thelab/lab/algo/tensor"
)

// Conv is a convolution layer (a cross-correlation, seed 001 §10, L1049):
// x [N, C, H, W] with kernels W [F, C, k, k] and a bias per filter, stride
// and zero padding on each side, giving [N, F, OH, OW] with OH = OutSize(H,
// k, stride, pad).
type Conv struct {
	W, B        *tensor.Tensor
	Stride, Pad int
}

// NewConv returns a layer of `filters` k×k kernels over `channels` input
// channels, drawn from init (biases 0).
func NewConv(channels, filters, k, stride, pad int, init tensor.Init, rng *rand.Rand) (*Conv, error) {
	if channels < 1 || filters < 1 || k < 1 {
		return nil, algo.BadParam("conv", fmt.Sprintf("%d channels, %d filters, kernel %d", channels, filters, k), "≥ 1 each")
	}
	if stride < 1 || pad < 0 {
		return nil, algo.BadParam("stride, pad", fmt.Sprintf("%d, %d", stride, pad), "stride ≥ 1, pad ≥ 0")
	}
	w, err := tensor.New(filters, channels, k, k)
	if err != nil {
		return nil, err
	}
	b, err := tensor.New(filters)
	if err != nil {
		return nil, err
	}
	if err := w.Fill(init, rng); err != nil {
		return nil, err
	}
	return &Conv{W: w, B: b, Stride: stride, Pad: pad}, nil
}

// Forward records the convolution.
func (c *Conv) Forward(tp *tensor.Tape, x *tensor.Tensor, _ *rand.Rand) *tensor.Tensor {
	return tp.Conv2D(x, c.W, c.B, c.Stride, c.Pad)
}

// Params is W and b.
func (c *Conv) Params() []*tensor.Tensor { return []*tensor.Tensor{c.W, c.B} }

// MaxFilters bounds the filters of one convolution block.
const MaxFilters = 256

// CNNConfig describes a small convolutional network for one-channel images
// (LeNet's pattern, seed 001 §10, L1102–L1110, at terminal size).
type CNNConfig struct {
	H, W int // image size; an input row holds the H·W pixels row by row
	// Filters gives each convolution block's number of filters. A block is
	// a k×k convolution with stride 1 and "same" padding (k−1)/2, σ, and
	// a 2×2 max-pool with stride 2, which halves the size (rounding down).
	Filters []int
	Kernel  int // k, odd
	Hidden  int // a dense hidden layer before the output; 0 for none
	Out     int
	Act     Activation
	Init    tensor.Init // empty: He for ReLU, Xavier otherwise
}

// CNN is conv blocks, flattening, an optional dense hidden layer and a
// linear output.
type CNN struct {
	cfg    CNNConfig
	Convs  []*Conv
	Dense  []*Dense // the hidden layer (if any), then the output layer
	sizes  [][3]int // channels, height, width after each block
	params []*tensor.Tensor
	maps   []*tensor.Tensor // the last Forward's feature maps σ(conv) of each block, before pooling
}

// NewCNN validates cfg and draws the weights.
func NewCNN(cfg CNNConfig, rng *rand.Rand) (*CNN, error) {
	if cfg.H < 2 || cfg.W < 2 || cfg.H*cfg.W > MaxWidth {
		return nil, algo.BadParam("image", fmt.Sprintf("%d×%d", cfg.H, cfg.W), fmt.Sprintf("at least 2×2, at most %d pixels", MaxWidth))
	}
	if cfg.Kernel < 1 || cfg.Kernel%2 == 0 || cfg.Kernel > min(cfg.H, cfg.W) {
		return nil, algo.BadParam("kernel", cfg.Kernel, fmt.Sprintf("odd, in 1..%d", min(cfg.H, cfg.W)))
	}
	if len(cfg.Filters) < 1 || len(cfg.Filters) > 4 {
		return nil, algo.BadParam("blocks", len(cfg.Filters), "in 1..4")
	}
	if cfg.Out < 1 || cfg.Out > MaxWidth {
		return nil, algo.BadParam("outputs", cfg.Out, fmt.Sprintf("in 1..%d", MaxWidth))
	}
	if cfg.Hidden < 0 || cfg.Hidden > MaxWidth {
		return nil, algo.BadParam("hidden", cfg.Hidden, fmt.Sprintf("in 0..%d", MaxWidth))
	}
	if cfg.Act == "" {
		cfg.Act = ReLU
	}
	if !cfg.Act.valid() {
		return nil, algo.BadParam("activation", cfg.Act, fmt.Sprintf("one of %v", Activations))
	}
	if cfg.Init == "" {
		cfg.Init = cfg.Act.init()
	}
	if rng == nil {
		return nil, algo.BadParam("rng", nil, "a random source")
	}
	cfg.Filters = append([]int(nil), cfg.Filters...)
	n := &CNN{cfg: cfg, maps: make([]*tensor.Tensor, len(cfg.Filters))}
	c, h, w := 1, cfg.H, cfg.W
	for i, f := range cfg.Filters {
		if f < 1 || f > MaxFilters {
			return nil, algo.BadParam("filters", f, fmt.Sprintf("in 1..%d", MaxFilters))
		}
		if h < 2 || w < 2 {
			return nil, algo.BadParam("blocks", len(cfg.Filters),
				fmt.Sprintf("at most %d for a %d×%d image (each block halves it)", i, cfg.H, cfg.W))
		}
		cv, err := NewConv(c, f, cfg.Kernel, 1, (cfg.Kernel-1)/2, cfg.Init, rng)
		if err != nil {
			return nil, err
		}
		n.Convs = append(n.Convs, cv)
		n.params = append(n.params, cv.W, cv.B)
		c, h, w = f, h/2, w/2
		n.sizes = append(n.sizes, [3]int{c, h, w})
	}
	in := c * h * w
	widths := []int{cfg.Out}
	if cfg.Hidden > 0 {
		widths = []int{cfg.Hidden, cfg.Out}
	}
	for _, width := range widths {
		d, err := NewDense(in, width, cfg.Init, rng)
		if err != nil {
			return nil, err
		}
		n.Dense = append(n.Dense, d)
		n.params = append(n.params, d.W, d.B)
		in = width
	}
	return n, nil
}

// Config returns the configuration the network was built from.
func (n *CNN) Config() CNNConfig {
	c := n.cfg
	c.Filters = append([]int(nil), c.Filters...)
	return c
}

// Forward records the network on x [N, H·W] and returns [N, Out].
func (n *CNN) Forward(tp *tensor.Tape, x *tensor.Tensor, _ *rand.Rand) *tensor.Tensor {
	N := x.Dim(0)
	h := tp.Reshape(x, N, 1, n.cfg.H, n.cfg.W)
	for i, cv := range n.Convs {
		h = n.cfg.Act.Apply(tp, cv.Forward(tp, h, nil))
		n.maps[i] = h
		h = tp.MaxPool2D(h, 2, 2)
	}
	s := n.sizes[len(n.sizes)-1]
	h = tp.Reshape(h, N, s[0]*s[1]*s[2])
	for i, d := range n.Dense {
		h = d.Forward(tp, h, nil)
		if i < len(n.Dense)-1 {
			h = n.cfg.Act.Apply(tp, h)
		}
	}
	return h
}

// FeatureMaps returns block i's activations σ(conv) [N, F, H, W] from the
// last Forward, before its pooling (the maps CNN Explainer draws layer by
// layer). They belong to the tape and are valid until it is rewound.
func (n *CNN) FeatureMaps(i int) *tensor.Tensor { return n.maps[i] }

// Params lists the convolutions' kernels and biases, then the dense layers'.
func (n *CNN) Params() []*tensor.Tensor { return n.params }

// Shape is (H·W, Out).
func (n *CNN) Shape() (in, out int) { return n.cfg.H * n.cfg.W, n.cfg.Out }

// Sizes lists (channels, height, width) after each block.
func (n *CNN) Sizes() [][3]int { return append([][3]int(nil), n.sizes...) }

// FLOPs counts 2·C·k²·F per output pixel of each convolution, σ and the
// 2×2 pool per pixel, and 2·in·out per dense layer.
func (n *CNN) FLOPs() float64 {
	f := 0.0
	c, h, w := 1, n.cfg.H, n.cfg.W
	k := n.cfg.Kernel
	for _, s := range n.sizes {
		px := float64(s[0] * h * w)
		f += px*2*float64(c*k*k) + 2*px
		c, h, w = s[0], s[1], s[2]
	}
	for _, d := range n.Dense {
		f += 2*float64(d.In()*d.Out()) + 2*float64(d.Out())
	}
	return f
}
