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

/// [`columns`] in pages no wider than `width`: the first column (the row's
/// name) on every page, as many of the others as fit beside it, the pages
/// one under another (a wrapped table row would split its cells).
pub fn column_pages(rows: &[Vec<String>], left: impl Fn(usize) -> bool, width: usize) -> String {
    let w = widths(rows);
    let name = w.first().copied().unwrap_or(0);
    let mut pages: Vec<Vec<usize>> = Vec::new();
    let mut used = name;
    for (i, &wi) in w.iter().enumerate().skip(1) {
        match pages.last_mut() {
            Some(p) if used + 2 + wi <= width => p.push(i),
            _ => {
                pages.push(vec![i]);
                used = name;
            }
        }
        used += 2 + wi;
    }
    if pages.is_empty() {
        return columns(rows, left);
    }
    let out: Vec<String> = pages
        .iter()
        .map(|p| {
            let page: Vec<Vec<String>> = rows
                .iter()
                .map(|r| {
                    std::iter::once(0)
                        .chain(p.iter().copied())
                        .filter_map(|i| r.get(i).cloned())
                        .collect()
                })
                .collect();
            let first = p[0];
            columns(&page, |j| left(if j == 0 { 0 } else { first + j - 1 }))
        })
        .collect();
    out.join("\n")
}

/// Each column's width: its widest cell, in characters.
fn widths(rows: &[Vec<String>]) -> Vec<usize> {
    let n = rows.iter().map(|r| r.len()).max().unwrap_or(0);
    (0..n)
        .map(|i| {
            rows.iter()
                .filter_map(|r| r.get(i))
                .map(|c| c.chars().count())
                .max()
                .unwrap_or(0)
        })
        .collect()
}

/// Rows of cells as aligned text columns, two spaces apart: the columns
/// whose index `left` accepts are left-aligned, the others (figures) right.
pub fn columns(rows: &[Vec<String>], left: impl Fn(usize) -> bool) -> String {
    let widths = widths(rows);
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

#[cfg(test)]
mod tests {
    #[test]
    fn column_pages_keep_cells_whole_and_the_name_on_every_page() {
        let rows: Vec<Vec<String>> = (0..3)
            .map(|r| {
                std::iter::once(format!("row{r}"))
                    .chain((0..12).map(|c| format!("+{r}{c}.00 %")))
                    .collect()
            })
            .collect();
        let out = super::column_pages(&rows, |i| i == 0, 40);
        assert!(out.lines().all(|l| l.chars().count() <= 40), "{out}");
        for r in &rows {
            for cell in r.iter().skip(1) {
                assert_eq!(out.matches(cell.as_str()).count(), 1, "{cell}:\n{out}");
            }
        }
        assert_eq!(out.matches("row0").count(), out.split("\n\n").count());
        assert_eq!(
            super::column_pages(&rows[..1], |_| true, 1000),
            super::columns(&rows[..1], |_| true)
        );
    }
}
