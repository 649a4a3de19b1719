//! The key store against a real OS keychain: stores, reads back, replaces and deletes a key through the Secret
//! Service, and checks with `secret-tool` that the item really is in the keychain.
//!
//! This binary has its own harness (`harness = false` in Cargo.toml) because whether it can run is a property of
//! the environment, decided once, visibly:
//! - inside `tests/keychain-session.sh` (which sets `PI_DESKTOP_KEYCHAIN_SESSION=1` after proving the service
//!   answers) every check must pass, and a broken keychain fails the run;
//! - anywhere else it prints one `SKIPPED` line saying how to run it, and exits successfully.
//!
//! Run: `crates/desktop-host/tests/keychain-session.sh cargo test -p desktop-host --test secrets_keychain`
#![allow(
    clippy::print_stdout,
    reason = "a custom test harness reports on stdout like libtest does"
)]

use std::process::{Command, ExitCode};

use desktop_host::secrets::{
    KeyStorage, KeyStoreSetup, KeychainBackend, SecretBackend, open_key_store,
};
use desktop_host::settings::{ApiKey, ApiKeySource};

/// The service the checks write under, apart from the app's own.
const TEST_SERVICE: &str = "pi-desktop-test";

type CheckResult = Result<(), String>;

/// A named check.
type Check = (&'static str, fn() -> CheckResult);

fn main() -> ExitCode {
    if std::env::var("PI_DESKTOP_KEYCHAIN_SESSION").as_deref() != Ok("1") {
        println!(
            "secrets_keychain: SKIPPED (no keychain session). Run it with \
             crates/desktop-host/tests/keychain-session.sh cargo test -p desktop-host --test secrets_keychain"
        );
        return ExitCode::SUCCESS;
    }
    let checks: [Check; 3] = [
        (
            "the_app_finds_the_keychain_and_needs_no_fallback",
            the_app_finds_the_keychain_and_needs_no_fallback,
        ),
        (
            "a_key_is_stored_replaced_and_deleted_in_the_keychain",
            a_key_is_stored_replaced_and_deleted_in_the_keychain,
        ),
        (
            "keychain_debug_output_never_shows_the_key",
            keychain_debug_output_never_shows_the_key,
        ),
    ];
    println!("\nrunning {} keychain checks", checks.len());
    let mut n_failed = 0;
    for (name, check) in checks {
        match check() {
            Ok(()) => println!("test {name} ... ok"),
            Err(reason) => {
                n_failed += 1;
                println!("test {name} ... FAILED\n    {reason}");
            }
        }
    }
    println!(
        "\nkeychain result: {} passed; {n_failed} failed\n",
        checks.len() - n_failed
    );
    if n_failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn ensure(condition: bool, what: impl FnOnce() -> String) -> CheckResult {
    if condition { Ok(()) } else { Err(what()) }
}

fn connect() -> Result<KeychainBackend, String> {
    KeychainBackend::connect(TEST_SERVICE).map_err(|error| error.to_string())
}

/// What `secret-tool` finds for the item keyring writes (attributes `service` and `username`).
fn secret_tool_lookup(provider: &str) -> Result<Option<String>, String> {
    let output = Command::new("secret-tool")
        .args(["lookup", "service", TEST_SERVICE, "username", provider])
        .output()
        .map_err(|error| format!("cannot run secret-tool: {error}"))?;
    if output.status.success() {
        Ok(Some(String::from_utf8_lossy(&output.stdout).into_owned()))
    } else {
        Ok(None)
    }
}

fn the_app_finds_the_keychain_and_needs_no_fallback() -> CheckResult {
    let config = tempfile::tempdir().map_err(|error| error.to_string())?;
    match open_key_store(config.path()) {
        KeyStoreSetup::Ready(keys) => ensure(
            keys.storage()
                == KeyStorage::Keychain {
                    service: "pi-desktop".to_owned(),
                },
            || format!("unexpected storage {:?}", keys.storage()),
        ),
        KeyStoreSetup::NeedsFallbackConsent(offer) => Err(format!(
            "keychain not found: {}",
            offer.keychain_unavailable
        )),
    }?;
    ensure(
        std::fs::read_dir(config.path())
            .map_err(|error| error.to_string())?
            .count()
            == 0,
        || "the keychain path wrote into the config folder".to_owned(),
    )
}

fn a_key_is_stored_replaced_and_deleted_in_the_keychain() -> CheckResult {
    let provider = format!("provider-{}", std::process::id());
    let keys = desktop_host::secrets::ApiKeys::new(Box::new(connect()?));
    let first = "sk-keychain-first-0123456789";
    let second = "sk-keychain-second-9876543210";
    let error_text = |error: desktop_host::secrets::SecretsError| error.to_string();

    ensure(!keys.has_key(&provider).map_err(error_text)?, || {
        "a key exists before the test".to_owned()
    })?;
    keys.set_key(&provider, &ApiKey::new(first))
        .map_err(error_text)?;
    ensure(keys.has_key(&provider).map_err(error_text)?, || {
        "has_key is false after set_key".to_owned()
    })?;
    let read = keys.api_key(&provider)?;
    ensure(read.as_ref().map(ApiKey::expose) == Some(first), || {
        "the key read back differs".to_owned()
    })?;
    ensure(
        secret_tool_lookup(&provider)?.as_deref() == Some(first),
        || "secret-tool does not see the key in the Secret Service".to_owned(),
    )?;

    keys.set_key(&provider, &ApiKey::new(second))
        .map_err(error_text)?;
    let read = keys.api_key(&provider)?;
    ensure(read.as_ref().map(ApiKey::expose) == Some(second), || {
        "the replaced key was not returned".to_owned()
    })?;
    ensure(
        secret_tool_lookup(&provider)?.as_deref() == Some(second),
        || "secret-tool still sees the old key".to_owned(),
    )?;

    ensure(keys.delete_key(&provider).map_err(error_text)?, || {
        "delete_key found no key".to_owned()
    })?;
    ensure(!keys.has_key(&provider).map_err(error_text)?, || {
        "has_key is true after delete_key".to_owned()
    })?;
    ensure(secret_tool_lookup(&provider)?.is_none(), || {
        "secret-tool still finds the deleted key".to_owned()
    })?;
    ensure(!keys.delete_key(&provider).map_err(error_text)?, || {
        "a second delete found a key".to_owned()
    })
}

fn keychain_debug_output_never_shows_the_key() -> CheckResult {
    let provider = format!("debug-{}", std::process::id());
    let backend = connect()?;
    let key = "sk-keychain-debug-5555555555";
    backend
        .write(&provider, &ApiKey::new(key))
        .map_err(|error| error.to_string())?;
    let keys = desktop_host::secrets::ApiKeys::new(Box::new(connect()?));
    let debug = format!("{backend:?} {keys:?} {:?}", keys.api_key(&provider));
    backend
        .remove(&provider)
        .map_err(|error| error.to_string())?;
    ensure(!debug.contains(key), || {
        format!("Debug output shows the key: {debug}")
    })
}
