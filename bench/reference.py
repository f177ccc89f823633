"""The reference side of `go run ./bench`: scikit-learn (and NumPy) on the
data the Go side generated, one job per line of standard input, one JSON
answer per line of standard output.

A job is {"case": name, "dir": data directory, ...parameters}; the answer
is {"cpu": seconds of process CPU time, "wall": seconds, "note": text,
"peak": bytes} or {"error": text}. Only the fit (or the evaluation) is
timed: reading the CSV is not. "peak" is the growth of the resident set
during the fit, read from /proc after resetting its high-water mark (0 when
/proc cannot say). Run it with OMP_NUM_THREADS=1 and OPENBLAS_NUM_THREADS=1
for single-threaded figures; the Go side does.
"""

import json
import os
import sys
import time

import numpy as np

_cache = {}


def load(path):
    """The CSV's columns (header skipped), cached by path."""
    if path not in _cache:
        _cache[path] = np.loadtxt(path, delimiter=",", skiprows=1, ndmin=2)
    return _cache[path]


def xy(job, name):
    a = load(os.path.join(job["dir"], name))
    return np.ascontiguousarray(a[:, :-1]), np.ascontiguousarray(a[:, -1])


def rss():
    """(VmRSS, VmHWM) in bytes, or (0, 0)."""
    try:
        with open("/proc/self/status") as f:
            vals = dict(line.split(":", 1) for line in f)
        return (int(vals["VmRSS"].split()[0]) * 1024, int(vals["VmHWM"].split()[0]) * 1024)
    except (OSError, KeyError, ValueError):
        return (0, 0)


def reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def gp(job):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel

    x, y = xy(job, "gp.csv")
    grid = np.linspace(job["lo"], job["hi"], job["grid"])[:, None]
    kern = ConstantKernel(job["variance"], "fixed") * RBF(job["lengthscale"], "fixed")

    def fit():
        g = GaussianProcessRegressor(kernel=kern, alpha=job["noise"], optimizer=None).fit(x, y)
        g.predict(grid, return_std=True)
        return "one fit at fixed hyperparameters and a prediction with std at %d points" % job["grid"]

    return fit


def gp_eval(job):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

    x, y = xy(job, "gpfit.csv")
    kern = ConstantKernel(job["variance"]) * RBF(job["lengthscale"]) + WhiteKernel(job["noise"])
    g = GaussianProcessRegressor(kernel=kern, alpha=0, optimizer=None).fit(x, y)
    theta = g.kernel_.theta

    def fit():
        g.log_marginal_likelihood(theta, eval_gradient=True)
        return "log_marginal_likelihood(θ, eval_gradient=True)"

    return fit


def svm(job):
    from sklearn.svm import SVC

    x, y = xy(job, job["file"])

    def fit():
        m = SVC(C=job["C"], kernel="rbf", gamma=job["gamma"], tol=job["tol"], cache_size=job["cache_mb"]).fit(x, y)
        return "%d iterations, %d support vectors" % (m.n_iter_[0], m.n_support_.sum())

    return fit


def logreg(job):
    from sklearn.linear_model import LogisticRegression

    x, y = xy(job, job["file"])
    n = len(y)

    def fit():
        m = LogisticRegression(solver="newton-cg", C=1 / (n * job["lambda"]), tol=job["tol"], max_iter=1000).fit(x, y)
        return "newton-cg, %d iterations" % m.n_iter_[0]

    return fit


def kmeans(job):
    from sklearn.cluster import KMeans

    x, _ = xy(job, job.get("file", "kmeans.csv"))
    init = np.array(job["centres"])

    def fit():
        m = KMeans(n_clusters=len(init), init=init, n_init=1, max_iter=job["iters"], tol=0, algorithm="lloyd").fit(x)
        return m.n_iter_

    return fit


def em(job):
    from sklearn.mixture import GaussianMixture

    x, _ = xy(job, job.get("file", "em.csv"))
    means = np.array(job["means"])
    k, d = means.shape

    def fit():
        m = GaussianMixture(k, covariance_type="full", max_iter=job["iters"], tol=0, reg_covar=0,
                            means_init=means, weights_init=np.full(k, 1 / k),
                            precisions_init=np.array([np.eye(d) / v for v in job["variances"]])).fit(x)
        return m.n_iter_

    return fit


def cholesky(job):
    n = job["n"]
    rng = np.random.default_rng(n)
    a = rng.standard_normal((n, n))
    a = a @ a.T + n * np.eye(n)

    def fit():
        np.linalg.cholesky(a)
        return "numpy.linalg.cholesky (LAPACK dpotrf)"

    return fit


CASES = {"gp": gp, "gp_eval": gp_eval, "svm": svm, "logreg": logreg, "kmeans": kmeans, "em": em, "cholesky": cholesky}


def main():
    fits = {}
    for line in sys.stdin:
        job = json.loads(line)
        try:
            key = json.dumps(job, sort_keys=True)
            if key not in fits:
                fits[key] = CASES[job["case"]](job)
            before, _ = rss()
            peaked = reset_peak()
            c0, w0 = time.process_time(), time.perf_counter()
            note = fits[key]()
            c1, w1 = time.process_time(), time.perf_counter()
            _, hwm = rss()
            answer = {"cpu": c1 - c0, "wall": w1 - w0, "peak": max(0, hwm - before) if peaked else 0}
            if isinstance(note, (int, np.integer)):
                answer["iters"] = int(note)
            else:
                answer["note"] = note
        except Exception as e:  # the Go side reports it and goes on
            answer = {"error": "%s: %s" % (type(e).__name__, e)}
        print(json.dumps(answer), flush=True)


if __name__ == "__main__":
    main()
