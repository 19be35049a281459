//! The text formats of `export`: CSV and JSON Lines, with the columns of
//! [`super::ExportKind::columns`] in that order in both. A value the file does not hold (no
//! distance, no count, no next position) is an empty CSV field and a JSON `null`.
//! [`RowWriter`] is what every format (Parquet too, in `columnar`) offers the command
//! line: rows in, then `finish`.

use std::io::{self, Write};

use super::{ExportPlan, ExportRow, RowWriter};

/// The formats `export --format` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[warn(missing_docs)]
pub enum Format {
    /// Comma-separated values with a header line (RFC 4180 quoting).
    Csv,
    /// One JSON object per line.
    Jsonl,
    /// Apache Parquet (feature `columnar`).
    Parquet,
}

impl Format {
    /// Every format, by the name `--format` takes.
    pub const ALL: [(&'static str, Format); 3] = [
        ("csv", Format::Csv),
        ("jsonl", Format::Jsonl),
        ("parquet", Format::Parquet),
    ];

    /// A writer of this format's rows for `plan` into `out` (the header written first);
    /// [`RowWriter::finish`] ends and flushes it.
    pub fn writer(
        self,
        plan: &ExportPlan,
        out: Box<dyn Write + Send>,
    ) -> io::Result<Box<dyn RowWriter>> {
        writer(self, plan, out)
    }

    /// The format named `name` (`csv`, `jsonl` or `parquet`).
    pub fn parse(name: &str) -> Option<Format> {
        Format::ALL
            .iter()
            .find(|(n, _)| *n == name)
            .map(|&(_, f)| f)
    }
}

/// A writer of `format` for the rows of `plan` onto `out`.
pub fn writer(
    format: Format,
    plan: &ExportPlan,
    out: Box<dyn Write + Send>,
) -> io::Result<Box<dyn RowWriter>> {
    match format {
        Format::Csv => {
            let mut w = csv::Writer::from_writer(io::BufWriter::with_capacity(1 << 16, out));
            w.write_record(plan.kind.columns()).map_err(csv_io)?;
            Ok(Box::new(Csv { w }))
        }
        Format::Jsonl => Ok(Box::new(Jsonl {
            w: io::BufWriter::with_capacity(1 << 16, out),
            line: Vec::with_capacity(256),
        })),
        #[cfg(feature = "columnar")]
        Format::Parquet => Ok(Box::new(super::columnar::ParquetRows::new(plan, out)?)),
        #[cfg(not(feature = "columnar"))]
        Format::Parquet => Err(io::Error::other(
            "this build has no Parquet writer (cargo feature `columnar`)",
        )),
    }
}

/// The `io::Error` inside a CSV error, so that its kind (a closed pipe) is kept.
fn csv_io(e: csv::Error) -> io::Error {
    match e.into_kind() {
        csv::ErrorKind::Io(e) => e,
        other => io::Error::other(format!("{other:?}")),
    }
}

struct Csv {
    w: csv::Writer<io::BufWriter<Box<dyn Write + Send>>>,
}

impl RowWriter for Csv {
    fn write(&mut self, row: &ExportRow) -> io::Result<()> {
        let mut n = itoa_buffer();
        let opt = |v: Option<String>| v.unwrap_or_default();
        let result = match row {
            ExportRow::Position {
                rank,
                state,
                distance,
                solutions,
                next,
            } => self.w.write_record([
                n.format(*rank),
                state,
                &opt(distance.map(|d| d.to_string())),
                &opt(solutions.map(|s| s.to_string())),
                next.as_deref().unwrap_or(""),
            ]),
            ExportRow::Solution {
                rank,
                state,
                value,
                canonical,
            } => self.w.write_record([
                n.format(*rank),
                state,
                &opt(value.map(|v| v.to_string())),
                if *canonical { "1" } else { "0" },
            ]),
        };
        result.map_err(csv_io)
    }

    fn finish(mut self: Box<Self>) -> io::Result<()> {
        self.w.flush()
    }
}

/// A decimal formatter for the rank, the one column of every row (no allocation).
struct Decimal([u8; 20]);

fn itoa_buffer() -> Decimal {
    Decimal([0; 20])
}

impl Decimal {
    fn format(&mut self, mut v: u64) -> &str {
        let mut i = self.0.len();
        loop {
            i -= 1;
            self.0[i] = b'0' + (v % 10) as u8;
            v /= 10;
            if v == 0 {
                break;
            }
        }
        std::str::from_utf8(&self.0[i..]).expect("ASCII digits")
    }
}

struct Jsonl {
    w: io::BufWriter<Box<dyn Write + Send>>,
    line: Vec<u8>,
}

impl Jsonl {
    fn text(&mut self, key: &str, v: Option<&str>) {
        self.line.extend_from_slice(key.as_bytes());
        match v {
            // Serialising a string into a Vec cannot fail.
            Some(s) => serde_json::to_writer(&mut self.line, s).expect("a string serialises"),
            None => self.line.extend_from_slice(b"null"),
        }
    }

    fn number(&mut self, key: &str, v: Option<impl std::fmt::Display>) {
        self.line.extend_from_slice(key.as_bytes());
        match v {
            Some(n) => write!(self.line, "{n}").expect("writing to a Vec"),
            None => self.line.extend_from_slice(b"null"),
        }
    }
}

impl RowWriter for Jsonl {
    fn write(&mut self, row: &ExportRow) -> io::Result<()> {
        self.line.clear();
        match row {
            ExportRow::Position {
                rank,
                state,
                distance,
                solutions,
                next,
            } => {
                self.number("{\"rank\":", Some(rank));
                self.text(",\"state\":", Some(state));
                self.number(",\"distance\":", distance.map(u32::from));
                self.number(",\"solutions\":", *solutions);
                self.text(",\"next\":", next.as_deref());
            }
            ExportRow::Solution {
                rank,
                state,
                value,
                canonical,
            } => {
                self.number("{\"rank\":", Some(rank));
                self.text(",\"state\":", Some(state));
                self.number(",\"value\":", *value);
                self.number(",\"canonical\":", Some(canonical));
            }
        }
        self.line.extend_from_slice(b"}\n");
        self.w.write_all(&self.line)
    }

    fn finish(mut self: Box<Self>) -> io::Result<()> {
        self.w.flush()
    }
}
