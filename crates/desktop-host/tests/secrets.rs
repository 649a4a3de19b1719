//! The key store without a keychain service: the consent flow, the private fallback file, and that no key leaks
//! into `Debug` output or error texts. The real keychain is tested by `secrets_keychain.rs`, inside a D-Bus
//! session (see `keychain-session.sh`). Unix only: the file-permission checks are Unix modes.

#![cfg(unix)]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers panic on setup failures"
)]

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use desktop_host::secrets::{
    ApiKeys, FALLBACK_FILE_NAME, FallbackOffer, KeyStorage, KeyStoreSetup, KeychainUnavailable,
    SecretsError, choose_key_store, open_key_store,
};
use desktop_host::settings::{ApiKey, ApiKeySource};
use pretty_assertions::assert_eq;

const KEY: &str = "sk-test-0123456789abcdef";
const OTHER_KEY: &str = "sk-test-fedcba9876543210";

fn no_keychain() -> Result<desktop_host::secrets::KeychainBackend, KeychainUnavailable> {
    Err(KeychainUnavailable {
        reason: "no D-Bus session bus".to_owned(),
    })
}

fn offer(config_dir: &Path) -> FallbackOffer {
    match choose_key_store(no_keychain(), config_dir) {
        KeyStoreSetup::NeedsFallbackConsent(offer) => offer,
        KeyStoreSetup::Ready(keys) => panic!("expected a fallback offer, got {keys:?}"),
    }
}

fn mode_of(path: &Path) -> u32 {
    std::fs::metadata(path).unwrap().permissions().mode() & 0o777
}

#[test]
fn without_a_keychain_the_fallback_is_offered_and_nothing_is_written_before_consent() {
    let config = tempfile::tempdir().unwrap();
    let offer = offer(config.path());
    assert_eq!(offer.keychain_unavailable.reason, "no D-Bus session bus");
    assert_eq!(offer.file, config.path().join(FALLBACK_FILE_NAME));
    assert!(
        offer
            .keychain_unavailable
            .to_string()
            .contains("the OS keychain is not available")
    );
    drop(offer);
    assert_eq!(std::fs::read_dir(config.path()).unwrap().count(), 0);
}

#[test]
fn the_accepted_fallback_file_is_private_and_keys_can_be_set_replaced_and_deleted() {
    let config = tempfile::tempdir().unwrap();
    let file = config.path().join("nested").join(FALLBACK_FILE_NAME);
    let keys = FallbackOffer {
        keychain_unavailable: KeychainUnavailable {
            reason: "none".to_owned(),
        },
        file: file.clone(),
    }
    .accept()
    .unwrap();
    assert_eq!(keys.storage(), KeyStorage::File { path: file.clone() });
    assert_eq!(mode_of(&file), 0o600);
    assert!(!keys.has_key("openai").unwrap());
    assert_eq!(keys.api_key("openai").unwrap(), None);

    keys.set_key("openai", &ApiKey::new(KEY)).unwrap();
    assert!(keys.has_key("openai").unwrap());
    assert!(!keys.has_key("anthropic").unwrap());
    assert_eq!(keys.api_key("openai").unwrap(), Some(ApiKey::new(KEY)));
    assert_eq!(mode_of(&file), 0o600, "rewrites keep the file private");

    keys.set_key("openai", &ApiKey::new(OTHER_KEY)).unwrap();
    assert_eq!(
        keys.api_key("openai").unwrap(),
        Some(ApiKey::new(OTHER_KEY))
    );
    assert!(
        !std::fs::read_to_string(&file).unwrap().contains(KEY),
        "a replaced key is gone from the file"
    );

    assert!(keys.delete_key("openai").unwrap());
    assert!(!keys.delete_key("openai").unwrap());
    assert!(!keys.has_key("openai").unwrap());
    assert!(!std::fs::read_to_string(&file).unwrap().contains(OTHER_KEY));
    let names: Vec<String> = std::fs::read_dir(file.parent().unwrap())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(
        names,
        vec![FALLBACK_FILE_NAME.to_owned()],
        "no temporary file is left behind"
    );
}

#[test]
fn a_fallback_accepted_earlier_is_used_without_asking_again_and_loose_permissions_are_tightened() {
    let config = tempfile::tempdir().unwrap();
    offer(config.path())
        .accept()
        .unwrap()
        .set_key("anthropic", &ApiKey::new(KEY))
        .unwrap();
    let file = config.path().join(FALLBACK_FILE_NAME);
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();

    let KeyStoreSetup::Ready(keys) = choose_key_store(no_keychain(), config.path()) else {
        panic!("the accepted file should be used");
    };
    assert_eq!(keys.storage(), KeyStorage::File { path: file.clone() });
    assert_eq!(keys.api_key("anthropic").unwrap(), Some(ApiKey::new(KEY)));
    assert_eq!(mode_of(&file), 0o600);
}

#[test]
fn keys_never_appear_in_debug_output_or_error_texts() {
    let config = tempfile::tempdir().unwrap();
    let keys: ApiKeys = offer(config.path()).accept().unwrap();
    keys.set_key("openai", &ApiKey::new(KEY)).unwrap();
    let debug = format!(
        "{keys:?} {:?} {:?}",
        keys.api_key("openai"),
        offer(tempfile::tempdir().unwrap().path())
    );
    assert!(!debug.contains(KEY), "{debug}");
    assert!(debug.contains("ApiKeys"));

    // A damaged file: the parse error names the file and position, not its contents.
    let file = config.path().join(FALLBACK_FILE_NAME);
    std::fs::write(
        &file,
        format!("{{\"version\": 1, \"keys\": {{\"openai\": \"{KEY}"),
    )
    .unwrap();
    let error = keys.has_key("openai").unwrap_err();
    assert!(matches!(error, SecretsError::ParseFile { .. }), "{error:?}");
    let texts = format!("{error} {error:?} {}", keys.api_key("openai").unwrap_err());
    assert!(!texts.contains(KEY), "{texts}");
    assert!(texts.contains(FALLBACK_FILE_NAME));
}

#[test]
fn blank_keys_and_malformed_provider_ids_are_refused() {
    let config = tempfile::tempdir().unwrap();
    let keys = offer(config.path()).accept().unwrap();
    assert!(matches!(
        keys.set_key("openai", &ApiKey::new("  \n")),
        Err(SecretsError::EmptyKey)
    ));
    for provider in ["", "open ai", "../etc", "x".repeat(65).as_str()] {
        let error = keys.set_key(provider, &ApiKey::new(KEY)).unwrap_err();
        assert!(
            matches!(error, SecretsError::InvalidProvider(_)),
            "{provider:?}: {error:?}"
        );
    }
    assert!(keys.has_key("my-proxy.local_2").is_ok());
}

/// Set in the child process of the test below.
const PROBE_CHILD_VARIABLE: &str = "PI_DESKTOP_TEST_PROBE_CHILD";

/// The real keychain probe where no Secret Service can be reached. The probe runs in a child process (this test
/// binary again, filtered to this test) whose D-Bus address points at nothing, so the test's own environment is
/// never changed.
#[cfg(target_os = "linux")]
#[test]
fn without_a_reachable_secret_service_the_real_probe_says_why_and_offers_the_file() {
    const TEST_NAME: &str =
        "without_a_reachable_secret_service_the_real_probe_says_why_and_offers_the_file";
    if std::env::var_os(PROBE_CHILD_VARIABLE).is_some() {
        let config = tempfile::tempdir().unwrap();
        match open_key_store(config.path()) {
            KeyStoreSetup::NeedsFallbackConsent(offer) => {
                assert_eq!(offer.file, config.path().join(FALLBACK_FILE_NAME));
                assert!(!offer.file.exists(), "nothing is written before consent");
                println!("probe-reason: {}", offer.keychain_unavailable);
            }
            KeyStoreSetup::Ready(keys) => panic!("a keychain was found: {keys:?}"),
        }
        return;
    }
    let output = std::process::Command::new(std::env::current_exe().unwrap())
        .args(["--exact", TEST_NAME, "--nocapture", "--test-threads=1"])
        .env(PROBE_CHILD_VARIABLE, "1")
        .env(
            "DBUS_SESSION_BUS_ADDRESS",
            "unix:path=/nonexistent/pi-desktop-test-bus",
        )
        .env_remove("DISPLAY")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "child failed: {stdout}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let reason = stdout
        .lines()
        .find_map(|line| line.split_once("probe-reason: ").map(|(_, reason)| reason))
        .unwrap_or_else(|| {
            panic!("the child did not report a reason: {stdout}");
        });
    assert!(
        reason.starts_with("the OS keychain is not available: "),
        "{reason}"
    );
    assert!(
        reason.contains("/nonexistent/pi-desktop-test-bus"),
        "the reason names what failed: {reason}"
    );
}
