//! A notification server of the test's own on a private session bus ([`super::session_bus::SessionBus`]): it
//! owns `org.freedesktop.Notifications` (the freedesktop.org Desktop Notifications specification's name, path
//! and interface), keeps every notification the app sends, and invokes a notification's default action the way
//! a click on it does (the `ActionInvoked` signal).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use zbus::object_server::SignalEmitter;
use zbus::zvariant::OwnedValue;

const NAME: &str = "org.freedesktop.Notifications";
const PATH: &str = "/org/freedesktop/Notifications";

/// How long a notification may take to arrive.
const DEADLINE: Duration = Duration::from_secs(30);
/// How often the test looks again.
const POLL: Duration = Duration::from_millis(100);

/// One notification as the server received it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Received {
    pub(crate) id: u32,
    pub(crate) app_name: String,
    pub(crate) summary: String,
    pub(crate) body: String,
    /// Action keys and labels, alternating, as the specification sends them.
    pub(crate) actions: Vec<String>,
}

struct Server {
    received: Arc<Mutex<Vec<Received>>>,
}

#[zbus::interface(name = "org.freedesktop.Notifications")]
impl Server {
    #[allow(
        clippy::too_many_arguments,
        reason = "the specification's Notify takes eight arguments"
    )]
    fn notify(
        &self,
        app_name: String,
        replaces_id: u32,
        _app_icon: String,
        summary: String,
        body: String,
        actions: Vec<String>,
        _hints: HashMap<String, OwnedValue>,
        _expire_timeout: i32,
    ) -> u32 {
        let mut received = self.received.lock().unwrap();
        let id = if replaces_id == 0 {
            u32::try_from(received.len()).unwrap() + 1
        } else {
            replaces_id
        };
        received.push(Received {
            id,
            app_name,
            summary,
            body,
            actions,
        });
        id
    }

    fn get_capabilities(&self) -> Vec<String> {
        vec!["actions".to_owned(), "body".to_owned()]
    }

    fn get_server_information(&self) -> (String, String, String, String) {
        (
            "pi-desktop-e2e".to_owned(),
            "Pi Desktop tests".to_owned(),
            "1".to_owned(),
            "1.2".to_owned(),
        )
    }

    fn close_notification(&self, _id: u32) {}

    #[zbus(signal)]
    async fn action_invoked(
        emitter: &SignalEmitter<'_>,
        id: u32,
        action_key: &str,
    ) -> zbus::Result<()>;
}

/// The running server; it leaves the bus when dropped.
pub(crate) struct NotificationServer {
    connection: zbus::Connection,
    received: Arc<Mutex<Vec<Received>>>,
}

impl NotificationServer {
    /// Connects to the bus at `bus_address` and owns the notification service's name there.
    pub(crate) async fn start(bus_address: &str) -> NotificationServer {
        let received = Arc::new(Mutex::new(Vec::new()));
        let connection = zbus::connection::Builder::address(bus_address)
            .unwrap()
            .serve_at(
                PATH,
                Server {
                    received: Arc::clone(&received),
                },
            )
            .unwrap()
            .name(NAME)
            .unwrap()
            .build()
            .await
            .unwrap();
        NotificationServer {
            connection,
            received,
        }
    }

    /// Every notification received so far, in order.
    pub(crate) fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Polls until a notification with `summary` arrived, or panics after [`DEADLINE`].
    pub(crate) async fn wait_for_summary(&self, summary: &str) -> Received {
        let started = Instant::now();
        loop {
            if let Some(found) = self
                .received()
                .into_iter()
                .find(|received| received.summary == summary)
            {
                return found;
            }
            assert!(
                started.elapsed() < DEADLINE,
                "no notification {summary:?} after {DEADLINE:?}; received: {:?}",
                self.received()
            );
            tokio::time::sleep(POLL).await;
        }
    }

    /// Invokes notification `id`'s default action, as a click on it does.
    pub(crate) async fn click(&self, id: u32) {
        let server = self
            .connection
            .object_server()
            .interface::<_, Server>(PATH)
            .await
            .unwrap();
        Server::action_invoked(server.signal_emitter(), id, "default")
            .await
            .unwrap();
    }
}
