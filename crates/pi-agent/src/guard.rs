//! Panic containment for user code: a panic inside a hook, listener or tool is caught and reported like the
//! error the callback could have returned (pi has no panics; a throw is the closest equivalent).

use std::any::Any;
use std::future::Future;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;

use crate::loop_config::HookError;

/// The text for a caught panic: `panic in {what}: {payload}`.
pub(crate) fn panic_message(what: &str, payload: &(dyn Any + Send)) -> String {
    let detail = payload
        .downcast_ref::<&str>()
        .map(|text| (*text).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic payload".to_string());
    format!("panic in {what}: {detail}")
}

/// Awaits a hook future, turning a panic into a [`HookError`].
pub(crate) async fn guard_hook<T>(
    what: &str,
    future: impl Future<Output = Result<T, HookError>>,
) -> Result<T, HookError> {
    match AssertUnwindSafe(future).catch_unwind().await {
        Ok(outcome) => outcome,
        Err(panic) => Err(HookError::new(panic_message(what, &*panic))),
    }
}

/// Runs a synchronous callback, turning a panic into an error text.
pub(crate) fn guard_sync<T>(what: &str, callback: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(AssertUnwindSafe(callback))
        .map_err(|panic| panic_message(what, &*panic))
}
