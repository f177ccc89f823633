// Package ad is automatic differentiation on a scalar computational graph,
// small enough to watch node by node (seed 000 chapter 1, §1.1–1.7;
// catalogue §1.1–1.8).
//
// A Graph is a DAG of elementary operations (Op: + − × / ^, neg, exp, log,
// sin, cos, tanh, sigmoid, relu, abs, sqrt) built by hand or by Parse from
// an expression such as "x*y + sin(x)". Each Node keeps its value, tangent
// and adjoint and its Local first and second derivatives; every mode is
// written once in terms of those:
//
//   - forward mode (JVP, §1.2): dual numbers, (value | tangent) carried
//     from the inputs, one pass per input direction;
//   - reverse mode (Backward, VJP, §1.3): values recorded in creation order,
//     adjoints accumulated with += in reverse order, reset on every call;
//   - Sweep steps either mode one node at a time with the live memory (flat
//     for forward mode, a triangle for reverse mode, §1.6);
//   - Jacobian fills by columns (JVPs) or rows (VJPs), counting passes
//     (§1.5); Hessian runs the four second-order strategies FoF, FoR, RoF
//     and RoR (§1.7) counting runs, passes and tape records, and HVP gives
//     Hessian-vector products;
//   - Dual and HyperDual (two distinct ε, ε₁ε₂ ≠ 0) are the same rules on
//     plain numbers (§1.7.1);
//   - NaiveBackprop is a deliberately wrong recursion that double-counts on
//     fan-out, for teaching;
//   - JacobianPattern and HessianPattern give the structural sparsity that
//     package sparse compresses.
//
// Undefined operations (division by zero, the log of a non-positive
// number, an overflow) are *EvalError values naming the node and its span
// in the source; a malformed expression is a *ParseError naming the byte.
// Nothing panics on input. Subpackages: implicit (§1.8) and sparse (§1.9).
package ad
