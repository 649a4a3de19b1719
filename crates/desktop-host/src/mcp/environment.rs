//! What a stdio server starts with: a clean environment (an allowlist of the app's variables, the login
//! shell's `PATH`, then the server's own `env`) and its program resolved before anything is spawned, so a missing
//! one fails at once with what to do instead of a handshake timeout.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// Variables a server gets from the app's environment; nothing else leaks into it (API keys included).
const INHERITED: [&str; 10] = [
    "HOME",
    "USER",
    "LOGNAME",
    "SHELL",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "TMPDIR",
    "XDG_RUNTIME_DIR",
];

/// How long the login shell may take to say its `PATH`.
const LOGIN_SHELL_TIMEOUT: Duration = Duration::from_secs(3);

/// The environment of a server with its own `env`.
pub(crate) fn server_environment(own: &BTreeMap<String, String>) -> BTreeMap<String, OsString> {
    let mut env: BTreeMap<String, OsString> = INHERITED
        .iter()
        .filter_map(|name| std::env::var_os(name).map(|value| ((*name).to_owned(), value)))
        .collect();
    if let Some(path) = search_path() {
        env.insert("PATH".to_owned(), path.clone());
    }
    for (name, value) in own {
        env.insert(name.clone(), OsString::from(value));
    }
    env
}

/// The `PATH` a terminal would have: a GUI-launched app often has a poor one (no nvm, no ~/.local/bin). Asked
/// of the login shell once; the app's own `PATH` when that fails.
fn search_path() -> Option<&'static OsString> {
    static PATH: OnceLock<Option<OsString>> = OnceLock::new();
    PATH.get_or_init(|| login_shell_path().or_else(|| std::env::var_os("PATH")))
        .as_ref()
}

fn login_shell_path() -> Option<OsString> {
    let shell = std::env::var_os("SHELL")?;
    let mut child = std::process::Command::new(shell)
        .args(["-l", "-c", "printf %s \"$PATH\""])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .ok()?;
    let deadline = std::time::Instant::now() + LOGIN_SHELL_TIMEOUT;
    loop {
        match child.try_wait() {
            Ok(Some(status)) if status.success() => break,
            Ok(Some(_)) | Err(_) => return None,
            Ok(None) if std::time::Instant::now() >= deadline => {
                let _ = child.kill();
                return None;
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
        }
    }
    let mut text = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take()?, &mut text).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| OsString::from(text))
}

/// `command` as the server will run it: a path as given (it must exist), a bare name looked up in `path`.
/// `Err` carries what to tell the user.
pub(crate) fn resolve_command(
    command: &str,
    path: Option<&OsString>,
    cwd: Option<&Path>,
) -> Result<PathBuf, String> {
    let given = Path::new(command);
    if given.components().count() > 1 {
        let full = match (given.is_relative(), cwd) {
            (true, Some(cwd)) => cwd.join(given),
            _ => given.to_path_buf(),
        };
        return if full.is_file() {
            Ok(full)
        } else {
            Err(format!("{} does not exist: check the path", full.display()))
        };
    }
    std::env::split_paths(path.map(OsString::as_os_str).unwrap_or_default())
        .map(|dir| dir.join(command))
        .find(|candidate| candidate.is_file())
        .ok_or_else(|| missing_hint(command))
}

fn missing_hint(command: &str) -> String {
    match command {
        "npx" | "node" | "npm" => {
            "install Node.js, or give the absolute path of the program".to_owned()
        }
        "uvx" | "uv" => {
            "install uv (https://docs.astral.sh/uv/), or give the absolute path".to_owned()
        }
        "docker" => "install Docker, or give the absolute path".to_owned(),
        _ => "install it, or give the absolute path of the program".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environment_is_the_allowlist_plus_the_servers_own_and_nothing_else() {
        let own = BTreeMap::from([("API_TOKEN".to_owned(), "from the server's env".to_owned())]);
        let env = server_environment(&own);
        assert_eq!(
            env.get("API_TOKEN").map(|value| value.to_str()),
            Some(Some("from the server's env"))
        );
        assert!(env.contains_key("PATH"));
        assert!(
            env.keys().all(|name| name == "PATH"
                || name == "API_TOKEN"
                || INHERITED.contains(&name.as_str())),
            "{:?}",
            env.keys().collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_missing_program_says_what_to_install() {
        let empty = OsString::from("/nonexistent-dir");
        assert_eq!(
            resolve_command("npx", Some(&empty), None),
            Err("install Node.js, or give the absolute path of the program".to_owned())
        );
        assert!(
            resolve_command("/no/such/server", None, None)
                .unwrap_err()
                .contains("does not exist")
        );
        assert_eq!(
            resolve_command("sh", Some(&OsString::from("/bin:/usr/bin")), None)
                .map(|path| path.is_file()),
            Ok(true)
        );
    }
}
