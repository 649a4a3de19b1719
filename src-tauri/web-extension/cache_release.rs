//! When the web process empties WebKit's caches: the rule, apart from the calls that do it (`memory.rs`), so the
//! app's unit tests can hold it (`web_process_memory.rs` includes this file).
//!
//! Emptying them is WebKit's own response to memory pressure (a full collection, compiled JavaScript thrown away,
//! its caches emptied): it gives back what a day of runs leaves in the web process, and stalls the page's main
//! thread for some 40 ms, after which the next answer runs colder code. So the web process empties them only
//! after a quiet spell, and while the window is in front at most once every [`EMPTY_EVERY_MS`]; behind other
//! windows, hidden or minimised, nobody sees the stall, and it empties them as soon as there is something to give
//! back.

/// How long WebKit's caches may grow while the window is in front before a quiet spell empties them.
pub(crate) const EMPTY_EVERY_MS: u64 = 60_000;

/// What the app tells a window's page, one message each.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Moment {
    /// A quiet spell after work, the window in front.
    QuietInFront,
    /// A quiet spell after work, the window hidden, minimised or without focus.
    QuietBehind,
    /// The window has just gone behind another, been hidden or minimised.
    WentBehind,
}

impl Moment {
    /// The message's name; the app sends the same bytes.
    pub(crate) const fn message(self) -> &'static str {
        match self {
            Moment::QuietInFront => "pi-desktop.quiet-in-front",
            Moment::QuietBehind => "pi-desktop.quiet-behind",
            Moment::WentBehind => "pi-desktop.went-behind",
        }
    }

    /// The moment a message names, if it is one of ours.
    pub(crate) fn of_message(name: &[u8]) -> Option<Moment> {
        [
            Moment::QuietInFront,
            Moment::QuietBehind,
            Moment::WentBehind,
        ]
        .into_iter()
        .find(|moment| moment.message().as_bytes() == name)
    }
}

/// When the caches were last emptied, and whether the window has worked since (one per web process; each window
/// has a web process of its own).
pub(crate) struct CacheRelease {
    emptied_at_ms: u64,
    worked_since: bool,
}

impl CacheRelease {
    /// A web process started at `now_ms` (its caches are as empty as they get).
    pub(crate) const fn new(now_ms: u64) -> Self {
        CacheRelease {
            emptied_at_ms: now_ms,
            worked_since: false,
        }
    }

    /// Whether to empty the caches now; when it says so, the caller empties them.
    pub(crate) fn empty_now(&mut self, moment: Moment, now_ms: u64) -> bool {
        if moment != Moment::WentBehind {
            self.worked_since = true;
        }
        let empty = match moment {
            Moment::QuietInFront => now_ms.saturating_sub(self.emptied_at_ms) >= EMPTY_EVERY_MS,
            Moment::QuietBehind | Moment::WentBehind => self.worked_since,
        };
        if empty {
            self.emptied_at_ms = now_ms;
            self.worked_since = false;
        }
        empty
    }
}
