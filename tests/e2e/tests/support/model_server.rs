//! The app pointed at a loopback model server: the environment that makes `pi-desktop` talk to an
//! [`OpenAiServer`] (an OpenAI-compatible chat-completions server of `pi-test-support`, scripted with
//! [`pi_test_support::openai::Reply`]s), and launching the app so.

use pi_desktop_e2e::{AppUnderTest, LaunchOptions};
use pi_test_support::openai::{MODEL, OpenAiServer};

/// The app's side of a loopback model server.
pub(crate) trait LaunchApp {
    /// The environment that points the app at this server.
    fn app_envs(&self) -> Vec<(String, String)>;

    /// Launches the app pointed at this server (a home of its own, no arguments).
    async fn launch_app(&self) -> AppUnderTest;

    /// Launches the app pointed at this server in `home` (no arguments): a home prepared before, or the one a
    /// closed app left behind.
    async fn launch_app_in(&self, home: tempfile::TempDir) -> AppUnderTest;

    /// Like [`LaunchApp::launch_app`], with `settings` (JSON) as the settings file and an empty Downloads folder.
    async fn launch_app_with_settings(&self, settings: &str) -> AppUnderTest;
}

impl LaunchApp for OpenAiServer {
    fn app_envs(&self) -> Vec<(String, String)> {
        [
            ("PI_API", "openai-completions"),
            ("PI_BASE_URL", self.base_url()),
            ("PI_MODEL", MODEL),
            ("PI_API_KEY", "sk-e2e-test"),
        ]
        .into_iter()
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect()
    }

    async fn launch_app(&self) -> AppUnderTest {
        AppUnderTest::launch(LaunchOptions {
            envs: self.app_envs(),
            args: Vec::new(),
        })
        .await
        .unwrap()
    }

    async fn launch_app_in(&self, home: tempfile::TempDir) -> AppUnderTest {
        AppUnderTest::launch_in(
            home,
            LaunchOptions {
                envs: self.app_envs(),
                args: Vec::new(),
            },
        )
        .await
        .unwrap()
    }

    async fn launch_app_with_settings(&self, settings: &str) -> AppUnderTest {
        let home = pi_desktop_e2e::new_home().unwrap();
        let config = home.path().join(".config/pi-desktop");
        std::fs::create_dir_all(&config).unwrap();
        std::fs::write(config.join("settings.json"), settings).unwrap();
        std::fs::create_dir_all(home.path().join("Downloads")).unwrap();
        self.launch_app_in(home).await
    }
}
