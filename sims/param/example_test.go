package param_test

import (
	"fmt"

	"github.com/thelab/lab/sims/param"
)

// rule stands for an engine's own enum (optim.Method, say): a Choice reads
// as it, typed as its String.
type rule int

const (
	gd rule = iota
	momentum
)

func (r rule) String() string { return [...]string{"gd", "momentum"}[r] }

// A sim declares its parameters once, typed, resolves what the user typed
// (--set, the editor) against them and reads them back through the same
// declarations. Notice that lr, left unset, follows kappa (its default is
// a function of the parameters before it), and that a bad value is an error
// naming the parameter and its range.
func Example() {
	kappa := param.Float("kappa", 10, "condition number L/m").Range(1, 1000)
	method := param.Choice("method", []rule{gd, momentum}, gd, "update rule")
	lr := param.Float("lr", 0.1, "step size").Range(0, 10).OpenMin().
		DefaultFunc(func(v param.Values) float64 { return 1 / kappa.Get(v) }, "1/L")
	params := param.List(kappa, method, lr)

	v, err := param.Resolve(params, map[string]string{"kappa": "4", "method": "momentum"})
	if err != nil {
		panic(err)
	}
	fmt.Println(v.Summary(false))
	fmt.Println(kappa.Get(v), method.Get(v) == momentum, lr.Get(v), lr.IsSet(v))

	_, err = v.With("lr", "0")
	fmt.Println(err)
	_, err = v.With("method", "adam")
	fmt.Println(err)
	// Output:
	// kappa=4 method=momentum lr=0.25
	// 4 true 0.25 false
	// parameter lr = "0": must be in (0, 10]
	// parameter method = "adam": must be one of gd|momentum
}

// Param is what `lab list`, --set and the editor see of a declaration:
// Parse checks one value against it and returns its canonical text. An
// integer typed in a float's form (1e3) is read as the whole number it is.
func ExampleParam_Parse() {
	p := param.Int("n", 200, "points").Range(10, 5000).Param()
	fmt.Println(p.Name, p.Range())
	for _, text := range []string{"1e3", "2.5", "9000"} {
		canon, err := p.Parse(text)
		fmt.Printf("%q %v\n", canon, err)
	}
	// Output:
	// n 10..5000
	// "1000" <nil>
	// "" parameter n = "2.5": must be a whole number in 10..5000
	// "" parameter n = "9000": must be in 10..5000
}
