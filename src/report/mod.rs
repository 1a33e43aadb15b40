//! What fsfit prints and writes. Output formats, one file (or folder) each:
//! json, csv, html (with the SVG charts of charts/), png; text/ holds the
//! terminal views of each command (usage, bench, advise, info); inputs reads
//! results files back for `fsfit report`.

pub mod charts;
pub mod crash;
pub mod csv;
pub mod html;
pub mod inputs;
pub mod json;
pub mod png;
pub mod text;

/// Rows of cells as aligned text columns, two spaces apart: the columns
/// whose index `left` accepts are left-aligned, the others (figures) right.
pub fn columns(rows: &[Vec<String>], left: impl Fn(usize) -> bool) -> String {
    let n = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    let widths: Vec<usize> = (0..n)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect();
    let mut out = String::new();
    for row in rows {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            let pad = " ".repeat(widths[i] - cell.chars().count());
            if left(i) {
                line.push_str(cell);
                line.push_str(&pad);
            } else {
                line.push_str(&pad);
                line.push_str(cell);
            }
            line.push_str("  ");
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

/// Kept here too: the commands write their results through `report`.
pub use crate::atomic::write_atomic;
