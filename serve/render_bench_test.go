package serve

import (
	"io"
	"testing"

	tea "charm.land/bubbletea/v2"
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/thelab/lab/sims"
	"github.com/thelab/lab/sims/catalog"
	"github.com/thelab/lab/tui"
)

// BenchmarkRenderFrame: what Bubble Tea's renderer spends on one changed
// frame of the lab at 200×60, per cell: the view parsed into cells and
// written out as the changes from the frame before (every pane runs, so
// every frame differs), beside what the lab's View spends drawing it.
func BenchmarkRenderFrame(b *testing.B) {
	const w, h = 200, 60
	lab, err := tui.New(tui.Options{Catalog: catalog.All(), Sims: []string{"mh", "gd", "em-gmm", "kmeans"}, Seed: 1, Budget: sims.NewBudget(sims.Limits{})})
	if err != nil {
		b.Fatal(err)
	}
	defer lab.Close()
	lab.Update(tea.WindowSizeMsg{Width: w, Height: h})
	views := make([]string, 8)
	for i := range views {
		for range 5 {
			lab.Update(tea.KeyPressMsg{Code: 's', Text: "s"})
		}
		views[i] = lab.View().Content
	}
	buf := uv.NewScreenBuffer(w, h)
	scr := uv.NewTerminalRenderer(io.Discard, nil)
	scr.Resize(w, h)
	b.ResetTimer()
	for i := range b.N {
		buf.Clear()
		uv.NewStyledString(views[i%len(views)]).Draw(buf, buf.Bounds())
		scr.Render(buf.RenderBuffer)
		_ = scr.Flush()
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(w*h), "ns/cell")
}
