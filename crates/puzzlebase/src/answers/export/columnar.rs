//! Exported rows as Arrow record batches ([`Batches`]), written as Apache Parquet
//! ([`ParquetRows`], `export --format parquet`) or as an Arrow IPC stream
//! ([`Database::export_ipc`], the Python package's `to_arrow`).
//!
//! Typed columns: `rank` Int64, `state` Utf8, `distance` UInt32 (wide enough for any
//! puzzle's distance), `solutions` Int64, `next` Utf8; enumerations `rank` Int64,
//! `state` Utf8, `value` Int64, `canonical` Boolean. A value the file does not hold is
//! null. Ranks (below 2^63) and counts (at most 2^63 - 1, larger ones are stored as
//! "overflow" and exported as null) are signed 64-bit: Spark has no unsigned 64-bit
//! type and would read UInt64 as a decimal.
//!
//! The Parquet file: row groups of at most [`ROW_GROUP_ROWS`] rows (what DuckDB, polars
//! and Spark read in parallel, and small enough to hold while one is encoded), Snappy
//! pages; `rank` (ascending) delta-encoded, `distance` and `solutions` dictionary
//! encoded (a few dozen distinct values), the text columns plain (nearly every value is
//! distinct, so a dictionary only costs). The file's key-value metadata carries the
//! puzzle's name, definition, checksum and `generated_at` (keys `puzzlebase.*`).

use std::io::{self, Write};
use std::sync::Arc;

use arrow_array::builder::{BooleanBuilder, Int64Builder, StringBuilder, UInt32Builder};
use arrow_array::{ArrayRef, RecordBatch};
use arrow_ipc::writer::StreamWriter;
use arrow_schema::{ArrowError, DataType, Field, Schema, SchemaRef};
use parquet::arrow::ArrowWriter;
use parquet::basic::{Compression, Encoding};
use parquet::errors::ParquetError;
use parquet::file::metadata::KeyValue;
use parquet::file::properties::{EnabledStatistics, WriterProperties};
use parquet::schema::types::ColumnPath;

use super::{ExportKind, ExportPlan, ExportRow, RowWriter};
use crate::answers::{Database, QueryError, Result};

/// Rows per Parquet row group.
pub const ROW_GROUP_ROWS: usize = 1 << 20;

/// Rows per Arrow record batch.
pub const BATCH_ROWS: usize = 1 << 16;

/// The Arrow schema of the rows of `plan`, with its key-value metadata.
pub fn schema(plan: &ExportPlan) -> SchemaRef {
    let fields = match plan.kind {
        ExportKind::Positions => vec![
            Field::new("rank", DataType::Int64, false),
            Field::new("state", DataType::Utf8, false),
            Field::new("distance", DataType::UInt32, true),
            Field::new("solutions", DataType::Int64, true),
            Field::new("next", DataType::Utf8, true),
        ],
        ExportKind::Solutions => vec![
            Field::new("rank", DataType::Int64, false),
            Field::new("state", DataType::Utf8, false),
            Field::new("value", DataType::Int64, true),
            Field::new("canonical", DataType::Boolean, false),
        ],
    };
    let meta: std::collections::HashMap<String, String> = metadata(plan).into_iter().collect();
    Arc::new(Schema::new(fields).with_metadata(meta))
}

/// The key-value metadata of an export of `plan`.
fn metadata(plan: &ExportPlan) -> Vec<(String, String)> {
    let i = &plan.info;
    [
        ("puzzlebase.puzzle", i.name.clone()),
        ("puzzlebase.family", i.family.clone()),
        ("puzzlebase.definition", i.definition.clone()),
        ("puzzlebase.checksum", i.checksum.clone()),
        ("puzzlebase.generated_at", i.generated_at.clone()),
        ("puzzlebase.storage", i.storage.as_str().to_string()),
        ("puzzlebase.rows", plan.rows.to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// A rank or count as Int64: both are below 2^63 by the file's format, so the cast
/// never wraps (a larger value would be damage; it is clamped rather than wrapped).
fn signed(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

/// Column builders for one batch of rows.
pub struct Batches {
    schema: SchemaRef,
    rank: Int64Builder,
    state: StringBuilder,
    distance: UInt32Builder,
    solutions: Int64Builder,
    next: StringBuilder,
    value: Int64Builder,
    canonical: BooleanBuilder,
    rows: usize,
}

impl Batches {
    /// Builders for the rows of `plan`.
    pub fn new(plan: &ExportPlan) -> Batches {
        let n = BATCH_ROWS;
        Batches {
            schema: schema(plan),
            rank: Int64Builder::with_capacity(n),
            state: StringBuilder::with_capacity(n, n * 16),
            distance: UInt32Builder::with_capacity(n),
            solutions: Int64Builder::with_capacity(n),
            next: StringBuilder::with_capacity(n, n * 16),
            value: Int64Builder::with_capacity(0),
            canonical: BooleanBuilder::with_capacity(0),
            rows: 0,
        }
    }

    /// The schema of the batches.
    pub fn schema(&self) -> SchemaRef {
        self.schema.clone()
    }

    /// Adds a row; gives a batch when [`BATCH_ROWS`] have been added.
    pub fn push(&mut self, row: &ExportRow) -> Option<RecordBatch> {
        match row {
            ExportRow::Position {
                rank,
                state,
                distance,
                solutions,
                next,
            } => {
                self.rank.append_value(signed(*rank));
                self.state.append_value(state);
                self.distance.append_option(*distance);
                self.solutions.append_option(solutions.map(signed));
                self.next.append_option(next.as_deref());
            }
            ExportRow::Solution {
                rank,
                state,
                value,
                canonical,
            } => {
                self.rank.append_value(signed(*rank));
                self.state.append_value(state);
                self.value.append_option(*value);
                self.canonical.append_value(*canonical);
            }
        }
        self.rows += 1;
        (self.rows >= BATCH_ROWS).then(|| self.take())
    }

    /// The rows added since the last batch, as a batch (`None` when there are none).
    pub fn rest(&mut self) -> Option<RecordBatch> {
        (self.rows > 0).then(|| self.take())
    }

    fn take(&mut self) -> RecordBatch {
        self.rows = 0;
        let positions = self.schema.field(2).name() == "distance";
        let columns: Vec<ArrayRef> = if positions {
            vec![
                Arc::new(self.rank.finish()),
                Arc::new(self.state.finish()),
                Arc::new(self.distance.finish()),
                Arc::new(self.solutions.finish()),
                Arc::new(self.next.finish()),
            ]
        } else {
            vec![
                Arc::new(self.rank.finish()),
                Arc::new(self.state.finish()),
                Arc::new(self.value.finish()),
                Arc::new(self.canonical.finish()),
            ]
        };
        RecordBatch::try_new(self.schema.clone(), columns).expect("columns match the schema")
    }
}

/// The Parquet writer's properties for the rows of `plan` (see the module docs).
fn properties(plan: &ExportPlan) -> WriterProperties {
    let col = |name: &str| ColumnPath::from(name);
    let mut b = WriterProperties::builder()
        .set_compression(Compression::SNAPPY)
        .set_max_row_group_row_count(Some(ROW_GROUP_ROWS))
        .set_statistics_enabled(EnabledStatistics::Page)
        .set_created_by(format!("puzzlebase {}", env!("CARGO_PKG_VERSION")))
        .set_key_value_metadata(Some(
            (metadata(plan).into_iter())
                .map(|(k, v)| KeyValue::new(k, v))
                .collect(),
        ))
        .set_column_dictionary_enabled(col("rank"), false)
        .set_column_encoding(col("rank"), Encoding::DELTA_BINARY_PACKED)
        .set_column_dictionary_enabled(col("state"), false)
        .set_column_dictionary_enabled(col("next"), false);
    for c in ["distance", "solutions", "value"] {
        b = b.set_column_dictionary_enabled(col(c), true);
    }
    b.build()
}

/// The `io::Error` behind a Parquet error where there is one, so that its kind (a
/// closed pipe) is kept.
fn parquet_io(e: ParquetError) -> io::Error {
    match e {
        ParquetError::External(e) => match e.downcast::<io::Error>() {
            Ok(e) => *e,
            Err(e) => io::Error::other(e),
        },
        e => io::Error::other(e),
    }
}

/// `export --format parquet`: batches written into a Parquet file as they fill. The
/// encoding and compression run on a thread of their own, beside the reading of the
/// rows (on two cores, most of the difference between an export that meets its time
/// and one that does not); at most `QUEUED_BATCHES` (2) batches wait between the two.
pub struct ParquetRows {
    batches: Batches,
    queue: Option<std::sync::mpsc::SyncSender<RecordBatch>>,
    writer: Option<std::thread::JoinHandle<io::Result<()>>>,
    /// Set when the rows end without `finish` (the export failed): the thread then
    /// stops without writing the footer, so no partial file reads as a whole one.
    abandoned: Arc<std::sync::atomic::AtomicBool>,
}

/// Batches waiting for the Parquet writer's thread (64 Ki rows each).
const QUEUED_BATCHES: usize = 2;

impl ParquetRows {
    /// A Parquet writer for the rows of `plan` onto `out` (written in order, never
    /// sought: standard output will do).
    pub fn new(plan: &ExportPlan, out: Box<dyn Write + Send>) -> io::Result<ParquetRows> {
        let batches = Batches::new(plan);
        let mut writer = ArrowWriter::try_new(out, batches.schema(), Some(properties(plan)))
            .map_err(parquet_io)?;
        let (queue, batches_in) = std::sync::mpsc::sync_channel::<RecordBatch>(QUEUED_BATCHES);
        let abandoned = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let given_up = abandoned.clone();
        let thread = std::thread::spawn(move || -> io::Result<()> {
            for batch in batches_in {
                writer.write(&batch).map_err(parquet_io)?;
            }
            if given_up.load(std::sync::atomic::Ordering::SeqCst) {
                return Err(io::Error::other("the export stopped before its last row"));
            }
            writer.into_inner().map_err(parquet_io)?.flush()
        });
        Ok(ParquetRows {
            batches,
            queue: Some(queue),
            writer: Some(thread),
            abandoned,
        })
    }

    /// Hands `batch` to the writer's thread; if it has stopped, its error.
    fn send(&mut self, batch: RecordBatch) -> io::Result<()> {
        let sent = self.queue.as_ref().map(|q| q.send(batch));
        match sent {
            Some(Ok(())) => Ok(()),
            _ => Err(self.join().err().unwrap_or_else(|| {
                io::Error::other("the Parquet writer stopped before the last row")
            })),
        }
    }

    /// Closes the queue and waits for the writer's thread: its result.
    fn join(&mut self) -> io::Result<()> {
        self.queue = None;
        match self.writer.take().map(|t| t.join()) {
            Some(Ok(result)) => result,
            Some(Err(_)) => Err(io::Error::other("the Parquet writer's thread panicked")),
            None => Err(io::Error::other("the Parquet writer has already stopped")),
        }
    }
}

impl Drop for ParquetRows {
    fn drop(&mut self) {
        if self.writer.is_some() {
            (self.abandoned).store(true, std::sync::atomic::Ordering::SeqCst);
            let _ = self.join();
        }
    }
}

impl RowWriter for ParquetRows {
    fn write(&mut self, row: &ExportRow) -> io::Result<()> {
        match self.batches.push(row) {
            Some(batch) => self.send(batch),
            None => Ok(()),
        }
    }

    fn finish(mut self: Box<Self>) -> io::Result<()> {
        if let Some(batch) = self.batches.rest() {
            self.send(batch)?;
        }
        self.join()
    }
}

impl Database {
    /// `name`'s rows, checked first as [`Database::export_plan`] checks them, as an
    /// Arrow IPC stream in memory (the Python package's `to_arrow` reads it into a
    /// pyarrow table). Each batch is written as it fills, so the rows are held once,
    /// as the stream's bytes.
    pub fn export_ipc(&self, name: &str) -> Result<Vec<u8>> {
        let plan = self.export_plan(name)?;
        let mut batches = Batches::new(&plan);
        let failed = |e: ArrowError| QueryError::NotStored(format!("the Arrow stream: {e}"));
        let mut w = StreamWriter::try_new(Vec::new(), &batches.schema()).map_err(failed)?;
        self.export(name, &mut |row| match batches.push(&row) {
            Some(b) => w.write(&b).map_err(io::Error::other),
            None => Ok(()),
        })?;
        if let Some(b) = batches.rest() {
            w.write(&b).map_err(failed)?;
        }
        w.finish().map_err(failed)?;
        w.into_inner().map_err(failed)
    }
}
