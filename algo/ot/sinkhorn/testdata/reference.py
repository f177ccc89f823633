#!/usr/bin/env python3
"""An independent transcription of Sinkhorn's iterations (seed 002 eq 5.12),
in plain Python floats (IEEE doubles, no numpy), that produced the reference
trace of TestReferenceTrace (sinkhorn_test.go).

Setting: POT's 1-D example (ot.datasets.make_1D_gauss): n = 100 bins,
a = gauss(m=20, s=5), b = gauss(m=60, s=10), each normalised, and the cost
M_ij = (i - j)^2 / 99^2 (the squared distance divided by its maximum).
Start v = 1; one iteration is u = a / (K v) then v = b / (K^T u). Printed at
the listed iterations: the row marginal error ||pi 1 - a||_1 and <M, pi>.

  eps = 1e-2: K = exp(-M/eps) formed directly (the plain domain).
  eps = 1e-3: POT's regularisation; K would have entries below 1e-308, so
              the same iterations are carried in logs: log u = log a -
              logsumexp_j(log v_j - M_ij/eps), and likewise for v.

Run: python3 reference.py
"""
import math

n = 100
def gauss(m, s):
    h = [math.exp(-(x - m) ** 2 / (2 * s * s)) for x in range(n)]
    t = sum(h)
    return [v / t for v in h]

a, b = gauss(20, 5), gauss(60, 10)
M = [[(i - j) ** 2 / 99.0 ** 2 for j in range(n)] for i in range(n)]
marks = [1, 2, 5, 10, 20, 50, 100, 200]

def lse(xs):
    mx = max(xs)
    return mx + math.log(sum(math.exp(x - mx) for x in xs))

def report(it, P):
    err = sum(abs(sum(P[i]) - a[i]) for i in range(n))
    cost = sum(M[i][j] * P[i][j] for i in range(n) for j in range(n))
    print("\t{%d, %.15e, %.15e}," % (it, err, cost))

def plain(eps):
    K = [[math.exp(-M[i][j] / eps) for j in range(n)] for i in range(n)]
    v = [1.0] * n
    for it in range(1, marks[-1] + 1):
        u = [a[i] / sum(K[i][j] * v[j] for j in range(n)) for i in range(n)]
        v = [b[j] / sum(K[i][j] * u[i] for i in range(n)) for j in range(n)]
        if it in marks:
            report(it, [[u[i] * K[i][j] * v[j] for j in range(n)] for i in range(n)])

def logdomain(eps):
    la, lb = [math.log(x) for x in a], [math.log(x) for x in b]
    f, g = [0.0] * n, [0.0] * n  # log u, log v
    for it in range(1, marks[-1] + 1):
        f = [la[i] - lse([g[j] - M[i][j] / eps for j in range(n)]) for i in range(n)]
        g = [lb[j] - lse([f[i] - M[i][j] / eps for i in range(n)]) for j in range(n)]
        if it in marks:
            report(it, [[math.exp(f[i] + g[j] - M[i][j] / eps) for j in range(n)] for i in range(n)])

print("eps = 1e-2, plain")
plain(1e-2)
print("eps = 1e-3, log domain")
logdomain(1e-3)
