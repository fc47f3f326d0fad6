package main

import (
	"fmt"
	"image/color"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
)

// The plots draw with gonum/plot, as cmd/shale-bench-compare's do: one PNG
// per figure, the number of keys on a log X axis, Shale in solid lines and
// Redis in dashed ones of the same color.

// commandColors keeps each command's color the same in every plot.
var commandColors = map[string]color.Color{
	"GET":  color.RGBA{R: 0xd6, G: 0x5f, B: 0x00, A: 0xff},
	"SET":  color.RGBA{R: 0x1f, G: 0x5f, B: 0xb4, A: 0xff},
	"HGET": color.RGBA{R: 0x2c, G: 0x8c, B: 0x2c, A: 0xff},
	"HSET": color.RGBA{R: 0x80, G: 0x30, B: 0x90, A: 0xff},
}

var (
	shaleColor = commandColors["GET"]
	redisColor = commandColors["SET"]
	boundColor = color.Gray{Y: 0x70}
)

// curve is one line of a plot: a value per measured size.
type curve struct {
	label  string
	color  color.Color
	dashed bool
	value  func(*sizeResult) (float64, bool) // false: no point at this size
}

// figure is one PNG.
type figure struct {
	file, title, yLabel string
	curves              []curve
}

// writePlots draws the figures into the output directory and returns their
// file names; it draws nothing until two sizes are measured.
func writePlots(r *results) ([]string, error) {
	measured := r.measured()
	if len(measured) < 2 {
		return nil, nil
	}
	var files []string
	for _, f := range figures(r) {
		p, err := drawFigure(f, measured)
		if err != nil {
			return nil, fmt.Errorf("plot %s: %w", f.file, err)
		}
		height := 4 * vg.Inch
		if len(f.curves) > 4 {
			height = 5.5 * vg.Inch
		}
		if err := p.Save(7*vg.Inch, height, filepath.Join(r.Opts.Out, f.file)); err != nil {
			return nil, fmt.Errorf("plot %s: %w", f.file, err)
		}
		files = append(files, f.file)
	}
	return files, nil
}

func figures(r *results) []figure {
	var figs []figure
	for _, dist := range distributions {
		ops := figure{file: "scale-ops-" + dist + ".png", title: "ops/s, " + dist + " keys (median over rounds)", yLabel: "ops/s"}
		p99 := figure{file: "scale-p99-" + dist + ".png", title: "p99 latency, " + dist + " keys (median over rounds)", yLabel: "p99, ms"}
		for _, c := range commands {
			for _, srv := range []string{"shale", "redis"} {
				t := test{Cmd: c, Dist: dist}
				label := c + " " + serverLabel(srv)
				ops.curves = append(ops.curves, curve{label, commandColors[c], srv == "redis", func(sr *sizeResult) (float64, bool) {
					s := summarize(sr, srv, t)
					return s.OpsPerSec, s.Rounds > 0
				}})
				p99.curves = append(p99.curves, curve{label, commandColors[c], srv == "redis", func(sr *sizeResult) (float64, bool) {
					s := summarize(sr, srv, t)
					return ms(s.P99), s.Rounds > 0
				}})
			}
		}
		figs = append(figs, ops, p99)
	}
	toMiB := func(b int64) float64 { return float64(b) / (1 << 20) }
	redisFig := func(v func(*serverSize) float64) func(*sizeResult) (float64, bool) {
		return func(sr *sizeResult) (float64, bool) {
			if sr.Redis == nil {
				return 0, false
			}
			return v(sr.Redis), true
		}
	}
	shaleFig := func(v func(*serverSize) float64) func(*sizeResult) (float64, bool) {
		return func(sr *sizeResult) (float64, bool) { return v(&sr.Shale), true }
	}
	peak := func(s *serverSize) float64 { return toMiB(max(s.PeakRSS, s.HWM)) }
	disk := func(s *serverSize) float64 { return toMiB(s.DiskBytes) }
	restart := func(s *serverSize) float64 { return s.Restart.Get.Seconds() }
	loadRate := func(s *serverSize) float64 { return s.ItemsPerSec() }
	figs = append(figs,
		figure{"scale-memory.png", "peak RSS (load and tests)", "MiB", []curve{
			{"Shale", shaleColor, false, shaleFig(peak)},
			{"Shale's configured bound", boundColor, true, func(*sizeResult) (float64, bool) { return toMiB(r.Bound.Total()), true }},
			{"Redis", redisColor, true, redisFig(peak)},
		}},
		figure{"scale-disk.png", "disk: Shale's data directory after SAVE, Redis's RDB", "MiB", []curve{
			{"Shale", shaleColor, false, shaleFig(disk)},
			{"Redis RDB", redisColor, true, redisFig(disk)},
		}},
		figure{"scale-restart.png", "restart on the same data: from launch to the first GET served", "seconds", []curve{
			{"Shale", shaleColor, false, shaleFig(restart)},
			{"Redis (loads its RDB)", redisColor, true, redisFig(restart)},
		}},
		figure{"scale-load.png", "load: strings and hash fields written per second", "items/s", []curve{
			{"Shale", shaleColor, false, shaleFig(loadRate)},
			{"Redis", redisColor, true, redisFig(loadRate)},
		}},
	)
	return figs
}

func serverLabel(srv string) string {
	if srv == "redis" {
		return "Redis"
	}
	return "Shale"
}

// drawFigure draws f's curves over the measured sizes.
func drawFigure(f figure, measured []*sizeResult) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = f.title
	p.X.Label.Text = "keys (strings; a tenth as many 100-field hashes besides)"
	p.Y.Label.Text = f.yLabel
	p.X.Scale = plot.LogScale{}
	ticks := make(plot.ConstantTicks, len(measured))
	for i, sr := range measured {
		ticks[i] = plot.Tick{Value: float64(sr.Keys), Label: count(sr.Keys)}
	}
	p.X.Tick.Marker = ticks
	p.Y.Min = 0
	for _, c := range f.curves {
		var xys plotter.XYs
		for _, sr := range measured {
			if y, ok := c.value(sr); ok {
				xys = append(xys, plotter.XY{X: float64(sr.Keys), Y: y})
			}
		}
		if len(xys) == 0 {
			continue
		}
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		line.Color, points.Color = c.color, c.color
		line.Width = vg.Points(1.5)
		if c.dashed {
			line.Dashes = plotutil.Dashes(2)
			points.Shape = plotutil.Shape(1)
		}
		p.Add(line, points)
		p.Legend.Add(c.label, line, points)
	}
	p.Y.Max *= 1.2 + 0.07*float64(len(f.curves)) // room for the legend above the curves
	p.Legend.Top = true
	p.Legend.Left = true
	p.Add(plotter.NewGrid())
	return p, nil
}
