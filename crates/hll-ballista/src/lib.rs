//! The `hll-datafusion` SQL functions (`redis_hll`, `redis_hll_merge`,
//! `redis_hll_count`) on an Apache DataFusion Ballista cluster.
//!
//! Ballista ships plans between the client, the scheduler and the executors
//! with `datafusion-proto`, which names a user-defined function and looks it
//! up again on the other side, so all three must know the functions. This
//! crate gives each of them its setup:
//!
//! - the client: [`remote`] (a cluster) and [`standalone`] (an in-process
//!   scheduler and executor), or [`client_state`] for your own connection;
//! - the scheduler: [`scheduler_config`], its session builder registering the
//!   functions ([`session_builder`]);
//! - the executor: [`executor_config`], its function registry holding them
//!   ([`function_registry`]).
//!
//! The `hll-ballista-scheduler` and `hll-ballista-executor` binaries are
//! these setups behind a few command-line flags (see [`args`]).

#![deny(missing_docs)]

pub mod args;

/// The README's examples, run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;

use std::sync::Arc;

use ballista::prelude::{SessionConfigExt, SessionContextExt};
use ballista_core::registry::BallistaFunctionRegistry;
use ballista_core::utils::default_session_builder;
use ballista_executor::executor_process::ExecutorProcessConfig;
use ballista_scheduler::config::SchedulerConfig;
use ballista_scheduler::scheduler_server::SessionBuilder;
use datafusion::error::Result;
use datafusion::execution::registry::FunctionRegistry;
use datafusion::execution::SessionStateBuilder;
use datafusion::logical_expr::AggregateUDF;
use datafusion::prelude::{SessionConfig, SessionContext};

pub use datafusion::execution::SessionState;

/// The two aggregates; the scalar is [`hll_datafusion::redis_hll_count`].
fn aggregates() -> [AggregateUDF; 2] {
    [
        hll_datafusion::redis_hll(),
        hll_datafusion::redis_hll_merge(),
    ]
}

/// Adds the three functions to a DataFusion function registry that
/// implements registration (a [`SessionState`]).
fn register_functions(registry: &mut dyn FunctionRegistry) -> Result<()> {
    for udaf in aggregates() {
        registry.register_udaf(Arc::new(udaf))?;
    }
    registry.register_udf(Arc::new(hll_datafusion::redis_hll_count()))?;
    Ok(())
}

/// The client's session state: Ballista's configuration and the three
/// functions, for `SessionContext::remote_with_state` or
/// `SessionContext::standalone_with_state`.
///
/// Both of those rebuild the state's function lists, so the context they
/// return has lost the functions: register them on it again with
/// [`hll_datafusion::register`], or use [`remote`] and [`standalone`], which
/// do.
///
/// ```
/// use datafusion::execution::registry::FunctionRegistry;
///
/// let state = hll_ballista::client_state(datafusion::prelude::SessionConfig::new());
/// assert!(state.udaf("redis_hll").is_ok());
/// ```
#[must_use]
pub fn client_state(config: SessionConfig) -> SessionState {
    let mut state = SessionStateBuilder::new()
        .with_default_features()
        .with_config(config.upgrade_for_ballista())
        .build();
    register_functions(&mut state).expect("SessionState's registry accepts every function");
    state
}

/// A context on the Ballista cluster whose scheduler listens at `url`
/// (`df://host:port`), with the three functions.
///
/// # Errors
/// The URL does not parse, or Ballista cannot set up the session.
pub async fn remote(url: &str, config: SessionConfig) -> Result<SessionContext> {
    let ctx = SessionContext::remote_with_state(url, client_state(config)).await?;
    hll_datafusion::register(&ctx);
    Ok(ctx)
}

/// A context on an in-process Ballista scheduler and executor (Ballista's
/// standalone mode), all three knowing the functions.
///
/// # Errors
/// The scheduler or the executor does not start.
pub async fn standalone(config: SessionConfig) -> Result<SessionContext> {
    let ctx = SessionContext::standalone_with_state(client_state(config)).await?;
    hll_datafusion::register(&ctx);
    Ok(ctx)
}

/// The scheduler's session builder: Ballista's default session state with
/// the three functions, for every session a client opens.
#[must_use]
pub fn session_builder() -> SessionBuilder {
    Arc::new(|config: SessionConfig| {
        let mut state = default_session_builder(config)?;
        register_functions(&mut state)?;
        Ok(state)
    })
}

/// `config` with the scheduler's session builder set to [`session_builder`].
#[must_use]
pub fn scheduler_config(config: SchedulerConfig) -> SchedulerConfig {
    config.with_override_session_builder(session_builder())
}

/// The executor's function registry: DataFusion's and Ballista's built-in
/// functions and the three.
#[must_use]
pub fn function_registry() -> BallistaFunctionRegistry {
    // Ballista's registry does not implement `FunctionRegistry::register_*`
    // (they return "not implemented"); its maps are public.
    let mut registry = BallistaFunctionRegistry::default();
    for udaf in aggregates() {
        registry
            .aggregate_functions
            .insert(udaf.name().to_owned(), Arc::new(udaf));
    }
    let udf = hll_datafusion::redis_hll_count();
    registry
        .scalar_functions
        .insert(udf.name().to_owned(), Arc::new(udf));
    registry
}

/// `config` with the executor's function registry set to
/// [`function_registry`].
#[must_use]
pub fn executor_config(mut config: ExecutorProcessConfig) -> ExecutorProcessConfig {
    config.override_function_registry = Some(Arc::new(function_registry()));
    config
}
