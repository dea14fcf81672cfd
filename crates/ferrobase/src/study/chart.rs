//! SVG charts (plotters' SVG backend): a grid of panels, each a few line series over a shared
//! x axis.

use anyhow::{anyhow, Result};
use plotters::coord::combinators::IntoLogRange;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::prelude::*;
use std::path::Path;

/// One line: a label for the legend and its points (x, y).
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Points in x order.
    pub points: Vec<(f64, f64)>,
}

/// One panel of a chart.
#[derive(Debug, Clone)]
pub struct Panel {
    /// Caption above the panel.
    pub title: String,
    /// Text of the y axis.
    pub y_label: String,
    /// Log-scaled y axis (for values spanning decades).
    pub log_y: bool,
    /// Whether the panel shows a legend (panels repeating the same series may leave it out).
    pub legend: bool,
    /// The lines.
    pub series: Vec<Series>,
}

/// The x axis shared by every panel of a chart.
#[derive(Debug, Clone)]
pub struct XAxis {
    /// Text of the axis.
    pub label: String,
    /// Log-scaled.
    pub log: bool,
}

const COLOURS: [RGBColor; 8] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(255, 127, 14),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
];

/// Draws `panels` in a grid of `columns` columns into an SVG file at `path`.
pub fn write_svg(path: &Path, x: &XAxis, panels: &[Panel], columns: usize) -> Result<()> {
    let rows = panels.len().div_ceil(columns).max(1);
    let size = (480 * columns as u32, 340 * rows as u32);
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    let areas = root.split_evenly((rows, columns));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        let (x_min, x_max) = bounds(
            panel
                .series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0)),
        );
        let (y_min, y_max) = bounds(
            panel
                .series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.1)),
        );
        // Log axes run from decade to decade, so every panel has at least two labelled ticks.
        let (x_min, x_max) = if x.log {
            decades(x_min, x_max)
        } else {
            (x_min, x_max)
        };
        let (y_lo, y_hi) = if panel.log_y {
            decades(y_min, y_max)
        } else {
            (0.0, y_max * 1.1)
        };
        match (x.log, panel.log_y) {
            (true, true) => draw(
                area,
                panel,
                x,
                (x_min..x_max).log_scale(),
                (y_lo..y_hi).log_scale(),
            )?,
            (true, false) => draw(area, panel, x, (x_min..x_max).log_scale(), y_lo..y_hi)?,
            (false, true) => draw(area, panel, x, x_min..x_max, (y_lo..y_hi).log_scale())?,
            (false, false) => draw(area, panel, x, x_min..x_max, y_lo..y_hi)?,
        }
    }
    root.present().map_err(plot_error)?;
    Ok(())
}

fn draw<X, Y>(
    area: &DrawingArea<SVGBackend<'_>, plotters::coord::Shift>,
    panel: &Panel,
    x: &XAxis,
    x_range: X,
    y_range: Y,
) -> Result<()>
where
    X: AsRangedCoord<Value = f64>,
    Y: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut chart = ChartBuilder::on(area)
        .caption(&panel.title, ("sans-serif", 16))
        .margin(8)
        .x_label_area_size(36)
        .y_label_area_size(64)
        .build_cartesian_2d(x_range, y_range)
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .x_desc(&x.label)
        .y_desc(&panel.y_label)
        .x_label_formatter(&|v| short(*v))
        .y_label_formatter(&|v| short(*v))
        .draw()
        .map_err(plot_error)?;
    for (i, s) in panel.series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        chart
            .draw_series(LineSeries::new(
                s.points.iter().copied(),
                colour.stroke_width(2),
            ))
            .map_err(plot_error)?
            .label(s.label.clone())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 16, y)], colour.stroke_width(2))
            });
        chart
            .draw_series(s.points.iter().map(|p| Circle::new(*p, 3, colour.filled())))
            .map_err(plot_error)?;
    }
    if !panel.legend {
        return Ok(());
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .position(SeriesLabelPosition::UpperLeft)
        .draw()
        .map_err(plot_error)?;
    Ok(())
}

/// One panel of a bar chart: one bar per label, on a log-scaled y axis.
#[derive(Debug, Clone)]
pub struct BarPanel {
    /// Caption above the panel.
    pub title: String,
    /// Text of the y axis.
    pub y_label: String,
    /// The bars: label and value (values <= 0 are drawn at the axis).
    pub bars: Vec<(String, f64)>,
}

/// Draws bar `panels` (log y) in a grid of `columns` columns into an SVG file at `path`; each
/// bar is labelled with its value.
pub fn write_bar_svg(path: &Path, panels: &[BarPanel], columns: usize) -> Result<()> {
    let rows = panels.len().div_ceil(columns).max(1);
    let size = (480 * columns as u32, 340 * rows as u32);
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    let areas = root.split_evenly((rows, columns));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        let (lo, hi) = bounds(panel.bars.iter().map(|b| b.1));
        let (y_lo, y_hi) = decades(lo.min(1.0), hi * 1.5);
        let n = panel.bars.len();
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, ("sans-serif", 16))
            .margin(8)
            .x_label_area_size(36)
            .y_label_area_size(64)
            // A segmented 0..k range has k + 1 segments: one per bar.
            .build_cartesian_2d(
                (0..n.saturating_sub(1)).into_segmented(),
                (y_lo..y_hi).log_scale(),
            )
            .map_err(plot_error)?;
        let labels: Vec<String> = panel.bars.iter().map(|b| b.0.clone()).collect();
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(n)
            .y_desc(&panel.y_label)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .y_label_formatter(&|v| short(*v))
            .draw()
            .map_err(plot_error)?;
        for (i, (_, v)) in panel.bars.iter().enumerate() {
            let colour = COLOURS[i % COLOURS.len()];
            let top = v.max(y_lo);
            chart
                .draw_series([Rectangle::new(
                    [
                        (SegmentValue::Exact(i), y_lo),
                        (SegmentValue::Exact(i + 1), top),
                    ],
                    colour.mix(0.8).filled(),
                )])
                .map_err(plot_error)?;
            chart
                .draw_series([Text::new(
                    short_value(*v),
                    (SegmentValue::CenterOf(i), top),
                    ("sans-serif", 13).into_font(),
                )])
                .map_err(plot_error)?;
        }
    }
    root.present().map_err(plot_error)?;
    Ok(())
}

/// A bar's value label: three significant figures, k and M for large values.
fn short_value(v: f64) -> String {
    if v.abs() >= 1e3 {
        short(
            (v / 10f64.powi(v.abs().log10().floor() as i32 - 2)).round()
                * 10f64.powi(v.abs().log10().floor() as i32 - 2),
        )
    } else if v.abs() >= 10.0 {
        format!("{v:.0}")
    } else {
        trim(v)
    }
}

/// The smallest and largest finite positive value, widened when equal.
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)));
    if lo > hi {
        (1.0, 10.0)
    } else if lo == hi {
        (lo / 2.0, hi * 2.0)
    } else {
        (lo, hi)
    }
}

/// The powers of ten around `lo..hi`.
fn decades(lo: f64, hi: f64) -> (f64, f64) {
    let lo = (lo.log10() + 1e-9).floor();
    let hi = (hi.log10() - 1e-9).ceil().max(lo + 1.0);
    (10f64.powf(lo), 10f64.powf(hi))
}

/// Axis labels: 1k, 10k, 1M rather than 1000, 10000, 1000000.
fn short(v: f64) -> String {
    let a = v.abs();
    if a >= 1e6 {
        format!("{}M", trim(v / 1e6))
    } else if a >= 1e3 {
        format!("{}k", trim(v / 1e3))
    } else {
        trim(v)
    }
}

fn trim(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn plot_error<E: std::fmt::Display>(e: E) -> anyhow::Error {
    anyhow!("drawing the chart: {e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_an_svg_with_every_series_label() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.svg");
        let panel = Panel {
            title: "latency".into(),
            y_label: "µs".into(),
            log_y: true,
            legend: true,
            series: vec![
                Series {
                    label: "tall".into(),
                    points: vec![(10.0, 5.0), (1000.0, 6.0)],
                },
                Series {
                    label: "wide".into(),
                    points: vec![(10.0, 4.0), (1000.0, 60.0)],
                },
            ],
        };
        let x = XAxis {
            label: "records per user".into(),
            log: true,
        };
        write_svg(&path, &x, &[panel.clone(), panel], 2).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
        assert!(
            svg.contains("\ntall\n") && svg.contains("\nwide\n"),
            "{svg}"
        );
    }

    #[test]
    fn log_axes_span_whole_decades() {
        assert_eq!(decades(10.0, 100_000.0), (10.0, 100_000.0));
        assert_eq!(decades(1000.0, 1000.0), (1000.0, 10_000.0));
        assert_eq!(decades(23.0, 37.0), (10.0, 100.0));
    }

    #[test]
    fn bar_chart_names_every_bar() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.svg");
        let panel = BarPanel {
            title: "rows".into(),
            y_label: "rows".into(),
            bars: vec![("scan".into(), 40.0), ("full".into(), 1_000_000.0)],
        };
        write_bar_svg(&path, &[panel], 1).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(
            svg.contains("scan") && svg.contains("full") && svg.contains("1M"),
            "{svg}"
        );
    }

    #[test]
    fn short_labels() {
        assert_eq!(short(100_000.0), "100k");
        assert_eq!(short(2_500_000.0), "2.5M");
        assert_eq!(short(12.0), "12");
    }
}
