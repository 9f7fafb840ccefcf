//! Data passed from the report to the plots.

/// One point of a throughput plot.
pub struct Point {
    pub group: String,
    pub series: String,
    pub size: f64,
    pub gbps: f64,
}
