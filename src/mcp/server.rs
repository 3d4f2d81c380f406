//! The MCP face of a [`Session`]: tools, resources and prompts, served by the
//! official Rust SDK (`rmcp`).
//!
//! Every tool is one [`Call`] run on a thread of its own under the call's time
//! limit; whatever goes wrong (bad SQL, a path outside the root, a query past
//! the memory bound, a timeout, even a panic) comes back as a tool error
//! carrying one line, and the server lives on.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::handler::server::router::tool::ToolRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{
    CallToolResult, ContentBlock, GetPromptRequestParams, GetPromptResponse, GetPromptResult,
    Implementation, ListPromptsResult, ListResourcesResult, PaginatedRequestParams, Prompt,
    PromptArgument, PromptMessage, ReadResourceRequestParams, ReadResourceResponse,
    ReadResourceResult, Resource, ResourceContents, Role, ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{tool, tool_handler, tool_router, ErrorData as McpError, RoleServer, ServerHandler};
use schemars::JsonSchema;
use serde::Deserialize;

use super::answer::{self, Limits};
use super::session::{Call, Session};
use crate::catalog::Catalog;
use crate::engine::Engine;

/// What the server tells a client about itself at the start.
const INSTRUCTIONS: &str = "tracesql makes GPU profiler traces (PyTorch/Kineto JSON, rocprofv3, Perfetto JSON, JAX XPlane) queryable with SQL. Start with open_trace, then report (gpu_timeline, ops_summary), analyze for prioritized findings, and sql for anything else (list_tables and describe_table document every column). Drill down with call_stack and kernels_of on a uid. Answers are Markdown tables, cut to a row limit that they state. The prompts standalone_analysis and comparative_analysis walk through a whole analysis.";

/// Every tool, sorted by name.
pub const TOOL_NAMES: &[&str] = &[
    "analyze",
    "call_stack",
    "collectives",
    "compare",
    "describe_table",
    "kernels_of",
    "list_tables",
    "list_traces",
    "open_trace",
    "report",
    "sql",
];

const SCHEMA_URI: &str = "tracesql://schema";
const QUERY_URI: &str = "tracesql://queries/";

#[derive(Debug, Deserialize, JsonSchema)]
pub struct OpenTraceArgs {
    /// The trace file (.json, .json.gz, .zip, rocprofv3 JSON, XPlane .pb) or a directory written by `tracesql export`, relative to the server's root or absolute under it.
    pub path: String,
    /// The name the trace goes by in later calls and in the `trace` column (default: the file name without its extensions).
    pub name: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DescribeTableArgs {
    /// A table, view or table function, as list_tables names it (e.g. kernels, ops_summary, call_stack).
    pub table: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SqlArgs {
    /// One read-only statement (SELECT, WITH, EXPLAIN or SHOW) over every open trace; the `trace` column tells traces apart.
    pub query: String,
    /// Rows to show (default 50, at most 1000); the answer says how many rows the query returned in all.
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReportArgs {
    /// A report's name (TraceLens's sheet names): gpu_timeline, ops_summary, ops_summary_by_category, ops_unique_args, unified_perf_summary, kernel_summary, short_kernels_summary, GEMM, SDPA_fwd, ...
    pub name: String,
    /// The open trace to report on (needed when several are open).
    pub trace: Option<String>,
    /// Rows to show (default 50, at most 1000).
    pub limit: Option<usize>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct AnalyzeArgs {
    /// The open trace to analyze (needed when several are open).
    pub trace: Option<String>,
    /// The platform whose peaks the roofline uses (H100, H200, A100, B200, MI300X, MI325X, MI355X, ...); default: detected from the trace.
    pub platform: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CompareArgs {
    /// The base (reference) side: an open trace's name, or a trace file under the root.
    pub base: String,
    /// The target side: an open trace's name, or a trace file under the root.
    pub target: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct UidArgs {
    /// An event's uid (the `uid` column of events, kernels, ops and the reports' evidence).
    pub uid: i64,
    /// The open trace the uid belongs to (needed when several are open).
    pub trace: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CollectivesArgs {
    /// The rank traces of one distributed run: files, a directory holding them, or a pattern such as `run/rank*.json.gz`, under the root.
    pub paths: Vec<String>,
    /// The run's world size (default: the traces' distributedInfo, else the number of traces).
    pub world_size: Option<i64>,
    /// Only these sheets (e.g. nccl_summary_implicit_sync, rank_gpu_timeline); default all.
    pub only: Option<Vec<String>>,
}

#[derive(Clone)]
pub struct TraceServer {
    session: Arc<Mutex<Session>>,
    catalog: Arc<Catalog>,
    call_limit: Duration,
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl TraceServer {
    pub fn new(session: Session, call_limit: Duration) -> Self {
        TraceServer {
            catalog: Arc::new(session.catalog().clone()),
            session: Arc::new(Mutex::new(session)),
            call_limit,
            tool_router: Self::tool_router(),
        }
    }

    /// Runs `call` on a runtime of its own, answering by the time limit
    /// whatever the work is doing; past it, the work is cancelled.
    ///
    /// Why a runtime per call: the protocol's runtime must stay free to turn
    /// its timers (a runtime whose workers all compute does not), and an
    /// operator that computes for long between two yields keeps its worker
    /// until it yields, abort or not. Its runtime is left to it; the next call
    /// gets fresh workers and is answered meanwhile.
    async fn answer(&self, call: Call) -> Result<CallToolResult, McpError> {
        let session = Arc::clone(&self.session);
        let limit = self.call_limit;
        let work = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name("tracesql-call")
            .build()
            .map_err(|e| McpError::internal_error(format!("cannot start a runtime: {e}"), None))?;
        // Fired on the time limit, or dropped when the client cancels the call.
        let (cancel, cancelled) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::task::spawn_blocking(move || {
            // A panic in an earlier call poisons the lock; the session is
            // still usable (each call builds what it changes before storing it).
            let mut session = session.lock().unwrap_or_else(|p| p.into_inner());
            let answer = work.block_on(async move {
                tokio::select! {
                    answer = session.handle(call) => Some(answer),
                    _ = cancelled => None,
                }
            });
            // Cancelled work still inside a poll finishes it on its own.
            work.shutdown_background();
            answer
        });
        let message = match tokio::time::timeout(limit, task).await {
            Ok(Ok(Some(Ok(text)))) => {
                return Ok(CallToolResult::success(vec![ContentBlock::text(text)]))
            }
            Ok(Ok(Some(Err(error)))) => error.to_string(),
            Ok(Ok(None)) => "the call was cancelled".to_string(),
            Ok(Err(join)) => format!("internal error: {join}"),
            Err(_elapsed) => {
                let _ = cancel.send(());
                format!(
                    "the call ran past its time limit of {} s and was stopped (a narrower query, or start the server with a longer --call-timeout)",
                    limit.as_secs()
                )
            }
        };
        Ok(CallToolResult::error(vec![ContentBlock::text(
            crate::one_line(&message),
        )]))
    }

    #[tool(
        description = "Open a trace file for this session (loaded once, kept for every later call). Accepts everything the tracesql CLI reads: PyTorch profiler (Kineto) JSON/.json.gz/.zip, rocprofv3 JSON, Perfetto-style JSON, JAX XPlane, or a tracesql Parquet export directory. Paths are resolved under the server's root."
    )]
    async fn open_trace(
        &self,
        Parameters(args): Parameters<OpenTraceArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.answer(Call::OpenTrace {
            path: args.path,
            name: args.name,
        })
        .await
    }

    #[tool(
        description = "The traces open in this session: name, events, kernels, platform and file."
    )]
    async fn list_traces(&self) -> Result<CallToolResult, McpError> {
        self.answer(Call::ListTraces).await
    }

    #[tool(
        description = "Every table, view and table function that sql can read, with row counts and a one-line description each."
    )]
    async fn list_tables(&self) -> Result<CallToolResult, McpError> {
        self.answer(Call::ListTables).await
    }

    #[tool(
        description = "The columns of a table, view or table function: name, type, unit and meaning (the docs of `tracesql schema`)."
    )]
    async fn describe_table(
        &self,
        Parameters(args): Parameters<DescribeTableArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.answer(Call::DescribeTable { table: args.table }).await
    }

    #[tool(
        description = "Run one read-only SQL statement (Apache DataFusion dialect: SELECT, WITH, EXPLAIN, SHOW) over every open trace; the `trace` column tells traces apart. Times are µs. Tables: kernels (GPU work with its launching op), ops (cpu ops with shapes), events, tree_edges; views: unified_perf_events (per op: FLOPs, bytes, TFLOPS/s, TB/s, roofline bound and Pct Roofline), findings, trace_health and more (list_tables); table functions call_stack(uid, trace), kernels_of(uid, trace), ancestors(uid), descendants(uid). Canned reports are not tables: run them with `report`. The answer is a Markdown table limited to `limit` rows, with the total row count."
    )]
    async fn sql(&self, Parameters(args): Parameters<SqlArgs>) -> Result<CallToolResult, McpError> {
        self.answer(Call::Sql {
            query: args.query,
            limit: args.limit,
        })
        .await
    }

    #[tool(
        description = "Run one of the canned reports (TraceLens's sheets, same names and columns) on an open trace: gpu_timeline (where GPU time goes), ops_summary, ops_summary_by_category, unified_perf_summary (per-op FLOPs, bytes, TFLOPS/s, roofline efficiency), kernel_summary, short_kernels_summary, GEMM, SDPA_fwd, ..."
    )]
    async fn report(
        &self,
        Parameters(args): Parameters<ReportArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.answer(Call::Report {
            name: args.name,
            trace: args.trace,
            limit: args.limit,
        })
        .await
    }

    #[tool(
        description = "The deterministic performance analysis of an open trace: executive summary, GPU timeline, recommendations ranked by priority (each with its rule, share of GPU time, evidence and the query that found it), per-category findings, top ops and platform peaks, as Markdown."
    )]
    async fn analyze(
        &self,
        Parameters(args): Parameters<AnalyzeArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.answer(Call::Analyze {
            trace: args.trace,
            platform: args.platform,
        })
        .await
    }

    #[tool(
        description = "Compare two traces (base vs target, each an open trace's name or a file under the root): comparability checks, both GPU timelines with deltas, and the ops whose GPU time changed most."
    )]
    async fn compare(
        &self,
        Parameters(args): Parameters<CompareArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.answer(Call::Compare {
            base: args.base,
            target: args.target,
        })
        .await
    }

    #[tool(
        description = "The call stack of an event, root first: python frames, cpu ops, the runtime launch and the kernel, with depth, category, name, start and duration."
    )]
    async fn call_stack(
        &self,
        Parameters(args): Parameters<UidArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.answer(Call::CallStack {
            uid: args.uid,
            trace: args.trace,
        })
        .await
    }

    #[tool(
        description = "The GPU kernels, memcpys and memsets launched under an event (an op, a module's python frame), in time order."
    )]
    async fn kernels_of(
        &self,
        Parameters(args): Parameters<UidArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.answer(Call::KernelsOf {
            uid: args.uid,
            trace: args.trace,
        })
        .await
    }

    #[tool(
        description = "Analyze the rank traces of one distributed run together: collective skew and implicit synchronisation, bandwidth per collective, stragglers, each rank's GPU timeline."
    )]
    async fn collectives(
        &self,
        Parameters(args): Parameters<CollectivesArgs>,
    ) -> Result<CallToolResult, McpError> {
        self.answer(Call::Collectives {
            paths: args.paths,
            world_size: args.world_size,
            only: args.only,
        })
        .await
    }
}

/// A prompt's argument: name, what it is, whether it must be given.
type PromptArgumentSpec = (&'static str, &'static str, bool);

/// The prompts: (name, description, arguments, text with `{argument}` holes).
const PROMPTS: &[(&str, &str, &[PromptArgumentSpec], &str)] = &[
    (
        "standalone_analysis",
        "Analyse one trace step by step with these tools: where the GPU time goes and what to fix first.",
        &[
            ("trace", "The trace file, under the server's root.", true),
            ("platform", "The GPU platform (H100, MI300X, ...); default: detected from the trace.", false),
        ],
        include_str!("prompts/standalone_analysis.md"),
    ),
    (
        "comparative_analysis",
        "Compare two traces of one workload (e.g. two GPUs, two software versions) step by step with these tools.",
        &[
            ("base", "The base (reference) trace file, under the server's root.", true),
            ("target", "The target trace file, under the server's root.", true),
        ],
        include_str!("prompts/comparative_analysis.md"),
    ),
];

/// A prompt's text with its arguments filled in.
fn prompt_text(text: &str, arguments: &serde_json::Map<String, serde_json::Value>) -> String {
    let value = |name: &str| arguments.get(name).and_then(|v| v.as_str()).unwrap_or("");
    let analyze_clause = match value("platform") {
        "" => String::new(),
        p => format!(" with platform `{p}`"),
    };
    text.replace("{trace}", value("trace"))
        .replace("{base}", value("base"))
        .replace("{target}", value("target"))
        .replace("{analyze_clause}", &analyze_clause)
}

impl TraceServer {
    async fn schema_markdown(&self) -> Result<String, McpError> {
        let engine = Engine::with_catalog((*self.catalog).clone());
        let listing = engine
            .columns_listing(None)
            .await
            .map_err(|e| McpError::internal_error(crate::one_line(&e.to_string()), None))?;
        let limits = Limits {
            rows: usize::MAX,
            cell_chars: usize::MAX,
            ..Limits::default()
        };
        Ok(format!(
            "# tracesql schema\n\nEvery table, view and table function, column by column (times in µs unless the column says otherwise).\n\n{}",
            answer::batch_table(&listing, &limits)
        ))
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for TraceServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_resources()
            .enable_prompts()
            .build();
        let mut info = ServerConfig::new(capabilities).with_instructions(INSTRUCTIONS);
        info.server_info = Implementation::new("tracesql", env!("CARGO_PKG_VERSION"));
        info
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, McpError> {
        let mut resources = vec![Resource::new(SCHEMA_URI, "schema")
            .with_description(
                "Every table, view and table function with its columns' types and meanings.",
            )
            .with_mime_type("text/markdown")];
        for query in self.catalog.iter() {
            resources.push(
                Resource::new(format!("{QUERY_URI}{}", query.name), query.name.clone())
                    .with_description(format!(
                        "{:?} query v{}: {}",
                        query.kind, query.version, query.description
                    ))
                    .with_mime_type("application/sql"),
            );
        }
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, McpError> {
        let uri = request.uri;
        let text = if uri == SCHEMA_URI {
            self.schema_markdown().await?
        } else {
            let query = uri
                .strip_prefix(QUERY_URI)
                .and_then(|name| self.catalog.get(name))
                .ok_or_else(|| McpError::resource_not_found(format!("no resource {uri}"), None))?;
            self.catalog.file_text(query).ok_or_else(|| {
                McpError::resource_not_found(format!("{uri}: its file can no longer be read"), None)
            })?
        };
        Ok(ReadResourceResult::new(vec![ResourceContents::text(text, uri)]).into())
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, McpError> {
        let prompts = PROMPTS
            .iter()
            .map(|(name, description, arguments, _)| {
                let arguments = arguments
                    .iter()
                    .map(|(name, about, required)| {
                        PromptArgument::new(*name)
                            .with_description(*about)
                            .with_required(*required)
                    })
                    .collect();
                Prompt::new(*name, Some(*description), Some(arguments))
            })
            .collect();
        Ok(ListPromptsResult::with_all_items(prompts))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, McpError> {
        let Some((_, description, arguments, text)) =
            PROMPTS.iter().find(|(name, ..)| *name == request.name)
        else {
            return Err(McpError::invalid_params(
                format!("no prompt named '{}'", request.name),
                None,
            ));
        };
        let given = request.arguments.unwrap_or_default();
        for (name, _, required) in arguments.iter() {
            if *required
                && given
                    .get(*name)
                    .and_then(|v| v.as_str())
                    .is_none_or(str::is_empty)
            {
                return Err(McpError::invalid_params(
                    format!("prompt '{}' needs the argument '{name}'", request.name),
                    None,
                ));
            }
        }
        let message = PromptMessage::new_text(Role::User, prompt_text(text, &given));
        Ok(GetPromptResult::new(vec![message])
            .with_description(*description)
            .into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_fill_every_hole() {
        for (name, _, arguments, text) in PROMPTS {
            let mut given = serde_json::Map::new();
            for (argument, _, _) in arguments.iter() {
                given.insert(argument.to_string(), format!("<{argument}>").into());
            }
            let filled = prompt_text(text, &given);
            assert!(
                !filled.contains('{') && !filled.contains('}'),
                "{name}: {filled}"
            );
            for (argument, _, required) in arguments.iter() {
                if *required {
                    assert!(
                        filled.contains(&format!("`<{argument}>`")),
                        "{name} lacks {argument}"
                    );
                }
            }
            // Every tool a prompt names exists.
            let tools: Vec<String> = TraceServer::tool_router()
                .list_all()
                .into_iter()
                .map(|t| t.name.to_string())
                .collect();
            for word in filled.split('`').skip(1).step_by(2) {
                let looks_like_tool = word.chars().all(|c| c.is_ascii_lowercase() || c == '_')
                    && [
                        "open_trace",
                        "report",
                        "analyze",
                        "sql",
                        "compare",
                        "call_stack",
                        "kernels_of",
                        "describe_table",
                    ]
                    .contains(&word);
                if looks_like_tool {
                    assert!(
                        tools.iter().any(|t| t == word),
                        "{name} names unknown tool {word}"
                    );
                }
            }
        }
    }

    #[test]
    fn the_tools_are_those_the_issue_names() {
        let mut names: Vec<String> = TraceServer::tool_router()
            .list_all()
            .into_iter()
            .map(|t| t.name.to_string())
            .collect();
        names.sort();
        assert_eq!(names, TOOL_NAMES);
        for tool in TraceServer::tool_router().list_all() {
            let schema = serde_json::to_string(&tool.input_schema).unwrap();
            assert!(
                tool.description.as_deref().is_some_and(|d| d.len() > 40),
                "{}",
                tool.name
            );
            if tool.name == "sql" {
                assert!(
                    schema.contains("\"query\"") && schema.contains("read-only"),
                    "{schema}"
                );
            }
        }
    }
}
