//! `tracesql mcp`: tracesql as the trace engine of AI agents, over the Model
//! Context Protocol on stdio.
//!
//! | part | what it does |
//! |---|---|
//! | [`session`] | the traces an agent opened (loaded once) and every call it can make, answered in Markdown |
//! | [`server`] | the MCP tools, resources (the query catalog, the schema) and prompts (the analysis workflows) |
//! | [`guard`] | what a model may do: one read-only SQL statement, files under the root |
//! | [`answer`] | answers sized for a model: row limits stated, numbers rounded, long names cut, a byte cap |
//!
//! Safe by default, because the text of a trace can steer the model that
//! reads it: SQL is read-only and cannot name files, files are read only under
//! `--root`, each call has a time limit and user SQL a memory bound, and a
//! failing call is a tool error, never the server's end.

pub mod answer;
pub mod guard;
pub mod server;
pub mod session;

use std::path::Path;
use std::time::Duration;

use rmcp::ServiceExt;

use crate::catalog::Catalog;
use crate::Error;

pub use session::{Call, Options, Prepare, Session};

/// How `tracesql mcp` was started.
pub struct ServeOptions<'a> {
    pub root: &'a Path,
    pub traces: &'a [String],
    pub call_limit: Duration,
    pub memory_bytes: usize,
    pub limits: answer::Limits,
}

/// A session whose root is canonical, with `traces` opened.
pub async fn session(
    catalog: Catalog,
    prepare: Prepare,
    options: &ServeOptions<'_>,
) -> Result<Session, Error> {
    let root = guard::canonical_root(options.root).map_err(Error::Usage)?;
    let mut session = Session::new(
        catalog,
        prepare,
        Options {
            root,
            memory_bytes: options.memory_bytes,
            limits: options.limits,
        },
    )?;
    session.open_all(options.traces).await?;
    Ok(session)
}

/// Serves MCP on stdin/stdout until the client closes stdin. The traces named
/// on the command line are opened first: a bad one is an error before serving.
pub fn serve(catalog: Catalog, prepare: Prepare, options: ServeOptions<'_>) -> Result<(), Error> {
    let runtime = |name: &str| {
        tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .thread_name(name)
            .build()
            .map_err(|e| Error::Output(format!("cannot start the runtime: {e}")))
    };
    // The protocol's runtime; each call runs on one of its own (server.rs).
    let protocol = runtime("tracesql-mcp")?;
    let session = protocol.block_on(session(catalog, prepare, &options))?;
    let served = protocol.block_on(async {
        let server = server::TraceServer::new(session, options.call_limit);
        let running = server
            .serve(rmcp::transport::stdio())
            .await
            .map_err(|e| Error::Output(format!("mcp: {}", crate::one_line(&e.to_string()))))?;
        running
            .waiting()
            .await
            .map_err(|e| Error::Output(format!("mcp: {e}")))?;
        Ok(())
    });
    // A call still computing when the client left is not waited for.
    protocol.shutdown_background();
    served
}
