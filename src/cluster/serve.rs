//! `tracesql cluster scheduler` and `tracesql cluster executor`: Ballista's
//! scheduler and executor with tracesql's functions and plan codecs.
//!
//! Ballista's own binaries would not know `roofline_efficiency` or
//! `kernel_stats`; these do, because they register the functions a local
//! session registers (taken from an [`Engine`], so the two cannot drift).
//!
//! Both listen on 127.0.0.1 unless told otherwise: Ballista's gRPC and Flight
//! services have no authentication of their own, so exposing them is the
//! caller's explicit choice (`--expose`, checked by the command line), and
//! `--tls DIR` makes every connection mutual TLS (see [`super::tls`]): the
//! scheduler's gRPC service and the executors' Flight service are then served
//! here rather than by Ballista's functions, which serve plain HTTP/2 only.
//! `--max-lifetime` makes a server stop by itself, as a test's or a batch
//! job's servers should.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use arrow_flight::flight_service_server::FlightServiceServer;
use ballista_core::config::TaskSchedulingPolicy;
use ballista_core::error::BallistaError;
use ballista_core::extension::SessionConfigExt;
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::serde::protobuf::scheduler_grpc_server::SchedulerGrpcServer;
use ballista_core::utils::{create_grpc_server, GrpcServerConfig};
use ballista_executor::executor_process::{start_executor_process, ExecutorProcessConfig};
use ballista_executor::flight_service::BallistaFlightService;
use ballista_executor::shutdown::Shutdown;
use ballista_executor::ArrowFlightServerProvider;
use ballista_scheduler::cluster::BallistaCluster;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_process::{create_scheduler, start_server};
use datafusion::execution::session_state::{SessionState, SessionStateBuilder};
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_proto::protobuf::{LogicalPlanNode, PhysicalPlanNode};

use super::codec::{LogicalCodec, PhysicalCodec};
use super::tls::Tls;
use crate::engine::Engine;
use crate::Error;

/// Where and how long a scheduler runs.
#[derive(Debug, Clone)]
pub struct SchedulerOptions {
    pub bind: String,
    pub port: u16,
    /// The host executors and clients are told to reach it at.
    pub advertise: String,
    /// How long an executor may stay silent before its tasks are run elsewhere.
    pub executor_timeout: Duration,
    pub max_lifetime: Option<Duration>,
    /// Mutual TLS (`--tls`), when given.
    pub tls: Option<Tls>,
}

/// Where an executor runs and which scheduler it serves.
#[derive(Debug, Clone)]
pub struct ExecutorOptions {
    pub scheduler_host: String,
    pub scheduler_port: u16,
    pub bind: String,
    /// Arrow Flight port (results and shuffle data) and gRPC port (tasks).
    pub port: u16,
    pub grpc_port: u16,
    pub advertise: String,
    /// Tasks run at once.
    pub slots: usize,
    /// Where shuffle files go (a temporary directory when None).
    pub work_dir: Option<String>,
    pub max_lifetime: Option<Duration>,
    /// Mutual TLS (`--tls`), when given.
    pub tls: Option<Tls>,
}

/// Every function a local session has, by name: what remote nodes must know.
pub fn functions() -> BallistaFunctionRegistry {
    let engine = Engine::new();
    let state = engine.context().state();
    let mut registry = BallistaFunctionRegistry::default();
    registry.scalar_functions.extend(
        state
            .scalar_functions()
            .iter()
            .map(|(k, v)| (k.clone(), Arc::clone(v))),
    );
    registry.aggregate_functions.extend(
        state
            .aggregate_functions()
            .iter()
            .map(|(k, v)| (k.clone(), Arc::clone(v))),
    );
    registry.window_functions.extend(
        state
            .window_functions()
            .iter()
            .map(|(k, v)| (k.clone(), Arc::clone(v))),
    );
    registry
}

/// A scheduler's session for one client session: DataFusion's defaults plus
/// tracesql's functions.
fn scheduler_session(config: SessionConfig) -> datafusion::error::Result<SessionState> {
    let mut state = SessionStateBuilder::new()
        .with_config(config)
        .with_default_features()
        .build();
    // The client planned and checked each plan; decoded here, a plan has lost
    // the constants its filters established (a column fixed by `WHERE sheet =
    // '...'`), so the check would reject orderings that hold. The cluster tests
    // compare every report with a local run instead. A limit pushed into a
    // memory scan was lost between the stages (`LIMIT 2` over `platforms`
    // returned every row), so limits stay where the query put them.
    let rules: Vec<_> = state
        .physical_optimizers()
        .iter()
        .filter(|rule| !matches!(rule.name(), "SanityCheckPlan" | "LimitPushdown"))
        .cloned()
        .collect();
    state = SessionStateBuilder::new_from_existing(state)
        .with_physical_optimizer_rules(rules)
        .build();
    let ctx = SessionContext::new_with_state(state);
    let registry = functions();
    for udf in registry.scalar_functions.values() {
        ctx.register_udf(udf.as_ref().clone());
    }
    for udaf in registry.aggregate_functions.values() {
        ctx.register_udaf(udaf.as_ref().clone());
    }
    for udwf in registry.window_functions.values() {
        ctx.register_udwf(udwf.as_ref().clone());
    }
    Ok(ctx.state())
}

/// Sends Ballista's log to stderr, filtered by RUST_LOG (warnings by default).
fn init_log() {
    let env = env_logger::Env::default().default_filter_or("warn");
    let _ = env_logger::Builder::from_env(env).try_init();
}

/// Runs a scheduler until it fails or its lifetime ends.
pub async fn run_scheduler(options: SchedulerOptions) -> Result<(), Error> {
    init_log();
    let address: SocketAddr = format!("{}:{}", options.bind, options.port)
        .parse()
        .map_err(|e| Error::Usage(format!("--bind {}: {e}", options.bind)))?;
    let mut config = SchedulerConfig::default()
        .with_hostname(options.advertise.clone())
        .with_port(options.port);
    config.bind_host = options.bind.clone();
    config.executor_timeout_seconds = options.executor_timeout.as_secs().max(1);
    config.expire_dead_executor_interval_seconds = (options.executor_timeout.as_secs() / 2).max(1);
    config.override_session_builder = Some(Arc::new(scheduler_session));
    config.override_logical_codec = Some(Arc::new(LogicalCodec::default()));
    config.override_physical_codec = Some(Arc::new(PhysicalCodec::default()));
    if let Some(tls) = &options.tls {
        // Pushed tasks would go to each executor's own gRPC service, which
        // Ballista serves without TLS; polling executors need none.
        config.scheduling_policy = TaskSchedulingPolicy::PullStaged;
        config.use_tls = true;
        config.override_create_grpc_client_endpoint = Some(tls.endpoint_override());
    }
    let fail = |e: BallistaError| {
        Error::Query(format!(
            "scheduler on {address}: {}",
            crate::one_line(&e.to_string())
        ))
    };
    let cluster = BallistaCluster::new_from_config(&config)
        .await
        .map_err(fail)?;
    let config = Arc::new(config);
    match options.tls {
        None => {
            eprintln!("tracesql scheduler listening on {address}");
            let server = start_server(cluster, address, config);
            until_lifetime(server, options.max_lifetime).await
        }
        Some(tls) => {
            eprintln!("tracesql scheduler listening on {address} (mutual TLS)");
            let server = serve_scheduler_tls(cluster, address, config, tls);
            until_lifetime(server, options.max_lifetime).await
        }
    }
    .map_err(fail)
}

/// The scheduler's gRPC service over mutual TLS (Ballista's own server has no
/// TLS). Its REST API and Flight proxy are left out: clients of this cluster
/// use neither.
async fn serve_scheduler_tls(
    cluster: BallistaCluster,
    address: SocketAddr,
    config: Arc<SchedulerConfig>,
    tls: Tls,
) -> ballista_core::error::Result<()> {
    config.validate()?;
    let scheduler =
        create_scheduler::<LogicalPlanNode, PhysicalPlanNode>(cluster, Arc::clone(&config)).await?;
    let service = SchedulerGrpcServer::new(scheduler)
        .max_encoding_message_size(config.grpc_server_max_encoding_message_size as usize)
        .max_decoding_message_size(config.grpc_server_max_decoding_message_size as usize);
    tonic::transport::Server::builder()
        .tls_config(tls.server())
        .map_err(BallistaError::TonicError)?
        .add_service(service)
        .serve(address)
        .await
        .map_err(BallistaError::TonicError)
}

/// An executor's Flight service (results and shuffle files) over mutual TLS.
fn flight_over_tls(
    tls: Tls,
    max_encoding: usize,
    max_decoding: usize,
) -> Arc<ArrowFlightServerProvider> {
    Arc::new(
        move |work_dir: String,
              address: SocketAddr,
              mut shutdown: Shutdown,
              grpc: GrpcServerConfig| {
            let tls = tls.clone();
            tokio::spawn(async move {
                let service = FlightServiceServer::new(BallistaFlightService::new(work_dir))
                    .max_encoding_message_size(max_encoding)
                    .max_decoding_message_size(max_decoding);
                create_grpc_server(&grpc)
                    .tls_config(tls.server())
                    .map_err(BallistaError::TonicError)?
                    .add_service(service)
                    .serve_with_shutdown(address, shutdown.recv())
                    .await
                    .map_err(BallistaError::TonicError)
            })
        },
    )
}

/// Runs an executor until it fails, is stopped or its lifetime ends.
pub async fn run_executor(options: ExecutorOptions) -> Result<(), Error> {
    init_log();
    let mut config = ExecutorProcessConfig {
        bind_host: options.bind.clone(),
        external_host: Some(options.advertise.clone()),
        port: options.port,
        grpc_port: options.grpc_port,
        scheduler_host: options.scheduler_host.clone(),
        scheduler_port: options.scheduler_port,
        // Keep retrying the scheduler for a while: they often start together.
        scheduler_connect_timeout_seconds: 30,
        vcores: options.slots.max(1),
        work_dir: options.work_dir.clone(),
        executor_heartbeat_interval_seconds: 2,
        override_function_registry: Some(Arc::new(functions())),
        override_logical_codec: Some(Arc::new(LogicalCodec::default())),
        override_physical_codec: Some(Arc::new(PhysicalCodec::default())),
        ..ExecutorProcessConfig::default()
    };
    if let Some(tls) = &options.tls {
        // Polls the scheduler for tasks: no gRPC service of its own to serve
        // (Ballista would serve it without TLS). The scheduler does the same.
        config.task_scheduling_policy = TaskSchedulingPolicy::PullStaged;
        let endpoint = tls.endpoint_override();
        config.override_create_grpc_client_endpoint = Some(Arc::clone(&endpoint));
        // Tasks fetch other executors' shuffle files with their session's
        // client settings: TLS, with this node's certificate.
        config.override_config_producer = Some(Arc::new(move || {
            SessionConfig::new_with_ballista()
                .with_ballista_use_tls(true)
                .with_ballista_override_create_grpc_client_endpoint(Arc::clone(&endpoint))
        }));
        config.override_arrow_flight_service = Some(flight_over_tls(
            tls.clone(),
            config.grpc_max_encoding_message_size as usize,
            config.grpc_max_decoding_message_size as usize,
        ));
    }
    let fail = |e: BallistaError| {
        Error::Query(format!(
            "executor on {}:{}: {}",
            options.bind,
            options.port,
            crate::one_line(&e.to_string())
        ))
    };
    eprintln!(
        "tracesql executor on {}:{} (flight) and {} (grpc), scheduler {}:{}",
        options.bind,
        options.port,
        options.grpc_port,
        options.scheduler_host,
        options.scheduler_port
    );
    let server = start_executor_process(Arc::new(config));
    until_lifetime(server, options.max_lifetime)
        .await
        .map_err(fail)
}

/// `server`, stopped once `lifetime` has passed.
async fn until_lifetime<T>(
    server: impl std::future::Future<Output = ballista_core::error::Result<T>>,
    lifetime: Option<Duration>,
) -> ballista_core::error::Result<()> {
    match lifetime {
        None => server.await.map(|_| ()),
        Some(lifetime) => tokio::select! {
            result = server => result.map(|_| ()),
            _ = tokio::time::sleep(lifetime) => {
                eprintln!("tracesql: --max-lifetime reached, stopping");
                Ok(())
            }
        },
    }
}
