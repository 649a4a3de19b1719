//! Reading back what the page has to tell once it is there: what a benchmark's page-side script stamped on
//! `window` (the script runs once a frame), or what the app has done by now; the caller asks until it is there.

use std::time::{Duration, Instant};

use pi_desktop_e2e::AppUnderTest;
use serde_json::Value;

/// How often the page is asked again.
const EVERY: Duration = Duration::from_millis(20);

/// Runs `script` until it returns something other than null, and returns that; panics after `deadline`.
pub(crate) async fn poll(app: &AppUnderTest, script: &str, deadline: Duration) -> Value {
    let started = Instant::now();
    loop {
        let value = app.client().execute(script, vec![]).await.unwrap();
        if !value.is_null() {
            return value;
        }
        assert!(
            started.elapsed() < deadline,
            "no answer to {script} within {deadline:?}"
        );
        tokio::time::sleep(EVERY).await;
    }
}
