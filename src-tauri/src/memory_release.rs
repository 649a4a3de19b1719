//! Gives the system back the memory the allocator keeps after a burst of work.
//!
//! glibc's malloc keeps freed memory in its arenas and returns only what lies at the top of a heap, so after a
//! burst (a long conversation read from the store, copied for the window and serialised; a run's envelopes) the
//! app process stays resident at the burst's peak: opening a conversation of 10,000 messages left 37 MiB freed
//! but resident (README, "A long conversation"). `malloc_trim(0)` hands every arena's free pages back. It walks
//! and locks the arenas one by one, so it runs once the app is quiet: [`QUIET`] after the last command or
//! envelope, on a blocking thread, once per quiet spell. The window's web process keeps what its engine frees the
//! same way; the app asks it to give that back at the same moment (see `web_process_memory`).

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use tokio::sync::Notify;

/// How long after the last command or envelope the memory is given back.
const QUIET: Duration = Duration::from_secs(1);

/// What else gives memory back after a quiet spell (the window's web process), set once the app has a window.
type AlsoRelease = Arc<OnceLock<Box<dyn Fn() + Send + Sync>>>;

/// Notes bursts of work; the memory is given back after each quiet spell that follows one.
#[derive(Clone)]
pub(crate) struct MemoryRelease {
    activity: Arc<Notify>,
    also: AlsoRelease,
}

impl MemoryRelease {
    /// Starts the task that waits for quiet spells (on Tauri's async runtime).
    pub(crate) fn start() -> Self {
        let activity = Arc::new(Notify::new());
        let also = AlsoRelease::default();
        let also_then = Arc::clone(&also);
        tauri::async_runtime::spawn(release_after_quiet_spells(
            Arc::clone(&activity),
            QUIET,
            move || {
                if let Some(also) = also_then.get() {
                    also();
                }
                async {
                    match tauri::async_runtime::spawn_blocking(release_free_memory).await {
                        Ok(released) => {
                            tracing::debug!(released, "gave freed memory back after a quiet spell");
                        }
                        Err(error) => tracing::warn!(%error, "giving freed memory back failed"),
                    }
                }
            },
        ));
        Self { activity, also }
    }

    /// Has `release` run after each quiet spell too (the first call counts; later ones are ignored).
    pub(crate) fn also(&self, release: impl Fn() + Send + Sync + 'static) {
        let _ = self.also.set(Box::new(release));
    }

    /// Something happened (a command, an envelope): the next quiet spell gives memory back. Cheap; never blocks.
    pub(crate) fn note_activity(&self) {
        self.activity.notify_one();
    }
}

/// Calls `release` once after each spell of `quiet` that follows activity; never while activity goes on.
async fn release_after_quiet_spells<F, R>(activity: Arc<Notify>, quiet: Duration, release: F)
where
    F: Fn() -> R,
    R: Future<Output = ()>,
{
    loop {
        activity.notified().await;
        loop {
            tokio::select! {
                () = activity.notified() => {}
                () = tokio::time::sleep(quiet) => break,
            }
        }
        release().await;
    }
}

/// What the top of each of glibc's heaps may keep free before `free` gives it back: glibc's default (128 KiB).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
const HEAP_TOP_KEPT_BYTES: libc::c_int = 128 * 1024;

/// Has `free` give back the free top of every heap beyond [`HEAP_TOP_KEPT_BYTES`], for the app's lifetime.
///
/// `malloc_trim` returns the free pages inside every heap but the free top of the main heap only; the tops of the
/// heaps glibc gives other threads (the async runtime's, WebKit's) go back in `free` alone, once they exceed a
/// threshold glibc raises to twice the largest block it had mapped on its own and freed (up to 64 MiB). Over a
/// day of runs those tops kept the app process growing while what it held barely did (README, "A day without a
/// restart"). Setting the threshold keeps it, and the size above which blocks are mapped on their own, at glibc's
/// start values. Called first thing, before the app's threads start.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(
    unsafe_code,
    reason = "mallopt is glibc's only way to stop the trim threshold from growing"
)]
pub(crate) fn keep_heap_tops_small() {
    // SAFETY: mallopt takes two integers and has no preconditions; glibc takes the main arena's lock for it.
    unsafe { libc::mallopt(libc::M_TRIM_THRESHOLD, HEAP_TOP_KEPT_BYTES) };
}

/// Other allocators keep their own thresholds.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub(crate) fn keep_heap_tops_small() {}

/// Asks glibc to return the free pages of every arena; true when it gave something back.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
#[allow(
    unsafe_code,
    reason = "malloc_trim is glibc's only way to return freed memory that is not at the top of a heap"
)]
fn release_free_memory() -> bool {
    // SAFETY: malloc_trim takes no pointers and has no preconditions; glibc serialises it with every other
    // allocator call (it takes each arena's lock in turn).
    unsafe { libc::malloc_trim(0) == 1 }
}

/// Other allocators (musl, macOS, Windows) return memory themselves or have no such call.
#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn release_free_memory() -> bool {
    false
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    /// Runs the loop with a counting release; returns the activity to notify and the count.
    fn counting() -> (Arc<Notify>, Arc<AtomicUsize>) {
        let activity = Arc::new(Notify::new());
        let released = Arc::new(AtomicUsize::new(0));
        let count = Arc::clone(&released);
        tokio::spawn(release_after_quiet_spells(
            Arc::clone(&activity),
            QUIET,
            move || {
                count.fetch_add(1, Ordering::SeqCst);
                std::future::ready(())
            },
        ));
        (activity, released)
    }

    #[tokio::test(start_paused = true)]
    async fn memory_goes_back_once_after_a_quiet_spell_and_never_during_activity() {
        let (activity, released) = counting();

        for _ in 0..5 {
            activity.notify_one();
            tokio::time::sleep(QUIET / 2).await;
        }
        assert_eq!(released.load(Ordering::SeqCst), 0, "activity went on");
        tokio::time::sleep(QUIET * 2).await;
        assert_eq!(released.load(Ordering::SeqCst), 1);
        tokio::time::sleep(QUIET * 10).await;
        assert_eq!(released.load(Ordering::SeqCst), 1, "nothing happened since");

        activity.notify_one();
        tokio::time::sleep(QUIET * 2).await;
        assert_eq!(released.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn what_else_gives_memory_back_runs_after_the_quiet_spell_too() {
        let release = MemoryRelease::start();
        let (sender, receiver) = std::sync::mpsc::channel();
        release.also(move || {
            let _ = sender.send(());
        });

        release.note_activity();

        receiver
            .recv_timeout(QUIET * 30)
            .expect("the web process was never asked");
    }

    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    #[test]
    fn freed_memory_below_a_live_allocation_goes_back() {
        // 64 MiB in small blocks (each under glibc's mmap threshold, so they come from a heap), then all freed but
        // the last: the free memory lies below a live block, where free() alone never returns it.
        let mut blocks: Vec<Box<[u8; 4096]>> =
            (0..16_384).map(|_| Box::new([1_u8; 4096])).collect();
        let last = blocks.pop();
        drop(std::hint::black_box(blocks));

        assert!(release_free_memory(), "nothing was given back");
        drop(last);
    }
}
