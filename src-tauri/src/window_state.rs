//! Remembering the main window's size, position and maximized state across restarts.
//!
//! The window is created hidden (`"visible": false` in `tauri.conf.json`); [`WindowStateKeeper::restore`] applies
//! the saved geometry, checked against the monitors present now ([`crate::window_geometry::place`]), and only
//! then shows it, so it never appears at one place and jumps to another. While the app runs the keeper follows
//! moves and resizes of the normal (not maximized, not minimized) window; it writes the file when the window is
//! asked to close and when the app exits (also on SIGTERM/SIGINT, see [`crate::termination`]); a geometry equal
//! to the one already in the file is not written again (closing the last window triggers both).
//! Failures to read or write the file are logged and never stop the app.

use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tauri::{Manager, PhysicalPosition, PhysicalSize, Runtime, WebviewWindow, WindowEvent};

use crate::window_geometry::{self, Rect, SavedGeometry, Size};
use crate::window_state_file;

/// Keeps the main window's last normal geometry and writes it on close and exit.
#[derive(Debug, Clone)]
pub(crate) struct WindowStateKeeper {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// `None` when the platform names no config folder: nothing is remembered then.
    path: Option<PathBuf>,
    last: Mutex<Option<SavedGeometry>>,
    /// What the file holds as far as this process knows (read at restore, or last written).
    stored: Mutex<Option<SavedGeometry>>,
}

impl WindowStateKeeper {
    /// A keeper for the file at `path` (see [`window_state_file`]).
    pub(crate) fn new(path: Option<PathBuf>) -> Self {
        Self {
            inner: Arc::new(Inner {
                path,
                last: Mutex::new(None),
                stored: Mutex::new(None),
            }),
        }
    }

    /// Applies the saved geometry to `window`, shows it when `show` says so (not when the app starts minimized
    /// to the tray), and starts following it. The window's minimum size is `min_logical` (logical pixels, from
    /// the window's configuration).
    pub(crate) fn restore<R: Runtime>(
        &self,
        window: &WebviewWindow<R>,
        min_logical: (f64, f64),
        show: bool,
    ) {
        let saved = self.inner.path.as_deref().and_then(|path| {
            window_state_file::load(path).unwrap_or_else(|error| {
                tracing::warn!(%error, "window state not restored");
                None
            })
        });
        if let Some(saved) = saved {
            *lock(&self.inner.stored) = Some(saved);
            match apply(window, &saved, min_logical) {
                Ok(applied) => self.remember(applied),
                Err(error) => tracing::warn!(%error, "window state not fully restored"),
            }
        }
        if show && let Err(error) = window.show() {
            tracing::warn!(%error, "cannot show the main window");
        }
        self.follow(window);
    }

    /// Records `window`'s geometry: its position and size when it is a normal window, only its maximized state
    /// otherwise (so un-maximizing after the next start returns to the size the user chose).
    pub(crate) fn observe<R: Runtime>(&self, window: &WebviewWindow<R>) {
        let maximized = window.is_maximized().unwrap_or(false);
        let minimized = window.is_minimized().unwrap_or(false);
        let mut last = self.lock();
        if let (true, Some(geometry)) = (maximized || minimized, last.as_mut()) {
            if !minimized {
                geometry.maximized = maximized;
            }
            return;
        }
        match (window.outer_position(), window.inner_size()) {
            (Ok(position), Ok(size)) if size.width > 0 && size.height > 0 => {
                *last = Some(SavedGeometry {
                    x: position.x,
                    y: position.y,
                    width: size.width,
                    height: size.height,
                    maximized,
                });
            }
            (Err(error), _) | (_, Err(error)) => {
                tracing::debug!(%error, "cannot read the window geometry");
            }
            _ => {}
        }
    }

    /// Writes the last known geometry, first refreshing it from the main window when it is still open.
    pub(crate) fn save<R: Runtime, M: Manager<R>>(&self, manager: &M) {
        if let Some(window) = manager.get_webview_window(crate::MAIN_WINDOW) {
            self.observe(&window);
        }
        let (Some(path), Some(geometry)) = (self.inner.path.as_deref(), *self.lock()) else {
            return;
        };
        let mut stored = lock(&self.inner.stored);
        if *stored == Some(geometry) {
            return;
        }
        match window_state_file::store(path, &geometry) {
            Ok(()) => {
                *stored = Some(geometry);
                tracing::debug!(?geometry, "window state saved");
            }
            Err(error) => tracing::warn!(%error, "window state not saved"),
        }
    }

    fn remember(&self, geometry: SavedGeometry) {
        *self.lock() = Some(geometry);
    }

    fn follow<R: Runtime>(&self, window: &WebviewWindow<R>) {
        let keeper = self.clone();
        let followed = window.clone();
        window.on_window_event(move |event| match event {
            WindowEvent::Moved(_) | WindowEvent::Resized(_) => keeper.observe(&followed),
            WindowEvent::CloseRequested { .. } => keeper.save(followed.app_handle()),
            _ => {}
        });
    }

    fn lock(&self) -> MutexGuard<'_, Option<SavedGeometry>> {
        lock(&self.inner.last)
    }
}

fn lock(geometry: &Mutex<Option<SavedGeometry>>) -> MutexGuard<'_, Option<SavedGeometry>> {
    // The guarded value is plain data, always whole: a panic elsewhere cannot leave it half-written.
    geometry.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Sets size, position and maximized state as [`window_geometry::place`] decides; returns what was applied.
fn apply<R: Runtime>(
    window: &WebviewWindow<R>,
    saved: &SavedGeometry,
    (min_width, min_height): (f64, f64),
) -> tauri::Result<SavedGeometry> {
    let scale = window.scale_factor()?;
    let min = Size {
        width: physical(min_width, scale),
        height: physical(min_height, scale),
    };
    let placement = window_geometry::place(saved, &monitor_work_areas(window)?, min);
    window.set_size(PhysicalSize::new(
        placement.size.width,
        placement.size.height,
    ))?;
    if let Some((x, y)) = placement.position {
        window.set_position(PhysicalPosition::new(x, y))?;
    }
    if placement.maximized {
        window.maximize()?;
    }
    tracing::info!(?saved, ?placement, "window state restored");
    let (x, y) = placement.position.unwrap_or((saved.x, saved.y));
    Ok(SavedGeometry {
        x,
        y,
        width: placement.size.width,
        height: placement.size.height,
        maximized: placement.maximized,
    })
}

/// The work areas of the monitors present now, the primary one first.
fn monitor_work_areas<R: Runtime>(window: &WebviewWindow<R>) -> tauri::Result<Vec<Rect>> {
    let primary = window.primary_monitor()?.map(|monitor| work_area(&monitor));
    let mut areas: Vec<Rect> = window.available_monitors()?.iter().map(work_area).collect();
    if let Some(primary) = primary {
        areas.retain(|area| *area != primary);
        areas.insert(0, primary);
    }
    Ok(areas)
}

/// A monitor's work area (without panels), or the whole monitor when the system reports no work area.
fn work_area(monitor: &tauri::Monitor) -> Rect {
    let area = monitor.work_area();
    if area.size.width > 0 && area.size.height > 0 {
        Rect {
            x: area.position.x,
            y: area.position.y,
            width: area.size.width,
            height: area.size.height,
        }
    } else {
        Rect {
            x: monitor.position().x,
            y: monitor.position().y,
            width: monitor.size().width,
            height: monitor.size().height,
        }
    }
}

/// A logical length in physical pixels, rounded up so the minimum is never undercut.
fn physical(logical: f64, scale: f64) -> u32 {
    let pixels = (logical * scale).ceil();
    if pixels.is_finite() && pixels > 0.0 {
        // Finite and positive here; `as` saturates anything above u32::MAX to u32::MAX.
        pixels as u32
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn geometry(x: i32) -> SavedGeometry {
        SavedGeometry {
            x,
            y: 40,
            width: 900,
            height: 700,
            maximized: false,
        }
    }

    #[test]
    fn an_unchanged_geometry_is_written_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("window-state.json");
        let app = tauri::test::mock_app();
        let keeper = WindowStateKeeper::new(Some(path.clone()));

        keeper.remember(geometry(10));
        keeper.save(&app);
        assert_eq!(window_state_file::load(&path).unwrap(), Some(geometry(10)));

        // Removed behind the keeper's back: an equal geometry is not written again ...
        std::fs::remove_file(&path).unwrap();
        keeper.save(&app);
        assert!(!path.exists());

        // ... a changed one is.
        keeper.remember(geometry(20));
        keeper.save(&app);
        assert_eq!(window_state_file::load(&path).unwrap(), Some(geometry(20)));
    }

    #[test]
    fn a_failed_write_is_tried_again() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("missing-folder").join("window-state.json");
        let app = tauri::test::mock_app();
        let keeper = WindowStateKeeper::new(Some(path.clone()));

        keeper.remember(geometry(10));
        std::fs::write(
            dir.path().join("missing-folder"),
            b"a file where the folder belongs",
        )
        .unwrap();
        keeper.save(&app);
        assert!(!path.exists());

        std::fs::remove_file(dir.path().join("missing-folder")).unwrap();
        keeper.save(&app);
        assert_eq!(window_state_file::load(&path).unwrap(), Some(geometry(10)));
    }

    #[test]
    fn logical_minimums_round_up_to_whole_physical_pixels() {
        assert_eq!(physical(640.0, 1.0), 640);
        assert_eq!(physical(480.0, 1.25), 600);
        assert_eq!(physical(641.0, 1.5), 962);
        assert_eq!(physical(f64::NAN, 1.0), 0);
        assert_eq!(physical(-5.0, 2.0), 0);
        assert_eq!(physical(1e12, 1.0), u32::MAX);
    }
}
