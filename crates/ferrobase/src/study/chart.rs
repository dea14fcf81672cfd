//! SVG charts (plotters' SVG backend): a grid of panels, each a few line series over a shared
//! x axis, or bars; a footer under the grid (the run's load average, a key to the bars).
//!
//! Every panel keeps its text apart from its data and from other text: the legend is a strip
//! under the plot, never over the lines; the plot leaves room at the right for the last x label;
//! minor grid lines are off; bar labels are short keys explained in the footer. `tests` renders
//! the charts to PNG with resvg and checks that every text lies inside the canvas and no two
//! texts overlap.

use anyhow::{anyhow, Result};
use plotters::coord::combinators::IntoLogRange;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One line: a label for the legend and its points (x, y).
#[derive(Debug, Clone)]
pub struct Series {
    /// Legend text.
    pub label: String,
    /// Points in x order.
    pub points: Vec<(f64, f64)>,
    /// The min–max of the runs behind each point (same length as `points`, or empty when each
    /// point is one run), drawn as a vertical bar.
    pub ranges: Vec<(f64, f64)>,
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
    /// Drawn as a heat map instead of lines (`series` then empty): rows × the x points.
    pub heat: Option<HeatGrid>,
}

/// A heat-map panel's figures, as the console's key-range heat map draws them: x is the x
/// axis's points 1, 2, ... (one column each), y the rows (key ranges, the first at the
/// bottom), colour the value. The colour scale is shared with the chart's other panels when
/// its layout shares the y scale: full colour is the largest value any panel shows.
#[derive(Debug, Clone)]
pub struct HeatGrid {
    /// What a row is (`region`): rows are labelled `region 1`, `region 2`, ...
    pub row_label: String,
    /// The values: `columns[x][row]`.
    pub columns: Vec<Vec<f64>>,
}

/// The x axis shared by every panel of a chart.
#[derive(Debug, Clone)]
pub struct XAxis {
    /// Text of the axis.
    pub label: String,
    /// Log-scaled.
    pub log: bool,
}

/// What a line chart shares across its panels.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    /// Columns of the panel grid.
    pub columns: usize,
    /// One y scale for every panel (so panels compare at a glance), else each its own.
    pub shared_y: bool,
    /// Lines of text under the grid (the run's load average, notes).
    pub footer: Vec<String>,
}

/// The unit of a bar panel's values, which decides how they print.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Counts: 1.2k, 3.4M.
    Count,
    /// Microseconds, printed as µs, ms or s.
    Micros,
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

/// Width and height of one panel, pixels.
const PANEL: (u32, u32) = (480, 340);
/// Height of one line of legend or footer text, pixels.
const LINE: u32 = 16;
/// Font size of legends and footers.
const SMALL: u32 = 12;

/// The chart's root area split into the panel grid's area and the footer's.
fn canvas<'a>(
    path: &'a Path,
    panel: (u32, u32),
    rows: usize,
    columns: usize,
    footer: &[String],
) -> Result<(
    DrawingArea<SVGBackend<'a>, Shift>,
    DrawingArea<SVGBackend<'a>, Shift>,
)> {
    let grid_h = panel.1 * rows as u32;
    let foot_h = LINE * footer.len() as u32 + if footer.is_empty() { 0 } else { 8 };
    let root =
        SVGBackend::new(path, (panel.0 * columns as u32, grid_h + foot_h)).into_drawing_area();
    root.fill(&WHITE).map_err(plot_error)?;
    let (grid, foot) = root.split_vertically(grid_h);
    for (i, line) in footer.iter().enumerate() {
        foot.draw(&Text::new(
            line.clone(),
            (8, 4 + (LINE * i as u32) as i32),
            ("sans-serif", SMALL).into_font(),
        ))
        .map_err(plot_error)?;
    }
    Ok((grid, foot))
}

/// Draws `panels` in a grid into an SVG file at `path`.
pub fn write_svg(path: &Path, x: &XAxis, panels: &[Panel], layout: &Layout) -> Result<()> {
    let columns = layout.columns.max(1);
    let rows = panels.len().div_ceil(columns).max(1);
    let (grid, foot) = canvas(path, PANEL, rows, columns, &layout.footer)?;
    let areas = grid.split_evenly((rows, columns));
    let all_y = |p: &Panel| {
        p.series
            .iter()
            .flat_map(|s| {
                s.points
                    .iter()
                    .map(|p| p.1)
                    .chain(s.ranges.iter().map(|r| r.1))
            })
            .collect::<Vec<f64>>()
    };
    let shared = bounds(panels.iter().flat_map(all_y));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        if let Some(heat) = &panel.heat {
            let top = if layout.shared_y {
                shared.1
            } else {
                heat.columns.iter().flatten().copied().fold(0.0, f64::max)
            };
            draw_heat(area, panel, x, heat, top)?;
            continue;
        }
        let (x_min, x_max) = bounds(
            panel
                .series
                .iter()
                .flat_map(|s| s.points.iter().map(|p| p.0)),
        );
        let (y_min, y_max) = if layout.shared_y {
            shared
        } else {
            bounds(all_y(panel).into_iter())
        };
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
        let plot = legend_strip(area, panel)?;
        match (x.log, panel.log_y) {
            (true, true) => draw(
                &plot,
                panel,
                x,
                (x_min..x_max).log_scale(),
                (y_lo..y_hi).log_scale(),
            )?,
            (true, false) => draw(&plot, panel, x, (x_min..x_max).log_scale(), y_lo..y_hi)?,
            (false, true) => draw(&plot, panel, x, x_min..x_max, (y_lo..y_hi).log_scale())?,
            (false, false) => draw(&plot, panel, x, x_min..x_max, y_lo..y_hi)?,
        }
    }
    grid.present().map_err(plot_error)?;
    foot.present().map_err(plot_error)?;
    Ok(())
}

/// The heat map's colour of `v` out of `top`: white through orange to dark red, as the
/// console's heat map.
fn heat_colour(v: f64, top: f64) -> RGBColor {
    let t = if top > 0.0 {
        (v / top).clamp(0.0, 1.0)
    } else {
        0.0
    };
    let lerp = |a: f64, b: f64, t: f64| (a + (b - a) * t).round() as u8;
    if t < 0.5 {
        let u = t * 2.0;
        RGBColor(255, lerp(255.0, 165.0, u), lerp(255.0, 0.0, u))
    } else {
        let u = (t - 0.5) * 2.0;
        RGBColor(lerp(255.0, 160.0, u), lerp(165.0, 0.0, u), 0)
    }
}

/// Draws a heat-map panel: one cell per (x point, row), coloured out of `top`, with the
/// colour scale in the legend strip.
fn draw_heat(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    panel: &Panel,
    x: &XAxis,
    heat: &HeatGrid,
    top: f64,
) -> Result<()> {
    let height = LINE + 8;
    let (plot, strip) = area.split_vertically(PANEL.1 - height);
    // The colour scale: ten steps from 0 to `top`, and what they mean.
    let steps = 10;
    for i in 0..steps {
        let v = top * (i as f64 + 0.5) / steps as f64;
        strip
            .draw(&Rectangle::new(
                [(72 + i * 14, 4), (72 + (i + 1) * 14, 16)],
                heat_colour(v, top).filled(),
            ))
            .map_err(plot_error)?;
    }
    strip
        .draw(&Text::new(
            format!("0 to {} {} per slice", short(top), panel.y_label),
            (72 + steps * 14 + 8, 3),
            ("sans-serif", SMALL).into_font(),
        ))
        .map_err(plot_error)?;
    let n_x = heat.columns.len().max(1) as f64;
    let n_rows = heat.columns.iter().map(Vec::len).max().unwrap_or(0).max(1);
    let mut chart = ChartBuilder::on(&plot)
        .caption(&panel.title, ("sans-serif", 16))
        .margin(8)
        .margin_right(28)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(0.5..n_x + 0.5, 0.0..n_rows as f64)
        .map_err(plot_error)?;
    let label = heat.row_label.clone();
    chart
        .configure_mesh()
        .disable_mesh()
        .x_labels(6)
        .y_labels(n_rows + 1)
        .x_desc(&x.label)
        .y_desc(&label)
        .x_label_formatter(&|v| short(*v))
        // A row's number at its lower edge; none at the top edge.
        .y_label_formatter(&|v| {
            if *v > n_rows as f64 - 0.5 {
                String::new()
            } else {
                format!("{}", v.round() as i64 + 1)
            }
        })
        .draw()
        .map_err(plot_error)?;
    chart
        .draw_series(heat.columns.iter().enumerate().flat_map(|(i, column)| {
            let x0 = i as f64 + 0.5;
            column.iter().enumerate().map(move |(row, v)| {
                Rectangle::new(
                    [(x0, row as f64), (x0 + 1.0, row as f64 + 1.0)],
                    heat_colour(*v, top).filled(),
                )
            })
        }))
        .map_err(plot_error)?;
    // Thin white lines between the cells, so an even spread still shows its regions.
    chart
        .draw_series(heat.columns.iter().enumerate().flat_map(|(i, column)| {
            let x0 = i as f64 + 0.5;
            (0..column.len()).map(move |row| {
                Rectangle::new(
                    [(x0, row as f64), (x0 + 1.0, row as f64 + 1.0)],
                    WHITE.stroke_width(1),
                )
            })
        }))
        .map_err(plot_error)?;
    Ok(())
}

/// Draws the panel's legend in a strip at the bottom of `area` (two columns past four series)
/// and returns the area left for the plot.
fn legend_strip<'a>(
    area: &DrawingArea<SVGBackend<'a>, Shift>,
    panel: &Panel,
) -> Result<DrawingArea<SVGBackend<'a>, Shift>> {
    if !panel.legend || panel.series.is_empty() {
        return Ok(area.clone());
    }
    let n = panel.series.len();
    let per_column = if n > 4 { n.div_ceil(2) } else { n };
    let height = LINE * per_column as u32 + 4;
    let (plot, strip) = area.split_vertically(PANEL.1 - height);
    for (i, s) in panel.series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let x = 72 + (i / per_column) as i32 * 200;
        let y = (LINE * (i % per_column) as u32) as i32 + 2;
        strip
            .draw(&PathElement::new(
                vec![(x, y + 7), (x + 18, y + 7)],
                colour.stroke_width(2),
            ))
            .map_err(plot_error)?;
        strip
            .draw(&Text::new(
                s.label.clone(),
                (x + 24, y),
                ("sans-serif", SMALL).into_font(),
            ))
            .map_err(plot_error)?;
    }
    Ok(plot)
}

fn draw<X, Y>(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
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
        .margin_right(28)
        .x_label_area_size(40)
        .y_label_area_size(64)
        .build_cartesian_2d(x_range, y_range)
        .map_err(plot_error)?;
    chart
        .configure_mesh()
        .light_line_style(TRANSPARENT)
        .x_labels(6)
        .y_labels(6)
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
            .map_err(plot_error)?;
        chart
            .draw_series(s.points.iter().map(|p| Circle::new(*p, 3, colour.filled())))
            .map_err(plot_error)?;
        chart
            .draw_series(s.points.iter().zip(&s.ranges).map(|(p, (lo, hi))| {
                PathElement::new(vec![(p.0, *lo), (p.0, *hi)], colour.stroke_width(1))
            }))
            .map_err(plot_error)?;
    }
    Ok(())
}

/// One panel of a bar chart: one bar per label, on a log-scaled y axis.
#[derive(Debug, Clone)]
pub struct BarPanel {
    /// Caption above the panel.
    pub title: String,
    /// Text of the y axis.
    pub y_label: String,
    /// How values print.
    pub unit: Unit,
    /// The bars: a short label (a key the footer explains) and the value (values <= 0 are
    /// drawn at the axis).
    pub bars: Vec<(String, f64)>,
}

/// Draws bar `panels` (log y) in a grid of `columns` columns into an SVG file at `path`, with
/// `footer` under it; each bar is labelled with its value.
pub fn write_bar_svg(
    path: &Path,
    panels: &[BarPanel],
    columns: usize,
    footer: &[String],
) -> Result<()> {
    let columns = columns.max(1);
    let rows = panels.len().div_ceil(columns).max(1);
    // Room for each bar's value label (about 40 px) beside the next one's.
    let most = panels.iter().map(|p| p.bars.len()).max().unwrap_or(0) as u32;
    let width = PANEL.0.max(44 * most + 100);
    let (grid, foot) = canvas(path, (width, PANEL.1), rows, columns, footer)?;
    let areas = grid.split_evenly((rows, columns));
    for (panel, area) in panels.iter().zip(areas.iter()) {
        let (lo, hi) = bounds(panel.bars.iter().map(|b| b.1));
        let (y_lo, y_hi) = decades(lo.min(1.0), hi * 3.0);
        let n = panel.bars.len();
        let unit = panel.unit;
        let mut chart = ChartBuilder::on(area)
            .caption(&panel.title, ("sans-serif", 15))
            .margin(8)
            .margin_right(16)
            .x_label_area_size(28)
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
            .light_line_style(TRANSPARENT)
            .x_labels(n)
            .y_desc(&panel.y_label)
            .x_label_formatter(&|v| match v {
                SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .y_label_formatter(&|v| axis_value(*v, unit))
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
            // The value above its bar, centred on it.
            let style = TextStyle::from(("sans-serif", SMALL).into_font()).pos(
                plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Center,
                    plotters::style::text_anchor::VPos::Bottom,
                ),
            );
            chart
                .draw_series([Text::new(
                    bar_value(*v, unit),
                    (SegmentValue::CenterOf(i), top),
                    style,
                )])
                .map_err(plot_error)?;
        }
    }
    grid.present().map_err(plot_error)?;
    foot.present().map_err(plot_error)?;
    Ok(())
}

/// An axis tick of `unit`.
fn axis_value(v: f64, unit: Unit) -> String {
    match unit {
        Unit::Count => short(v),
        Unit::Micros => duration(v),
    }
}

/// A bar's value of `unit`: three significant figures.
fn bar_value(v: f64, unit: Unit) -> String {
    match unit {
        Unit::Count => short_value(v),
        Unit::Micros => duration(v),
    }
}

/// Microseconds as µs, ms or s, three significant figures at most: `850 µs`, `4.43 s`.
fn duration(us: f64) -> String {
    let (v, unit) = if us >= 1e6 {
        (us / 1e6, "s")
    } else if us >= 1e3 {
        (us / 1e3, "ms")
    } else {
        (us, "µs")
    };
    let digits = if v >= 100.0 {
        0
    } else if v >= 10.0 {
        1
    } else {
        2
    };
    let s = format!("{v:.digits$}");
    let s = if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    };
    format!("{s} {unit}")
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

/// Test support: renders a chart SVG to PNG with resvg and checks its text.
#[cfg(test)]
pub(crate) mod render_check {
    use resvg::{tiny_skia, usvg};

    /// Renders the SVG at `svg` to a PNG beside it (`.png`) and returns the problems with its
    /// text: a text box reaching outside the canvas, or two text boxes overlapping (each is
    /// named by its text's position). Fonts are the system's (DejaVu or Liberation here).
    pub fn text_problems(svg: &std::path::Path) -> Vec<String> {
        let data = std::fs::read(svg).unwrap();
        let mut opt = usvg::Options::default();
        let db = opt.fontdb_mut();
        db.load_system_fonts();
        // The charts ask for "sans-serif"; fontdb maps it to Arial unless told otherwise.
        let family = ["DejaVu Sans", "Liberation Sans", "Arial"]
            .into_iter()
            .find(|f| {
                db.faces()
                    .any(|face| face.families.iter().any(|(name, _)| name == f))
            })
            .expect("a sans-serif font (DejaVu Sans or Liberation Sans) installed");
        db.set_sans_serif_family(family);
        let tree = usvg::Tree::from_data(&data, &opt).unwrap();
        let size = tree.size();
        let mut pixmap =
            tiny_skia::Pixmap::new(size.width().ceil() as u32, size.height().ceil() as u32)
                .unwrap();
        resvg::render(
            &tree,
            tiny_skia::Transform::identity(),
            &mut pixmap.as_mut(),
        );
        pixmap.save_png(svg.with_extension("png")).unwrap();
        assert!(
            pixmap
                .pixels()
                .iter()
                .any(|p| p.red() < 128 && p.alpha() > 0),
            "nothing dark was drawn"
        );
        let mut boxes = Vec::new();
        collect(tree.root(), &mut boxes);
        assert!(!boxes.is_empty(), "no text found (no fonts?)");
        let mut problems = Vec::new();
        let (w, h) = (size.width(), size.height());
        for (i, (a, ta)) in boxes.iter().enumerate() {
            if a.left() < 0.0 || a.top() < 0.0 || a.right() > w || a.bottom() > h {
                problems.push(format!("text {ta:?} at {a:?} leaves the {w}x{h} canvas"));
            }
            for (b, tb) in &boxes[i + 1..] {
                // The same text drawn twice in the same place (plotters may repeat an axis's
                // first tick) reads as one.
                if ta == tb && a == b {
                    continue;
                }
                // 1 px of slack: glyph boxes of adjacent lines may touch.
                let overlap_x = a.right().min(b.right()) - a.left().max(b.left());
                let overlap_y = a.bottom().min(b.bottom()) - a.top().max(b.top());
                if overlap_x > 1.0 && overlap_y > 1.0 {
                    problems.push(format!("text {ta:?} at {a:?} overlaps {tb:?} at {b:?}"));
                }
            }
        }
        problems
    }

    fn collect(g: &usvg::Group, out: &mut Vec<(tiny_skia::Rect, String)>) {
        for node in g.children() {
            match node {
                usvg::Node::Group(g) => collect(g, out),
                usvg::Node::Text(t) => {
                    let text: String = t.chunks().iter().map(|c| c.text()).collect();
                    if !text.trim().is_empty() {
                        out.push((t.abs_bounding_box(), text));
                    }
                }
                _ => {}
            }
        }
    }
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
                    points: vec![(10.0, 5.0), (1000.0, 6.0), (100_000.0, 7.0)],
                    ranges: vec![(4.0, 6.0), (5.0, 7.0), (6.0, 9.0)],
                },
                Series {
                    label: "wide: ColumnPaginationFilter".into(),
                    points: vec![(10.0, 4.0), (1000.0, 60.0), (100_000.0, 600.0)],
                    ranges: Vec::new(),
                },
            ],
            heat: None,
        };
        let x = XAxis {
            label: "records per user".into(),
            log: true,
        };
        let mut many = panel.clone();
        many.log_y = false;
        many.series = (0..8)
            .map(|r| Series {
                label: format!("region {}", r + 1),
                points: (1..=20)
                    .map(|s| (s as f64, (s * r * 2500) as f64))
                    .collect(),
                ranges: Vec::new(),
            })
            .collect();
        let layout = Layout {
            columns: 2,
            shared_y: false,
            footer: vec!["load average 12.4 at the start, 13.1 at the end (2 cores)".into()],
        };
        write_svg(&path, &x, &[panel.clone(), panel, many], &layout).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(svg.starts_with("<svg"), "{}", &svg[..40]);
        assert!(
            svg.contains("\ntall\n")
                && svg.contains("\nregion 8\n")
                && svg.contains("load average"),
            "{svg}"
        );
        let problems = render_check::text_problems(&path);
        assert!(problems.is_empty(), "{problems:#?}");
    }

    /// `FERROBASE_CHARTS_DIR=docs/studies cargo test -p ferrobase --bin ferrobase charts_in_a_dir`
    /// checks every SVG of a directory (a study's output) and writes each one's PNG beside it;
    /// skipped without the variable.
    #[test]
    fn charts_in_a_dir_read() {
        let Some(dir) = std::env::var_os("FERROBASE_CHARTS_DIR") else {
            return;
        };
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "svg") {
                let problems = render_check::text_problems(&path);
                assert!(problems.is_empty(), "{}: {problems:#?}", path.display());
            }
        }
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
            unit: Unit::Count,
            bars: vec![("scan".into(), 40.0), ("full".into(), 1_000_000.0)],
        };
        let time = BarPanel {
            title: "one date, any user: latency p50".into(),
            y_label: "p50".into(),
            unit: Unit::Micros,
            bars: ["a", "b", "c", "d", "e", "a/re"]
                .iter()
                .zip([11_000.0, 610_000.0, 32_000.0, 960.0, 2_000.0, 4_430_000.0])
                .map(|(l, v)| (l.to_string(), v))
                .collect(),
        };
        write_bar_svg(&path, &[panel, time], 2, &["a: composite key".into()]).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        assert!(
            svg.contains("scan") && svg.contains("full") && svg.contains("1M"),
            "{svg}"
        );
        assert!(svg.contains("4.43 s") && svg.contains("960 µs"), "{svg}");
        let problems = render_check::text_problems(&path);
        assert!(problems.is_empty(), "{problems:#?}");
    }

    #[test]
    fn short_labels() {
        assert_eq!(short(100_000.0), "100k");
        assert_eq!(short(2_500_000.0), "2.5M");
        assert_eq!(short(12.0), "12");
        assert_eq!(duration(4_430_000.0), "4.43 s");
        assert_eq!(duration(960.0), "960 µs");
        assert_eq!(duration(12_345.0), "12.3 ms");
    }
}
