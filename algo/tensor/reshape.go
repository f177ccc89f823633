package tensor

// Reshape views a with new axes of the same total size, sharing its Data
// and Grad (no copy).
func (tp *Tape) Reshape(a *Tensor, dims ...int) *Tensor {
	if !tp.ok("Reshape", a) {
		return &tp.bad
	}
	s, err := shapeOf(dims...)
	if err != nil {
		return tp.fail("Reshape", "%v", err)
	}
	if s.size() != len(a.Data) {
		return tp.fail("Reshape", "%v has %d entries, not %d", s, s.size(), len(a.Data))
	}
	nd := tp.record(opReshape, shape{}, false)
	nd.in[0] = a
	nd.out.shape = s
	nd.out.Data = a.Data
	nd.out.Grad = a.Grad
	return &nd.out
}

// Transpose swaps the last two axes (copying).
//
//go:norace
func (tp *Tape) Transpose(a *Tensor) *Tensor {
	if !tp.ok("Transpose", a) {
		return &tp.bad
	}
	r := a.shape.r
	if r < 2 {
		return tp.fail("Transpose", "needs at least two axes, got %v", a.shape)
	}
	s := a.shape
	m, n := s.d[r-2], s.d[r-1]
	s.d[r-2], s.d[r-1] = n, m
	nd := tp.record(opTranspose, s, a.Grad != nil)
	nd.in[0] = a
	for o := 0; o < len(a.Data); o += m * n {
		x, z := a.Data[o:o+m*n], nd.out.Data[o:o+m*n]
		for i := range m {
			for j := range n {
				z[j*m+i] = x[i*n+j]
			}
		}
	}
	return &nd.out
}

//go:norace
func (nd *node) backTranspose() {
	a := nd.in[0]
	r := a.shape.r
	m, n := a.shape.d[r-2], a.shape.d[r-1]
	for o := 0; o < len(a.Data); o += m * n {
		g, ga := nd.out.Grad[o:o+m*n], a.Grad[o:o+m*n]
		for i := range m {
			for j := range n {
				ga[i*n+j] += g[j*m+i]
			}
		}
	}
}

// Concat joins tensors along axis; all other axes must agree.
//
//go:norace
func (tp *Tape) Concat(ax int, xs ...*Tensor) *Tensor {
	if len(xs) == 0 {
		return tp.fail("Concat", "nothing to concatenate")
	}
	if !tp.ok("Concat", xs...) {
		return &tp.bad
	}
	first := xs[0].shape
	ax, ok := axis(ax, first.r)
	if !ok {
		return tp.fail("Concat", "axis out of range for %v", first)
	}
	s := first
	s.d[ax] = 0
	grad := false
	for i, x := range xs {
		t := x.shape
		t.d[ax] = first.d[ax]
		if t != first {
			return tp.fail("Concat", "input %d has shape %v, incompatible with %v along axis %d", i+1, x.shape, first, ax)
		}
		s.d[ax] += x.shape.d[ax]
		grad = grad || x.Grad != nil
	}
	nd := tp.record(opConcat, s, grad)
	nd.ins = append(nd.ins, xs...)
	nd.iarg[0] = ax
	outer, n, inner := split(s, ax)
	for o := range outer {
		off := o * n * inner
		for _, x := range nd.ins {
			w := x.shape.d[ax] * inner
			copy(nd.out.Data[off:off+w], x.Data[o*w:(o+1)*w])
			off += w
		}
	}
	return &nd.out
}

//go:norace
func (nd *node) backConcat() {
	outer, n, inner := split(nd.out.shape, nd.iarg[0])
	for o := range outer {
		off := o * n * inner
		for _, x := range nd.ins {
			w := x.shape.d[nd.iarg[0]] * inner
			if x.Grad != nil {
				gx := x.Grad[o*w : (o+1)*w]
				for j, v := range nd.out.Grad[off : off+w] {
					gx[j] += v
				}
			}
			off += w
		}
	}
}

// Slice keeps entries from..to−1 of axis (one head's columns of a
// projection, a window of a sequence).
//
//go:norace
func (tp *Tape) Slice(a *Tensor, ax, from, to int) *Tensor {
	if !tp.ok("Slice", a) {
		return &tp.bad
	}
	ax, ok := axis(ax, a.shape.r)
	if !ok {
		return tp.fail("Slice", "axis out of range for %v", a.shape)
	}
	if from < 0 || to > a.shape.d[ax] || from >= to {
		return tp.fail("Slice", "range %d..%d outside axis %d of %v", from, to, ax, a.shape)
	}
	s := a.shape
	s.d[ax] = to - from
	nd := tp.record(opSlice, s, a.Grad != nil)
	nd.in[0] = a
	nd.iarg[0], nd.iarg[1] = ax, from
	outer, n, inner := split(a.shape, ax)
	w := (to - from) * inner
	for o := range outer {
		copy(nd.out.Data[o*w:(o+1)*w], a.Data[(o*n+from)*inner:(o*n+from)*inner+w])
	}
	return &nd.out
}

//go:norace
func (nd *node) backSlice() {
	a := nd.in[0]
	ax, from := nd.iarg[0], nd.iarg[1]
	outer, n, inner := split(a.shape, ax)
	w := nd.out.shape.d[ax] * inner
	for o := range outer {
		ga := a.Grad[(o*n+from)*inner : (o*n+from)*inner+w]
		for j, v := range nd.out.Grad[o*w : (o+1)*w] {
			ga[j] += v
		}
	}
}
