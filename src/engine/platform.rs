//! The session's GPU platform: the peaks roofline columns are computed against.
//!
//! The platform list is the built-in one plus a user's `--platforms FILE`; it is
//! visible as the `platforms` table. The session's platform is a one-row table,
//! `session_platform(platform)`, that reports read: set by `--platform NAME`,
//! `SET platform = 'NAME'` in SQL, or taken from the trace's `deviceProperties`
//! when it names a known GPU.

use std::sync::{Arc, RwLock};

use datafusion::arrow::array::{ArrayRef, Float64Array, StringArray};
use datafusion::arrow::datatypes::{DataType, Field, Schema};
use datafusion::arrow::record_batch::RecordBatch;
use datafusion::datasource::MemTable;
use datafusion::error::DataFusionError;
use datafusion::prelude::SessionContext;
use tracesql_udfs::roofline::platforms::SPECS;
use tracesql_udfs::roofline::{
    builtin_platforms, detect_platform, merge_platforms, parse_platforms, DeviceProps, Platform,
};

/// The platform name meaning "no platform" (`--platform none`, `SET platform =
/// 'none'`): no roofline columns, and no detection from deviceProperties.
pub const NO_PLATFORM: &str = "none";

/// Platforms known to a session and the one it uses.
pub struct PlatformState {
    platforms: RwLock<Arc<Vec<Platform>>>,
    current: RwLock<Option<String>>,
    /// A platform (or none) was chosen explicitly: detection leaves it alone.
    chosen: RwLock<bool>,
    /// Why the session has its platform (or none), in one line: what the
    /// reports and the analysis print beside the platform's name.
    reason: RwLock<String>,
}

/// Why a session has no platform when nothing chose or detected one.
const UNKNOWN_GPU: &str =
    "no GPU the catalog knows in deviceProperties: choose one with --platform";

impl Default for PlatformState {
    fn default() -> Self {
        PlatformState {
            platforms: RwLock::new(Arc::new(builtin_platforms())),
            current: RwLock::new(None),
            chosen: RwLock::new(false),
            reason: RwLock::new(UNKNOWN_GPU.to_string()),
        }
    }
}

/// Reads a `--platforms` file (CSV, or TOML when it ends in `.toml`).
pub fn read_platforms_file(path: &std::path::Path) -> Result<Vec<Platform>, String> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("{}: cannot read: {e}", path.display()))?;
    let is_toml = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("toml"));
    parse_platforms(&text, is_toml).map_err(|e| format!("{}: {e}", path.display()))
}

impl PlatformState {
    pub fn list(&self) -> Arc<Vec<Platform>> {
        self.platforms.read().map(|p| p.clone()).unwrap_or_default()
    }

    pub fn current(&self) -> Option<String> {
        self.current.read().ok().and_then(|c| c.clone())
    }

    /// Adds or replaces platforms and re-registers what depends on the list.
    pub fn extend(
        &self,
        ctx: &SessionContext,
        extra: Vec<Platform>,
    ) -> Result<(), DataFusionError> {
        let mut list = (*self.list()).clone();
        merge_platforms(&mut list, extra);
        if let Ok(mut guard) = self.platforms.write() {
            *guard = Arc::new(list);
        }
        self.register(ctx)
    }

    /// Sets the session platform by name (case-insensitive); None or `none` clears
    /// it. Either way the choice is explicit: a trace's deviceProperties no longer
    /// change it.
    pub fn set(&self, ctx: &SessionContext, name: Option<&str>) -> Result<(), DataFusionError> {
        let resolved = match name.map(str::trim) {
            None => None,
            Some(name) if name.eq_ignore_ascii_case(NO_PLATFORM) => None,
            Some(name) => Some(self.resolve(name)?),
        };
        if let Ok(mut guard) = self.current.write() {
            *guard = resolved;
        }
        if let Ok(mut guard) = self.chosen.write() {
            *guard = true;
        }
        self.set_reason("chosen with --platform or SET platform");
        self.register(ctx)
    }

    /// Why the session has its platform (or none): one line.
    pub fn reason(&self) -> String {
        self.reason.read().map(|r| r.clone()).unwrap_or_default()
    }

    fn set_reason(&self, reason: &str) {
        if let Ok(mut guard) = self.reason.write() {
            *guard = reason.to_string();
        }
    }

    fn chosen(&self) -> bool {
        self.chosen.read().map(|c| *c).unwrap_or(false)
    }

    /// The canonical name of a known platform.
    pub fn resolve(&self, name: &str) -> Result<String, DataFusionError> {
        let list = self.list();
        list.iter()
            .find(|p| p.name.eq_ignore_ascii_case(name.trim()))
            .map(|p| p.name.clone())
            .ok_or_else(|| {
                let known: Vec<&str> = list.iter().map(|p| p.name.as_str()).collect();
                DataFusionError::Configuration(format!(
                    "unknown platform '{name}'; known: {}",
                    known.join(", ")
                ))
            })
    }

    /// Sets the platform from a `deviceProperties` JSON value, if no platform (or
    /// `none`) was chosen yet: by the GPU's name, else guessed from its class
    /// (architecture, SM / CU count, memory), with a one-line warning on
    /// standard error naming the guess.
    pub fn detect(
        &self,
        ctx: &SessionContext,
        device_properties: &str,
    ) -> Result<(), DataFusionError> {
        if self.current().is_some() || self.chosen() {
            return Ok(());
        }
        let devices: Vec<serde_json::Value> =
            serde_json::from_str(device_properties).unwrap_or_default();
        let list = self.list();
        let found = devices
            .iter()
            .find_map(|d| detect_platform(&DeviceProps::from_json(d), &list));
        let Some(found) = found else {
            return Ok(());
        };
        if let Some(warning) = found.warning() {
            eprintln!("{warning}");
        }
        if let Ok(mut guard) = self.current.write() {
            *guard = Some(found.platform.clone());
        }
        self.set_reason(&found.reason);
        self.register(ctx)
    }

    /// (Re)registers the roofline functions, `platforms` and `session_platform`.
    pub fn register(&self, ctx: &SessionContext) -> Result<(), DataFusionError> {
        let list = self.list();
        tracesql_udfs::register_roofline(ctx, list.clone());
        replace_table(ctx, "platforms", platforms_batch(&list)?)?;
        let schema = Arc::new(Schema::new(vec![
            Field::new("platform", DataType::Utf8, true),
            Field::new("reason", DataType::Utf8, false),
        ]));
        let row: ArrayRef = Arc::new(StringArray::from(vec![self.current()]));
        let reason: ArrayRef = Arc::new(StringArray::from(vec![self.reason()]));
        replace_table(
            ctx,
            "session_platform",
            RecordBatch::try_new(schema, vec![row, reason])?,
        )
    }
}

fn platforms_batch(list: &[Platform]) -> Result<RecordBatch, DataFusionError> {
    let mut fields = vec![
        Field::new("name", DataType::Utf8, false),
        Field::new("memory_tb_s", DataType::Float64, false),
    ];
    let mut columns: Vec<ArrayRef> = vec![
        Arc::new(StringArray::from_iter_values(
            list.iter().map(|p| p.name.as_str()),
        )),
        Arc::new(Float64Array::from_iter_values(
            list.iter().map(|p| p.memory_tb_s),
        )),
    ];
    for spec in SPECS {
        fields.push(Field::new(spec, DataType::Float64, true));
        columns.push(Arc::new(Float64Array::from_iter(
            list.iter().map(|p| p.peak(spec)),
        )));
    }
    fields.push(Field::new("intra_node_gb_s", DataType::Float64, true));
    columns.push(Arc::new(Float64Array::from_iter(
        list.iter().map(|p| p.intra_node_gb_s),
    )));
    fields.push(Field::new("inter_node_gb_s", DataType::Float64, true));
    columns.push(Arc::new(Float64Array::from_iter(
        list.iter().map(|p| p.inter_node_gb_s),
    )));
    fields.push(Field::new("source", DataType::Utf8, false));
    columns.push(Arc::new(StringArray::from_iter_values(
        list.iter().map(|p| p.source.as_str()),
    )));
    Ok(RecordBatch::try_new(
        Arc::new(Schema::new(fields)),
        columns,
    )?)
}

fn replace_table(
    ctx: &SessionContext,
    name: &str,
    batch: RecordBatch,
) -> Result<(), DataFusionError> {
    let table = MemTable::try_new(batch.schema(), vec![vec![batch]])?;
    ctx.deregister_table(name)?;
    ctx.register_table(name, Arc::new(table))?;
    Ok(())
}

/// The value of `key` in a `trace_meta` batch.
pub fn meta_value(trace_meta: &RecordBatch, key: &str) -> Option<String> {
    use datafusion::arrow::array::{Array, AsArray};
    let keys = trace_meta.column_by_name("key")?.as_string_opt::<i32>()?;
    let values = trace_meta.column_by_name("value")?.as_string_opt::<i32>()?;
    (0..keys.len())
        .find(|&i| keys.is_valid(i) && keys.value(i) == key && values.is_valid(i))
        .map(|i| values.value(i).to_string())
}

/// `SET platform = 'MI300X'` (or `SET platform TO MI300X`; `'none'` clears): the
/// platform name it sets, if `sql` is that statement.
pub fn parse_set_platform(sql: &str) -> Option<Option<String>> {
    let (name, value) = parse_set(sql)?;
    name.eq_ignore_ascii_case("platform")
        .then(|| (!value.eq_ignore_ascii_case("none")).then_some(value))
}

/// `SET name = value` (or `SET name TO value`, quotes around the value
/// optional): the name and the unquoted value, if `sql` is such a statement.
pub fn parse_set(sql: &str) -> Option<(String, String)> {
    let s = sql.trim().trim_end_matches(';').trim();
    let rest = s
        .get(..3)
        .filter(|p| p.eq_ignore_ascii_case("set"))
        .map(|_| &s[3..])
        .filter(|r| r.starts_with(char::is_whitespace))?
        .trim_start();
    let name_end = rest.find(|c: char| c.is_whitespace() || c == '=')?;
    let (name, after) = (&rest[..name_end], rest[name_end..].trim_start());
    let value = after.strip_prefix('=').or_else(|| {
        after
            .get(..2)
            .filter(|p| p.eq_ignore_ascii_case("to"))
            .map(|_| &after[2..])
            .filter(|v| v.starts_with(|c: char| c.is_whitespace() || c == '\'' || c == '"'))
    })?;
    let value = value.trim().trim_matches(|c| c == '\'' || c == '"');
    (!name.is_empty() && !value.is_empty()).then(|| (name.to_string(), value.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_platform_statements() {
        assert_eq!(
            parse_set_platform("SET platform = 'MI300X';"),
            Some(Some("MI300X".into()))
        );
        assert_eq!(
            parse_set_platform("set PLATFORM to h100"),
            Some(Some("h100".into()))
        );
        assert_eq!(parse_set_platform("SET platform = none"), Some(None));
        assert_eq!(parse_set_platform("SET datafusion.x = 1"), None);
        assert_eq!(parse_set_platform("SELECT 1"), None);
        assert_eq!(parse_set_platform("SET platformx = 'H100'"), None);
    }

    #[test]
    fn set_statements() {
        let set = |name: &str, value: &str| Some((name.to_string(), value.to_string()));
        assert_eq!(parse_set("SET hta.instance = 1"), set("hta.instance", "1"));
        assert_eq!(parse_set("set instance=2;"), set("instance", "2"));
        assert_eq!(
            parse_set("SET hta.annotation TO 'ProfilerStep'"),
            set("hta.annotation", "ProfilerStep")
        );
        assert_eq!(parse_set("SET hta.x TO\"a b\""), set("hta.x", "a b"));
        assert_eq!(parse_set("SETx = 1"), None);
        assert_eq!(parse_set("SET x"), None);
        assert_eq!(parse_set("SET x = ''"), None);
        assert_eq!(parse_set("SET x toy"), None);
        assert_eq!(parse_set("SELECT 1"), None);
    }
}
