package dpsim

import "github.com/thelab/lab/sims"

// dpMetrics are the Dirichlet-process sim's metrics, by view
// (sims.MetricDecl).
var dpMetrics = []sims.MetricDecl{
	sims.Declare("draws", "dirichlet, stick: draws made"),
	sims.Declare("max_z", "dirichlet: largest |running mean − α_k/α₀| in standard errors"),
	sims.Declare("pieces", "stick: pieces broken off the stick"),
	sims.Declare("rest", "stick: length of the stick left"),
	sims.Declare("customers", "crp: customers seated"),
	sims.Declare("tables", "crp: tables occupied, K_n"),
	sims.Declare("expected", "crp: the expected number of tables E[K_n]"),
	sims.Declare("sweep", "mixture: Gibbs sweeps made"),
	sims.Declare("clusters", "mixture: clusters in the current state"),
	sims.Declare("logjoint", "mixture: log joint density of the state, per point"),
}
