package ad

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/thelab/lab/algo"
)

// Limits of the expression parser. A longer source or a deeper nesting is
// refused with a *ParseError naming the limit.
const (
	MaxSourceBytes = 4096 // bytes of source
	MaxDepth       = 64   // nested parentheses, calls and unary minus
	MaxVars        = 64   // variables
)

// Var is a variable of a parsed expression with its value.
type Var struct {
	Name  string
	Value float64
}

// ParseError reports where an expression does not parse: Pos is the byte
// offset (0-based) of the offending token.
type ParseError struct {
	Pos int
	Msg string
}

func (e *ParseError) Error() string { return fmt.Sprintf("at byte %d: %s", e.Pos, e.Msg) }

// Parse builds the graph of one or more expressions separated by commas,
// the outputs f_1..f_m, over the variables vars (the inputs x_1..x_n, in
// that order, each one node however often it is used, so a variable read
// twice is a fan-out). Definitions before the expressions name
// intermediate nodes, so that an operation's result can be read twice
// too: "u = x*y; u + sin(u)" has one node u with two parents (§1.4's
// fan-out at an inner node), where "x*y + sin(x*y)" computes x·y twice.
// The grammar, loosest first:
//
//	program = { name "=" expr ";" } list
//	list    = expr { "," expr }
//	expr    = term { ("+" | "-") term }
//	term    = unary { ("*" | "/") unary }
//	unary   = "-" unary | power
//	power   = primary [ "^" unary ]            (right-associative: 2^3^2 = 2^9)
//	primary = number | name | name "(" expr ")" | "(" expr ")"
//
// so −x^2 = −(x²) and 2^−1 = ½. Names are variables, defined names, the
// constant pi, or the functions exp, log (ln), sin, cos, tanh, sigmoid,
// relu, abs, sqrt. A defined name must be new and is given to its node
// (Node.Name) when the node is an operation without one.
// Numbers are decimal with an optional exponent (1.5e-3). Each node records
// its byte span, so an evaluation error names the failing sub-expression.
func Parse(src string, vars []Var) (*Graph, error) {
	if len(src) > MaxSourceBytes {
		return nil, &ParseError{Pos: MaxSourceBytes, Msg: fmt.Sprintf("expression longer than %d bytes", MaxSourceBytes)}
	}
	if len(vars) > MaxVars {
		return nil, algo.BadParam("variables", len(vars), fmt.Sprintf("at most %d", MaxVars))
	}
	p := &parser{src: src, g: NewGraph(), vars: map[string]int{}}
	for _, v := range vars {
		if !isName(v.Name) {
			return nil, algo.BadParam("variable", v.Name, "a name: a letter or _ then letters, digits or _")
		}
		if _, ok := functions[v.Name]; ok || v.Name == "pi" {
			return nil, algo.BadParam("variable", v.Name, "not a function name or pi")
		}
		if _, dup := p.vars[v.Name]; dup {
			return nil, algo.BadParam("variable", v.Name, "defined once")
		}
		p.vars[v.Name] = p.g.Input(v.Name, v.Value)
	}
	if err := p.g.Err(); err != nil {
		return nil, err
	}
	p.next()
	if err := p.definitions(); err != nil {
		return nil, err
	}
	var outs []int
	for {
		id, err := p.expr(0)
		if err != nil {
			return nil, err
		}
		outs = append(outs, id)
		if p.tok != ',' {
			break
		}
		p.next()
	}
	if p.tok != eof {
		return nil, p.unexpected("an operator, ',' or the end")
	}
	if err := p.g.SetOutputs(outs...); err != nil {
		return nil, err
	}
	return p.g, nil
}

// definitions parses the leading { name "=" expr ";" }.
func (p *parser) definitions() error {
	for p.tok == name && p.assignment() {
		nm, at := p.text, p.pos
		_, fn := functions[nm]
		_, taken := p.vars[nm]
		switch {
		case fn || nm == "pi":
			return &ParseError{Pos: at, Msg: fmt.Sprintf("cannot define %s: it is a function or constant", nm)}
		case slices.Contains(p.defs, nm):
			return &ParseError{Pos: at, Msg: fmt.Sprintf("%s is already defined", nm)}
		case taken:
			return &ParseError{Pos: at, Msg: fmt.Sprintf("cannot define %s: it is a variable", nm)}
		}
		p.next() // the name
		p.next() // "="
		id, err := p.expr(0)
		if err != nil {
			return err
		}
		if p.tok != ';' {
			return p.unexpected(fmt.Sprintf("';' after the definition of %s", nm))
		}
		p.next()
		p.vars[nm] = id
		p.defs = append(p.defs, nm)
		if n := &p.g.nodes[id]; n.Op.Arity() > 0 && n.Name == "" {
			n.Name = nm
		}
	}
	return nil
}

// assignment reports whether the current name token is followed by "=".
func (p *parser) assignment() bool {
	i := p.end
	for i < len(p.src) && (p.src[i] == ' ' || p.src[i] == '\t') {
		i++
	}
	return i < len(p.src) && p.src[i] == '='
}

func isName(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		if !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

const (
	eof    = -1
	number = -2
	name   = -3
	bad    = -4
)

type parser struct {
	src  string
	g    *Graph
	vars map[string]int // variables and defined names → nodes
	defs []string       // defined names, in order

	tok      int // a punctuation byte, or eof/number/name/bad
	pos, end int // the current token's span
	last     int // the end of the last consumed token
	text     string
}

// next scans the token after the current one.
func (p *parser) next() {
	p.last = p.end
	i := p.end
	for i < len(p.src) && (p.src[i] == ' ' || p.src[i] == '\t' || p.src[i] == '\n' || p.src[i] == '\r') {
		i++
	}
	p.pos = i
	if i == len(p.src) {
		p.tok, p.end, p.text = eof, i, ""
		return
	}
	c := p.src[i]
	switch {
	case c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z':
		j := i + 1
		for j < len(p.src) && (p.src[j] == '_' || isAlnum(p.src[j])) {
			j++
		}
		p.tok, p.end = name, j
	case '0' <= c && c <= '9' || c == '.':
		j := i
		for j < len(p.src) && ('0' <= p.src[j] && p.src[j] <= '9' || p.src[j] == '.') {
			j++
		}
		if j < len(p.src) && (p.src[j] == 'e' || p.src[j] == 'E') {
			k := j + 1
			if k < len(p.src) && (p.src[k] == '+' || p.src[k] == '-') {
				k++
			}
			if k < len(p.src) && '0' <= p.src[k] && p.src[k] <= '9' {
				for k < len(p.src) && '0' <= p.src[k] && p.src[k] <= '9' {
					k++
				}
				j = k
			}
		}
		p.tok, p.end = number, j
	case strings.IndexByte("+-*/^(),=;", c) >= 0:
		p.tok, p.end = int(c), i+1
	default:
		p.tok, p.end = bad, i+1
	}
	p.text = p.src[p.pos:p.end]
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func (p *parser) unexpected(want string) error {
	var got string
	switch p.tok {
	case eof:
		got = "the end of the expression"
	case bad:
		got = fmt.Sprintf("the character %q", p.text)
	default:
		got = fmt.Sprintf("%q", p.text)
	}
	return &ParseError{Pos: p.pos, Msg: fmt.Sprintf("expected %s, found %s", want, got)}
}

// op adds a node spanning [start, p's last consumed byte).
func (p *parser) op(o Op, a, b, start, end int) (int, error) {
	id := p.g.Apply(o, a, b)
	if id < 0 {
		return -1, p.g.Err()
	}
	p.g.nodes[id].Start, p.g.nodes[id].End = start, end
	return id, nil
}

func (p *parser) deeper(depth int) error {
	if depth > MaxDepth {
		return &ParseError{Pos: p.pos, Msg: fmt.Sprintf("nested deeper than %d levels", MaxDepth)}
	}
	return nil
}

func (p *parser) expr(depth int) (int, error) {
	return p.binary(depth, '+', Add, '-', Sub, p.term)
}

func (p *parser) term(depth int) (int, error) {
	return p.binary(depth, '*', Mul, '/', Div, p.unary)
}

// binary parses a left-associative chain operand { (c1 | c2) operand },
// c1 making o1 and c2 making o2.
func (p *parser) binary(depth int, c1 int, o1 Op, c2 int, o2 Op, operand func(int) (int, error)) (int, error) {
	start := p.pos
	a, err := operand(depth)
	if err != nil {
		return -1, err
	}
	for p.tok == c1 || p.tok == c2 {
		o := o1
		if p.tok == c2 {
			o = o2
		}
		p.next()
		b, err := operand(depth)
		if err != nil {
			return -1, err
		}
		if a, err = p.op(o, a, b, start, p.last); err != nil {
			return -1, err
		}
	}
	return a, nil
}

func (p *parser) unary(depth int) (int, error) {
	if err := p.deeper(depth); err != nil {
		return -1, err
	}
	if p.tok == '-' {
		start := p.pos
		p.next()
		a, err := p.unary(depth + 1)
		if err != nil {
			return -1, err
		}
		return p.op(Neg, a, -1, start, p.last)
	}
	return p.power(depth)
}

func (p *parser) power(depth int) (int, error) {
	start := p.pos
	a, err := p.primary(depth)
	if err != nil {
		return -1, err
	}
	if p.tok != '^' {
		return a, nil
	}
	p.next()
	b, err := p.unary(depth + 1)
	if err != nil {
		return -1, err
	}
	return p.op(Pow, a, b, start, p.last)
}

func (p *parser) primary(depth int) (int, error) {
	start := p.pos
	switch p.tok {
	case number:
		v, err := strconv.ParseFloat(p.text, 64)
		if err != nil || math.IsInf(v, 0) {
			return -1, &ParseError{Pos: p.pos, Msg: fmt.Sprintf("%q is not a number in range", p.text)}
		}
		id := p.g.Const(v)
		p.g.nodes[id].Start, p.g.nodes[id].End, p.g.nodes[id].Name = p.pos, p.end, p.text
		p.next()
		return id, nil
	case '(':
		return p.group(depth)
	case name:
		nm := p.text
		if fn, ok := functions[nm]; ok {
			p.next()
			if p.tok != '(' {
				return -1, p.unexpected(fmt.Sprintf("'(' after the function %s", nm))
			}
			a, err := p.group(depth)
			if err != nil {
				return -1, err
			}
			return p.op(fn, a, -1, start, p.last)
		}
		if id, ok := p.vars[nm]; ok {
			p.next()
			return id, nil
		}
		if nm == "pi" {
			id := p.g.Const(math.Pi)
			p.g.nodes[id].Start, p.g.nodes[id].End, p.g.nodes[id].Name = p.pos, p.end, "pi"
			p.next()
			return id, nil
		}
		return -1, &ParseError{Pos: p.pos, Msg: fmt.Sprintf("undefined variable %s (defined: %s)", nm, p.defined())}
	}
	return -1, p.unexpected("a number, a variable, a function or '('")
}

// group parses "(" expr ")" from the current "(".
func (p *parser) group(depth int) (int, error) {
	p.next()
	a, err := p.expr(depth + 1)
	if err != nil {
		return -1, err
	}
	if p.tok != ')' {
		return -1, p.unexpected("')'")
	}
	p.next()
	return a, nil
}

func (p *parser) defined() string {
	names := make([]string, 0, len(p.g.inputs)+len(p.defs))
	for _, id := range p.g.inputs {
		names = append(names, p.g.nodes[id].Name)
	}
	names = append(names, p.defs...)
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}
