//! Datasets on an Apache DataFusion Ballista cluster (`--features cluster`).
//!
//! The cluster runs the same catalog as a local session: the client plans each
//! query in an [`Engine`] whose tables are a dataset's Parquet files
//! ([`crate::dataset`]) and whose views are inlined into the plan, and hands
//! the plan to a Ballista scheduler, which splits it into stages that the
//! executors run over the files. Scheduler and executors are this binary
//! (`tracesql cluster scheduler|executor`, see [`serve`]), so they know
//! tracesql's functions; [`codec`] carries what a plan holds beyond
//! DataFusion's own nodes.
//!
//! Every node reads the dataset's files at the paths the client's manifest
//! gives: a dataset on a cluster lives on storage every node mounts at the same
//! path. What needs the traces in memory (the call-tree table functions) is
//! refused with an error naming it.

pub mod codec;
pub mod serve;
pub mod tls;

use std::sync::Arc;

use ballista_core::extension::{SessionConfigExt, SessionStateExt};
use datafusion::execution::session_state::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};

use crate::catalog::Catalog;
use crate::dataset::Dataset;
use crate::engine::{Engine, Prepare};
use crate::Error;
use tls::Tls;

/// The scheduler's port when a URL gives none (Ballista's default).
pub const DEFAULT_PORT: u16 = 50050;

/// `df://HOST:PORT` (or `HOST:PORT`) as host and port.
pub fn parse_url(url: &str) -> Result<(String, u16), Error> {
    let rest = url.strip_prefix("df://").unwrap_or(url);
    let rest = rest.trim_end_matches('/');
    let bad = || {
        Error::Usage(format!(
            "--cluster {url}: give the scheduler as df://HOST:PORT"
        ))
    };
    let (host, port) = match rest.rsplit_once(':') {
        Some((host, port)) => (host, port.parse::<u16>().map_err(|_| bad())?),
        None => (rest, DEFAULT_PORT),
    };
    if host.is_empty() || host.contains('/') {
        return Err(bad());
    }
    Ok((host.to_string(), port))
}

/// How long a client waits for one request to the cluster to be answered
/// (a job submission, a partition fetch).
pub(crate) const CLIENT_REQUEST_TIMEOUT_SECONDS: u64 = 300;

/// A DataFusion context whose queries run on the scheduler at `url`.
///
/// The scheduler is reached first, so that a wrong address is an error here,
/// naming it, rather than a failure inside the first query.
///
/// `partitions`: the plans' target partitions (DataFusion's default when
/// None). Ballista takes the session's settings when it connects, so this is
/// the place to choose them. `tls`: the cluster's certificates (`--tls`), when
/// it runs with them.
pub async fn connect(
    url: &str,
    partitions: Option<usize>,
    tls: Option<&Tls>,
) -> Result<SessionContext, Error> {
    let (host, port) = parse_url(url)?;
    let scheme = if tls.is_some() { "https" } else { "http" };
    let scheduler = format!("{scheme}://{host}:{port}");
    reach_scheduler(url, &scheduler, tls).await?;
    let config = client_config(partitions, tls);
    let state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build()
        .upgrade_for_ballista(scheduler)
        .map_err(Error::query)?;
    Ok(SessionContext::new_with_state(state))
}

/// The session settings a client's queries run under: Ballista's, with the
/// planner, request timeout, partitions, codecs and TLS this tool needs.
fn client_config(partitions: Option<usize>, tls: Option<&Tls>) -> SessionConfig {
    // The adaptive planner loses the ordering a union of sorted branches with
    // constant columns has (SanityCheckPlan on the scheduler, after which the
    // job never ends); the static planner keeps it.
    let mut config = SessionConfig::new_with_ballista()
        .set_str(
            ballista_core::config::BALLISTA_ADAPTIVE_PLANNER_ENABLED,
            "false",
        )
        // The scheduler answers a submission only once it has decoded the
        // plan: the catalog's largest (critical_path, its views inlined) took
        // past Ballista's 20 s default on a loaded two-core machine, and the
        // query failed with "Timeout expired". A dead scheduler is still
        // noticed by the transport's keep-alive; a live one gets 5 minutes.
        .set_str(
            ballista_core::config::BALLISTA_CLIENT_GRPC_TIMEOUT_SECONDS,
            &CLIENT_REQUEST_TIMEOUT_SECONDS.to_string(),
        );
    if let Some(partitions) = partitions {
        config = config.with_target_partitions(partitions.max(1));
    }
    let mut config = config
        .with_ballista_logical_extension_codec(Arc::new(codec::LogicalCodec::default()))
        .with_ballista_physical_extension_codec(Arc::new(codec::PhysicalCodec::default()));
    if let Some(tls) = tls {
        config = config
            .with_ballista_use_tls(true)
            .with_ballista_override_create_grpc_client_endpoint(tls.endpoint_override());
    }
    config
}

/// Connects to the scheduler once, as each query will (TLS included), so that
/// a wrong address or a TLS mismatch is one clear error here rather than a
/// transport error inside the first query.
async fn reach_scheduler(url: &str, scheduler: &str, tls: Option<&Tls>) -> Result<(), Error> {
    let bad_url = |e: &dyn std::fmt::Display| Error::Usage(format!("--cluster {url}: {e}"));
    let mut endpoint = tonic::transport::Endpoint::from_shared(scheduler.to_string())
        .map_err(|e| bad_url(&e))?
        .connect_timeout(std::time::Duration::from_secs(10));
    if let Some(tls) = tls {
        endpoint = endpoint.tls_config(tls.client()).map_err(|e| bad_url(&e))?;
    }
    let hint = if tls.is_some() {
        "the scheduler must run with --tls and certificates from the same CA"
    } else {
        "if the cluster runs with --tls, give the client the same --tls DIR"
    };
    let channel = tokio::time::timeout(std::time::Duration::from_secs(10), endpoint.connect())
        .await
        .map_err(|_| {
            Error::Query(format!(
                "--cluster {url}: the scheduler did not answer in 10 s"
            ))
        })?
        .map_err(|e| {
            let cause = transport_cause(&e);
            // A refused or unreachable address is not a TLS matter.
            let hint = if cause.contains("os error") {
                String::new()
            } else {
                format!(" ({hint})")
            };
            Error::Query(format!(
                "--cluster {url}: cannot connect to the scheduler: {cause}{hint}"
            ))
        })?;
    // A plain client reaching a TLS scheduler gets through the handshake and
    // fails on the first request: make one.
    let mut client =
        ballista_core::serde::protobuf::scheduler_grpc_client::SchedulerGrpcClient::new(channel);
    let probe = ballista_core::serde::protobuf::GetJobStatusParams {
        job_id: "tracesql-connection-probe".into(),
    };
    // Bounded like the connection: a server that takes the connection and
    // never answers (a TLS one stalled mid-handshake, a wrong service) would
    // otherwise hold the client forever.
    let answer = tokio::time::timeout(PROBE_TIMEOUT, client.get_job_status(probe))
        .await
        .map_err(|_| {
            Error::Query(format!(
                "--cluster {url}: the scheduler took the connection but did not answer in {} s ({hint})",
                PROBE_TIMEOUT.as_secs()
            ))
        })?;
    match answer {
        Ok(_) => Ok(()),
        // The scheduler itself answered, if only that it has no such job.
        Err(status) if status.message().starts_with("Error getting status") => Ok(()),
        Err(status) => Err(Error::Query(format!(
            "--cluster {url}: the scheduler refused the connection: {} ({hint})",
            transport_cause(&status)
        ))),
    }
}

/// How long the connection probe waits for the scheduler's answer: a lookup
/// of a job that does not exist, answered at once by a live scheduler.
const PROBE_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(20);

/// The innermost cause of a transport error: the part a user can act on.
fn transport_cause(error: &(dyn std::error::Error + 'static)) -> String {
    let mut cause = error;
    while let Some(inner) = cause.source() {
        cause = inner;
    }
    crate::one_line(&cause.to_string())
}

/// A session over `dataset` whose queries run on the cluster at `url`: the
/// dataset's tables, the catalog's views inlined, `prepare` applied; its plans
/// in `partitions` partitions, over TLS when `tls` is given (see [`connect`]).
pub async fn engine_over(
    url: &str,
    catalog: &Catalog,
    prepare: &Prepare<'_>,
    dataset: Dataset,
    partitions: Option<usize>,
    tls: Option<&Tls>,
) -> Result<Engine, Error> {
    let ctx = connect(url, partitions, tls).await?;
    let mut engine = Engine::with_context(catalog.clone(), ctx);
    prepare(&engine)?;
    engine.use_dataset(dataset)?;
    engine.inline_views();
    engine.register_views().await.map_err(Error::query)?;
    Ok(engine)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clients_wait_minutes_for_an_answer_not_ballistas_20_s() {
        let config = client_config(Some(3), None);
        let ballista = config.ballista_config();
        assert_eq!(
            ballista.grpc_client_timeout_seconds() as u64,
            CLIENT_REQUEST_TIMEOUT_SECONDS
        );
        assert!(CLIENT_REQUEST_TIMEOUT_SECONDS >= 120);
        assert!(!ballista.adaptive_query_planner_enabled());
        assert_eq!(config.target_partitions(), 3);
    }

    #[test]
    fn urls_name_host_and_port() {
        assert_eq!(
            parse_url("df://10.0.0.5:50051").unwrap(),
            ("10.0.0.5".into(), 50051)
        );
        assert_eq!(
            parse_url("localhost").unwrap(),
            ("localhost".into(), DEFAULT_PORT)
        );
        assert!(parse_url("df://:1").is_err());
        assert!(parse_url("df://h:port").is_err());
    }
}
