// Package sysblas routes gonum's level-3 BLAS (dgemm, dsyrk, dtrsm: what
// its blocked LAPACK routines such as the Cholesky factorisation spend
// their time in) to the system's CBLAS through cgo when the lab is built
// with the cblas tag:
//
//	go build -tags cblas ./cmd/lab      (needs cgo and libopenblas-dev or another CBLAS)
//
// Without the tag — the default, pure Go, which `go run ./cmd/lab` builds
// on a fresh machine — the package is empty and gonum uses its own BLAS.
// Importing it is enough (cmd/lab and bench do, for its side effect).
//
// Only the three level-3 routines go to the system: a cgo call costs about
// a tenth of a microsecond, which the level-1 and level-2 calls made in
// the engines' loops (a dot product per row of a triangular solve) would
// pay thousands of times over; on a level-3 call it is nothing. Measured
// in the README's performance table (issue 14.6).
package sysblas

// Enabled reports whether the lab was built with the cblas tag.
const Enabled = enabled
