//go:build cblas && cgo

package sysblas

/*
#cgo LDFLAGS: -lblas
#include <cblas.h>
*/
import "C"

import (
	"unsafe"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/blas/gonum"
)

const enabled = true

func init() { blas64.Use(impl{}) }

// impl is gonum's BLAS with its level-3 routines replaced by the system's.
// They check that every matrix fits its slice before handing C a pointer.
type impl struct{ gonum.Implementation }

// need panics unless an r×c row-major matrix with leading dimension ld fits
// in s.
func need(s []float64, r, c, ld int) {
	if r > 0 && c > 0 && (ld < c || len(s) < (r-1)*ld+c) {
		panic("sysblas: matrix does not fit its slice")
	}
}

// dims is the rows and columns of op(X) stored as r×c.
func dims(t blas.Transpose, r, c int) (int, int) {
	if t == blas.NoTrans {
		return r, c
	}
	return c, r
}

func trans(t blas.Transpose) C.enum_CBLAS_TRANSPOSE {
	if t == blas.NoTrans {
		return C.CblasNoTrans
	}
	return C.CblasTrans
}

func uplo(u blas.Uplo) C.enum_CBLAS_UPLO {
	if u == blas.Upper {
		return C.CblasUpper
	}
	return C.CblasLower
}

func ptr(s []float64) *C.double {
	if len(s) == 0 {
		return nil
	}
	return (*C.double)(unsafe.Pointer(&s[0]))
}

func (i impl) Dgemm(tA, tB blas.Transpose, m, n, k int, alpha float64, a []float64, lda int, b []float64, ldb int, beta float64, c []float64, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	ar, ac := dims(tA, m, k)
	br, bc := dims(tB, k, n)
	need(a, ar, ac, lda)
	need(b, br, bc, ldb)
	need(c, m, n, ldc)
	C.cblas_dgemm(C.CblasRowMajor, trans(tA), trans(tB), C.blasint(m), C.blasint(n), C.blasint(k),
		C.double(alpha), ptr(a), C.blasint(lda), ptr(b), C.blasint(ldb), C.double(beta), ptr(c), C.blasint(ldc))
}

func (i impl) Dsyrk(ul blas.Uplo, t blas.Transpose, n, k int, alpha float64, a []float64, lda int, beta float64, c []float64, ldc int) {
	if n == 0 {
		return
	}
	ar, ac := dims(t, n, k)
	need(a, ar, ac, lda)
	need(c, n, n, ldc)
	C.cblas_dsyrk(C.CblasRowMajor, uplo(ul), trans(t), C.blasint(n), C.blasint(k),
		C.double(alpha), ptr(a), C.blasint(lda), C.double(beta), ptr(c), C.blasint(ldc))
}

func (i impl) Dtrsm(s blas.Side, ul blas.Uplo, tA blas.Transpose, d blas.Diag, m, n int, alpha float64, a []float64, lda int, b []float64, ldb int) {
	if m == 0 || n == 0 {
		return
	}
	side, na := C.enum_CBLAS_SIDE(C.CblasLeft), m
	if s == blas.Right {
		side, na = C.CblasRight, n
	}
	need(a, na, na, lda)
	need(b, m, n, ldb)
	diag := C.enum_CBLAS_DIAG(C.CblasNonUnit)
	if d == blas.Unit {
		diag = C.CblasUnit
	}
	C.cblas_dtrsm(C.CblasRowMajor, side, uplo(ul), trans(tA), diag, C.blasint(m), C.blasint(n),
		C.double(alpha), ptr(a), C.blasint(lda), ptr(b), C.blasint(ldb))
}
