package main

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// serverColors keeps each server's color the same in every plot.
var serverColors = map[string]color.Color{
	"shale":   color.RGBA{R: 0xd6, G: 0x5f, B: 0x00, A: 0xff},
	"redis":   color.RGBA{R: 0x1f, G: 0x5f, B: 0xb4, A: 0xff},
	"ceiling": color.RGBA{R: 0x70, G: 0x70, B: 0x70, A: 0xff},
}

var serverLabels = map[string]string{"shale": "Shale", "redis": "Redis", "ceiling": "Go+redcon in-memory ceiling"}

// writePlots draws a PNG per measured phase into the output directory and
// returns their file names, by phase.
func writePlots(r *results) (map[string]string, error) {
	files := map[string]string{}
	type drawer struct {
		phase, file string
		skip        bool
		draw        func(*results) (*plot.Plot, vg.Length, vg.Length, error)
	}
	for _, d := range []drawer{
		{"throughput", "throughput.png", len(r.Throughput) == 0, plotThroughput},
		{"ratio", "throughput_ratio.png", len(r.Throughput) == 0, plotRatios},
		{"del", "del_latency.png", len(r.Dels) == 0, plotDels},
		{"reclaim", "reclaim.png", r.Reclaim == nil, plotReclaim},
		{"memory", "memory.png", r.Memory == nil, plotMemory},
		{"mixed", "mixed_p99.png", len(r.Mixed) == 0, plotMixed},
	} {
		if d.skip {
			continue
		}
		p, w, h, err := d.draw(r)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", d.phase, err)
		}
		if err := p.Save(w, h, filepath.Join(r.Opts.Out, d.file)); err != nil {
			return nil, fmt.Errorf("plot %s: %w", d.phase, err)
		}
		files[d.phase] = d.file
	}
	return files, nil
}

// plotThroughput draws grouped bars: median ops/s per test, one bar per
// server.
func plotThroughput(r *results) (*plot.Plot, vg.Length, vg.Length, error) {
	rows := summarizeThroughput(r.Throughput)
	p := perTestPlot(rows, "redis-benchmark: median ops/s per test", "ops/s")
	width := vg.Points(12)
	for i, srv := range serverNames {
		vals := make(plotter.Values, len(rows))
		present := false
		for j, row := range rows {
			vals[j] = row.Median[srv]
			present = present || vals[j] > 0
		}
		if !present {
			continue
		}
		if err := addBars(p, vals, width, vg.Length(i-1)*width, srv, serverLabels[srv]); err != nil {
			return nil, 0, 0, err
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	return p, 11 * vg.Inch, 5 * vg.Inch, nil
}

// plotRatios draws Shale's median ops/s as a fraction of each peer's, per
// test: the figure that survives a noisy machine.
func plotRatios(r *results) (*plot.Plot, vg.Length, vg.Length, error) {
	rows := summarizeThroughput(r.Throughput)
	p := perTestPlot(rows, "Shale's ops/s as a fraction of each peer's (median over rounds)", "Shale / peer")
	width := vg.Points(14)
	for i, peer := range []string{"redis", "ceiling"} {
		vals := make(plotter.Values, len(rows))
		for j, row := range rows {
			if row.Median[peer] > 0 {
				vals[j] = row.Median["shale"] / row.Median[peer]
			}
		}
		if err := addBars(p, vals, width, (vg.Length(i)-0.5)*width, peer, "Shale / "+serverLabels[peer]); err != nil {
			return nil, 0, 0, err
		}
	}
	p.Y.Max = math.Max(p.Y.Max*1.25, 1.1)
	parity, err := plotter.NewLine(plotter.XYs{{X: -0.5, Y: 1}, {X: float64(len(rows)) - 0.5, Y: 1}})
	if err != nil {
		return nil, 0, 0, err
	}
	parity.Dashes = plotutil.Dashes(1)
	p.Add(parity)
	p.Legend.Add("parity", parity)
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p, 11 * vg.Inch, 4 * vg.Inch, nil
}

// perTestPlot starts a bar plot with one group of bars per redis-benchmark
// test of rows, named on the X axis at a slant so that long names fit.
func perTestPlot(rows []throughputRow, title, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Y.Label.Text = yLabel
	p.Y.Min = 0
	names := make([]string, len(rows))
	for i, row := range rows {
		names[i] = row.Test
	}
	p.NominalX(names...)
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign = draw.XRight
	p.X.Tick.Label.YAlign = draw.YCenter
	return p
}

// addBars adds one bar per test to p, in server's color, offset from the
// group's center, under label in the legend.
func addBars(p *plot.Plot, vals plotter.Values, width, offset vg.Length, server, label string) error {
	bars, err := plotter.NewBarChart(vals, width)
	if err != nil {
		return err
	}
	bars.LineStyle.Width = 0
	bars.Color = serverColors[server]
	bars.Offset = offset
	p.Add(bars)
	p.Legend.Add(label, bars)
	return nil
}

// plotDels draws DEL p50 against the number of elements, log-log, one line
// per server and type.
func plotDels(r *results) (*plot.Plot, vg.Length, vg.Length, error) {
	p := plot.New()
	p.Title.Text = "DEL round trip (p50) against key size"
	p.X.Label.Text = "elements in the key"
	p.Y.Label.Text = "DEL latency, ms"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.X.Tick.Marker, p.Y.Tick.Marker = plot.LogTicks{Prec: -1}, plot.LogTicks{Prec: -1}
	for ti, t := range bigKeyTypes {
		for _, srv := range []string{"shale", "redis"} {
			var xys plotter.XYs
			for _, d := range r.Dels {
				if d.Server == srv && d.Type == t.Name {
					xys = append(xys, plotter.XY{X: float64(d.Elements), Y: float64(d.P50()) / 1e6})
				}
			}
			if len(xys) == 0 {
				continue
			}
			sort.Slice(xys, func(i, j int) bool { return xys[i].X < xys[j].X })
			line, points, err := plotter.NewLinePoints(xys)
			if err != nil {
				return nil, 0, 0, err
			}
			line.Color = serverColors[srv]
			line.Dashes = plotutil.Dashes(ti)
			points.Color = serverColors[srv]
			points.Shape = plotutil.Shape(ti)
			p.Add(line, points)
			p.Legend.Add(serverLabels[srv]+" "+t.Name, line, points)
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	return p, 7 * vg.Inch, 5 * vg.Inch, nil
}

// plotReclaim draws the subkey CF's SST size after the DEL, with the
// pre-insert size and the 10% band.
func plotReclaim(r *results) (*plot.Plot, vg.Length, vg.Length, error) {
	rc := r.Reclaim
	p := plot.New()
	p.Title.Text = fmt.Sprintf("subkey CF SST size after DEL of a %d-field hash", rc.Fields)
	p.X.Label.Text = "seconds after DEL"
	p.Y.Label.Text = "MiB"
	p.Y.Min = 0
	toMiB := func(b int64) float64 { return float64(b) / (1 << 20) }
	xys := make(plotter.XYs, len(rc.Samples))
	for i, s := range rc.Samples {
		xys[i] = plotter.XY{X: s.Seconds, Y: toMiB(s.Bytes)}
	}
	line, err := plotter.NewLine(xys)
	if err != nil {
		return nil, 0, 0, err
	}
	line.Color = serverColors["shale"]
	line.Width = vg.Points(2)
	p.Add(line)
	p.Legend.Add("subkey SST bytes", line)
	last := rc.Samples[len(rc.Samples)-1].Seconds
	for i, h := range []struct {
		label string
		y     float64
	}{
		{"before DEL", toMiB(rc.PreDel)},
		{"pre-insert + 10%", toMiB(rc.PreInsert) * 1.1},
		{"pre-insert", toMiB(rc.PreInsert)},
	} {
		if err := addLevel(p, h.label, h.y, last, uint8(60+50*i), i+1); err != nil {
			return nil, 0, 0, err
		}
	}
	p.Y.Max *= 1.5 // room for the title and the legend above the lines
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	return p, 7 * vg.Inch, 4 * vg.Inch, nil
}

// plotMemory draws the server's RSS over the run with the target bound.
func plotMemory(r *results) (*plot.Plot, vg.Length, vg.Length, error) {
	m, c := r.Memory, r.Opts.Memory
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Shale RSS: %d MiB block cache, %d MiB of data", c.BlockCacheBytes>>20, c.DataBytes>>20)
	p.X.Label.Text = "seconds (load, then mixed HGET/HSET)"
	p.Y.Label.Text = "MiB"
	p.Y.Min = 0
	for _, phase := range []string{"load", "mixed"} {
		var xys plotter.XYs
		for _, s := range m.RSSSamples {
			if s.Phase == phase {
				xys = append(xys, plotter.XY{X: s.Seconds, Y: float64(s.Bytes) / (1 << 20)})
			}
		}
		if len(xys) == 0 {
			continue
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, 0, 0, err
		}
		line.Color = serverColors["shale"]
		line.Width = vg.Points(2)
		if phase == "load" {
			line.Color = serverColors["ceiling"]
		}
		p.Add(line)
		p.Legend.Add("RSS, "+phase, line)
	}
	if n := len(m.RSSSamples); n > 0 {
		last := m.RSSSamples[n-1].Seconds
		for i, h := range []struct {
			label string
			y     int64
		}{
			{"target: cache + memtables + 256 MiB", c.Target()},
			{"block cache + memtable budget", c.BlockCacheBytes + c.MemtableBudget()},
		} {
			if err := addLevel(p, h.label, float64(h.y)/(1<<20), last, uint8(60+60*i), i+1); err != nil {
				return nil, 0, 0, err
			}
		}
	}
	p.Y.Max *= 1.15 // room for the title
	p.Add(plotter.NewGrid())
	return p, 7 * vg.Inch, 4 * vg.Inch, nil
}

// plotMixed draws each mixed run's p99 per second, log scale, with its
// DEL and COMPACT marked by vertical lines in the server's color.
func plotMixed(r *results) (*plot.Plot, vg.Length, vg.Length, error) {
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Mixed load: p99 per second; DEL of a %d-field hash (dashed), COMPACT (dotted)", r.Opts.Mixed.BigFields)
	p.Title.Padding = vg.Points(8) // the title's top stays inside the image
	p.X.Label.Text = "seconds since the load began"
	p.Y.Label.Text = "p99, ms"
	p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
	lo, hi := math.Inf(1), 0.0
	for _, run := range r.Mixed {
		for _, sec := range run.Timeline {
			if v := durationMs(sec.P99); v > 0 {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if hi == 0 {
		return nil, 0, 0, fmt.Errorf("no requests in the mixed runs")
	}
	labeled := map[string]bool{}
	for _, run := range r.Mixed {
		var xys plotter.XYs
		for i, sec := range run.Timeline {
			if v := durationMs(sec.P99); v > 0 { // a second without requests has no p99
				xys = append(xys, plotter.XY{X: float64(i) + 0.5, Y: v})
			}
		}
		line, err := plotter.NewLine(xys)
		if err != nil {
			return nil, 0, 0, err
		}
		line.Color = serverColors[run.Server]
		line.Width = vg.Points(1.5)
		p.Add(line)
		if !labeled[run.Server] {
			p.Legend.Add(serverLabels[run.Server], line)
			labeled[run.Server] = true
		}
		for dashes, at := range []float64{run.DelAt, run.CompactAt} {
			if at < 0 {
				continue
			}
			mark, err := plotter.NewLine(plotter.XYs{{X: at, Y: lo}, {X: at, Y: hi}})
			if err != nil {
				return nil, 0, 0, err
			}
			mark.Color = serverColors[run.Server]
			mark.Dashes = plotutil.Dashes(dashes + 1)
			p.Add(mark)
		}
	}
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(plotter.NewGrid())
	return p, 9 * vg.Inch, 4 * vg.Inch, nil
}

// addLevel adds a horizontal dashed line at y, from 0 to until on the X
// axis, in the gray shade gray with plotutil's dash pattern dashes, under
// label in the legend: a reference level for the curves.
func addLevel(p *plot.Plot, label string, y, until float64, gray uint8, dashes int) error {
	hl, err := plotter.NewLine(plotter.XYs{{X: 0, Y: y}, {X: until, Y: y}})
	if err != nil {
		return err
	}
	hl.Color = color.Gray{Y: gray}
	hl.Dashes = plotutil.Dashes(dashes)
	p.Add(hl)
	p.Legend.Add(label, hl)
	return nil
}
