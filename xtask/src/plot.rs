//! SVG plots for the bench report: throughput against input size, one chart
//! per benchmark group, ours against the alternatives (kernels and server
//! rows are in the tables).

use crate::bench_types::Point;
use plotters::prelude::*;
use std::collections::BTreeMap;
use std::path::Path;

/// Series name -> (size, GB/s) points.
type Series<'a> = BTreeMap<&'a str, Vec<(f64, f64)>>;

/// Draws one SVG per group that has at least two sizes; returns
/// (group, file name) for the report's links.
pub fn draw(points: &[Point], dir: &Path) -> Vec<(String, String)> {
    let mut by_group: BTreeMap<&str, Series> = BTreeMap::new();
    for p in points {
        by_group
            .entry(p.group.as_str())
            .or_default()
            .entry(p.series.as_str())
            .or_default()
            .push((p.size, p.gbps));
    }
    let mut out = Vec::new();
    for (group, series) in by_group {
        let sizes: Vec<f64> = series.values().flatten().map(|p| p.0).collect();
        let min = sizes.iter().cloned().fold(f64::INFINITY, f64::min);
        let max = sizes.iter().cloned().fold(0.0, f64::max);
        if !(min.is_finite() && max > min) {
            continue;
        }
        let top = series.values().flatten().map(|p| p.1).fold(0.0, f64::max) * 1.1;
        let file = format!("{}.svg", group.replace('/', "-"));
        let path = dir.join(&file);
        if chart(&path, group, &series, (min, max), top.max(0.001)).is_ok() {
            out.push((group.to_string(), file));
        }
    }
    out
}

fn chart(
    path: &Path,
    group: &str,
    series: &Series,
    (min, max): (f64, f64),
    top: f64,
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (900, 540)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{group}: throughput (GB/s) vs input size (bytes)"),
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d((min..max).log_scale(), 0.0..top)?;
    chart
        .configure_mesh()
        .x_label_formatter(&|v| size_label(*v))
        .y_label_formatter(&|v| format!("{v:.0}"))
        .x_desc("input size (bytes, log scale)")
        .y_desc("GB/s")
        .draw()?;
    for (i, (name, pts)) in series.iter().enumerate() {
        let mut pts = pts.clone();
        pts.sort_by(|a, b| a.0.total_cmp(&b.0));
        let color = Palette99::pick(i).to_rgba();
        let style = if *name == "ours" {
            color.stroke_width(3)
        } else {
            color.stroke_width(1)
        };
        chart
            .draw_series(LineSeries::new(pts.iter().copied(), style))?
            .label(*name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], color));
        chart.draw_series(
            pts.iter()
                .map(|&(x, y)| Circle::new((x, y), 3, color.filled())),
        )?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    root.present()?;
    Ok(())
}

/// `100 B`, `10 kB`, `1 MB`: the log axis ticks at powers of ten, so the
/// labels use decimal units.
fn size_label(bytes: f64) -> String {
    const UNITS: [&str; 4] = ["B", "kB", "MB", "GB"];
    let mut v = bytes;
    let mut unit = 0;
    while v >= 1000.0 && unit + 1 < UNITS.len() {
        v /= 1000.0;
        unit += 1;
    }
    if v >= 10.0 || v.fract() == 0.0 {
        format!("{v:.0} {}", UNITS[unit])
    } else {
        format!("{v:.1} {}", UNITS[unit])
    }
}
