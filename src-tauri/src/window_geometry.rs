//! Where the main window reopens: the geometry saved at the last exit, checked against the monitors
//! present now. Pure logic in physical pixels, without Tauri types, so every rule is unit-tested.
//!
//! The contract: a restored window is never smaller than the window's minimum size, never larger than the
//! desktop the monitors make together (unless the minimum size itself is larger), and never out of reach. A saved
//! position is kept only when a usable part of the window (at least [`MIN_VISIBLE`] pixels each way, or the whole
//! window if it is smaller) lies on one monitor and its top edge (the title bar) is at most [`TOP_TOLERANCE`]
//! pixels above that monitor; otherwise (monitor unplugged, resolution lowered) the window is centred on the
//! primary monitor and shrunk to fit it.

use serde::{Deserialize, Serialize};

/// How much of the window must stay on a monitor, each way, for a saved position to be kept.
pub(crate) const MIN_VISIBLE: u32 = 96;
/// How far the window's top edge may sit above a monitor (client-side decorations put shadows there).
pub(crate) const TOP_TOLERANCE: u32 = 64;

/// The main window's geometry as saved on exit: the outer position and inner size of the normal (not
/// maximized, not minimized) window, and whether it was maximized.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SavedGeometry {
    pub(crate) x: i32,
    pub(crate) y: i32,
    pub(crate) width: u32,
    pub(crate) height: u32,
    pub(crate) maximized: bool,
}

/// A rectangle in physical pixels: a monitor's work area, or a window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Rect {
    pub(crate) x: i32,
    pub(crate) y: i32,
    pub(crate) width: u32,
    pub(crate) height: u32,
}

impl Rect {
    fn right(&self) -> i64 {
        i64::from(self.x) + i64::from(self.width)
    }

    fn bottom(&self) -> i64 {
        i64::from(self.y) + i64::from(self.height)
    }

    /// The width and height of the part of `self` that lies on `other` (zero when they do not meet).
    fn overlap(&self, other: &Rect) -> (u64, u64) {
        let width = self.right().min(other.right()) - i64::from(self.x.max(other.x));
        let height = self.bottom().min(other.bottom()) - i64::from(self.y.max(other.y));
        (
            u64::try_from(width).unwrap_or(0),
            u64::try_from(height).unwrap_or(0),
        )
    }
}

/// A size in physical pixels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Size {
    pub(crate) width: u32,
    pub(crate) height: u32,
}

/// What to apply to the window before it is shown.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Placement {
    /// The inner size.
    pub(crate) size: Size,
    /// The outer position; `None` leaves the placement to the window system (no monitor is known).
    pub(crate) position: Option<(i32, i32)>,
    /// Maximize after size and position are set (so un-maximizing returns to them).
    pub(crate) maximized: bool,
}

/// Where and how large the window reopens. `monitors` are the work areas of the monitors present now, the
/// primary one first; `min` is the window's minimum inner size.
pub(crate) fn place(saved: &SavedGeometry, monitors: &[Rect], min: Size) -> Placement {
    let wanted = Size {
        width: saved.width.max(min.width),
        height: saved.height.max(min.height),
    };
    let Some(primary) = monitors.first() else {
        return Placement {
            size: wanted,
            position: None,
            maximized: saved.maximized,
        };
    };
    let window = Rect {
        x: saved.x,
        y: saved.y,
        width: wanted.width,
        height: wanted.height,
    };
    if monitors
        .iter()
        .any(|monitor| is_reachable(&window, monitor))
    {
        // A window may span monitors on purpose: it only has to fit in the desktop they make together.
        Placement {
            size: fit(wanted, &bounds(monitors), min),
            position: Some((saved.x, saved.y)),
            maximized: saved.maximized,
        }
    } else {
        let size = fit(wanted, primary, min);
        Placement {
            size,
            position: Some(centre(size, primary)),
            maximized: saved.maximized,
        }
    }
}

/// Whether enough of `window` lies on `monitor` to grab and move it.
fn is_reachable(window: &Rect, monitor: &Rect) -> bool {
    let (visible_width, visible_height) = window.overlap(monitor);
    let needed_width = u64::from(MIN_VISIBLE.min(window.width));
    let needed_height = u64::from(MIN_VISIBLE.min(window.height));
    let title_bar_below_top =
        i64::from(window.y) >= i64::from(monitor.y) - i64::from(TOP_TOLERANCE);
    visible_width >= needed_width && visible_height >= needed_height && title_bar_below_top
}

/// The smallest rectangle around all `monitors` (not empty).
fn bounds(monitors: &[Rect]) -> Rect {
    let left = monitors
        .iter()
        .map(|monitor| i64::from(monitor.x))
        .min()
        .unwrap_or(0);
    let top = monitors
        .iter()
        .map(|monitor| i64::from(monitor.y))
        .min()
        .unwrap_or(0);
    let right = monitors.iter().map(Rect::right).max().unwrap_or(0);
    let bottom = monitors.iter().map(Rect::bottom).max().unwrap_or(0);
    Rect {
        x: saturate(left),
        y: saturate(top),
        width: u32::try_from(right - left).unwrap_or(u32::MAX),
        height: u32::try_from(bottom - top).unwrap_or(u32::MAX),
    }
}

/// `wanted`, shrunk to `area`, but never below `min`.
fn fit(wanted: Size, area: &Rect, min: Size) -> Size {
    Size {
        width: wanted.width.min(area.width).max(min.width),
        height: wanted.height.min(area.height).max(min.height),
    }
}

/// The top-left corner that centres `size` on `monitor`, but keeps the top-left corner on it when the window
/// is larger than the monitor.
fn centre(size: Size, monitor: &Rect) -> (i32, i32) {
    let offset = |monitor_length: u32, window_length: u32| -> i64 {
        (i64::from(monitor_length) - i64::from(window_length)).max(0) / 2
    };
    let x = i64::from(monitor.x) + offset(monitor.width, size.width);
    let y = i64::from(monitor.y) + offset(monitor.height, size.height);
    (saturate(x), saturate(y))
}

fn saturate(value: i64) -> i32 {
    i32::try_from(value).unwrap_or(if value < 0 { i32::MIN } else { i32::MAX })
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    const MIN: Size = Size {
        width: 640,
        height: 480,
    };
    const LAPTOP: Rect = Rect {
        x: 0,
        y: 0,
        width: 1280,
        height: 800,
    };
    /// A second monitor right of the laptop.
    const EXTERNAL: Rect = Rect {
        x: 1280,
        y: 0,
        width: 1920,
        height: 1080,
    };

    fn saved(x: i32, y: i32, width: u32, height: u32) -> SavedGeometry {
        SavedGeometry {
            x,
            y,
            width,
            height,
            maximized: false,
        }
    }

    #[test]
    fn a_window_fully_on_a_monitor_reopens_exactly_where_it_was() {
        let placement = place(&saved(100, 50, 900, 600), &[LAPTOP], MIN);

        assert_eq!(
            placement,
            Placement {
                size: Size {
                    width: 900,
                    height: 600
                },
                position: Some((100, 50)),
                maximized: false,
            }
        );
    }

    #[test]
    fn a_window_on_the_second_monitor_stays_there_while_it_is_plugged_in() {
        let placement = place(&saved(1500, 100, 1200, 900), &[LAPTOP, EXTERNAL], MIN);

        assert_eq!(placement.position, Some((1500, 100)));
        assert_eq!(
            placement.size,
            Size {
                width: 1200,
                height: 900
            }
        );
    }

    #[test]
    fn a_window_spanning_two_monitors_keeps_its_size() {
        let placement = place(&saved(600, 100, 2400, 900), &[LAPTOP, EXTERNAL], MIN);

        assert_eq!(placement.position, Some((600, 100)));
        assert_eq!(
            placement.size,
            Size {
                width: 2400,
                height: 900
            }
        );
    }

    #[test]
    fn a_window_larger_than_the_screen_after_a_resolution_change_shrinks_to_it() {
        let placement = place(&saved(0, 0, 1920, 1080), &[LAPTOP], MIN);

        assert_eq!(placement.position, Some((0, 0)));
        assert_eq!(
            placement.size,
            Size {
                width: 1280,
                height: 800
            }
        );
    }

    #[test]
    fn a_window_on_an_unplugged_monitor_is_centred_on_the_primary_one_and_fits_it() {
        let placement = place(&saved(1500, 100, 1200, 900), &[LAPTOP], MIN);

        assert_eq!(
            placement.size,
            Size {
                width: 1200,
                height: 800
            },
            "taller than the laptop's screen: shrunk to it"
        );
        assert_eq!(placement.position, Some((40, 0)));
    }

    #[test]
    fn a_window_with_only_a_sliver_on_screen_is_brought_back() {
        // 40 px of its left edge remain on the laptop: too little to grab.
        let placement = place(&saved(1240, 100, 800, 600), &[LAPTOP], MIN);

        assert_eq!(placement.position, Some((240, 100)));
    }

    #[test]
    fn a_window_mostly_on_screen_keeps_its_position_even_if_partly_off() {
        let placement = place(&saved(900, 300, 800, 600), &[LAPTOP], MIN);

        assert_eq!(placement.position, Some((900, 300)));
    }

    #[test]
    fn a_title_bar_above_the_top_of_every_monitor_is_brought_back() {
        let placement = place(&saved(100, -300, 800, 600), &[LAPTOP], MIN);

        assert_eq!(placement.position, Some((240, 100)));
    }

    #[test]
    fn a_title_bar_slightly_above_the_top_counts_as_reachable() {
        let placement = place(&saved(100, -30, 800, 600), &[LAPTOP], MIN);

        assert_eq!(placement.position, Some((100, -30)));
    }

    #[test]
    fn a_size_below_the_minimum_grows_to_the_minimum() {
        let placement = place(&saved(10, 10, 200, 100), &[LAPTOP], MIN);

        assert_eq!(placement.size, MIN);
        assert_eq!(placement.position, Some((10, 10)));
    }

    #[test]
    fn a_zero_size_from_a_damaged_file_becomes_the_minimum() {
        let placement = place(&saved(0, 0, 0, 0), &[LAPTOP], MIN);

        assert_eq!(placement.size, MIN);
    }

    #[test]
    fn the_minimum_wins_over_a_monitor_smaller_than_it() {
        let tiny = Rect {
            x: 0,
            y: 0,
            width: 600,
            height: 400,
        };
        let placement = place(&saved(0, 0, 1000, 700), &[tiny], MIN);

        assert_eq!(placement.size, MIN);
        assert_eq!(placement.position, Some((0, 0)));
    }

    #[test]
    fn extreme_coordinates_do_not_overflow_and_are_brought_back() {
        let placement = place(
            &saved(i32::MAX, i32::MIN, u32::MAX, u32::MAX),
            &[LAPTOP],
            MIN,
        );

        assert_eq!(
            placement,
            Placement {
                size: Size {
                    width: 1280,
                    height: 800
                },
                position: Some((0, 0)),
                maximized: false,
            }
        );
    }

    #[test]
    fn a_work_area_offset_by_a_panel_is_respected_when_centring() {
        let below_a_panel = Rect {
            x: 0,
            y: 32,
            width: 1280,
            height: 768,
        };
        let placement = place(&saved(5000, 5000, 800, 600), &[below_a_panel], MIN);

        assert_eq!(placement.position, Some((240, 116)));
    }

    #[test]
    fn maximized_is_remembered_with_the_normal_geometry_beneath_it() {
        let geometry = SavedGeometry {
            maximized: true,
            ..saved(100, 50, 900, 600)
        };

        let placement = place(&geometry, &[LAPTOP], MIN);

        assert!(placement.maximized);
        assert_eq!(placement.position, Some((100, 50)));
        assert_eq!(
            placement.size,
            Size {
                width: 900,
                height: 600
            }
        );
    }

    #[test]
    fn without_any_known_monitor_the_size_is_kept_and_the_position_left_to_the_system() {
        let placement = place(&saved(100, 50, 300, 900), &[], MIN);

        assert_eq!(
            placement,
            Placement {
                size: Size {
                    width: 640,
                    height: 900
                },
                position: None,
                maximized: false,
            }
        );
    }

    #[test]
    fn the_saved_file_format_is_camel_case_json() {
        let geometry = SavedGeometry {
            maximized: true,
            ..saved(-10, 20, 900, 600)
        };

        let json = serde_json::to_value(geometry).unwrap();

        assert_eq!(
            json,
            serde_json::json!({"x": -10, "y": 20, "width": 900, "height": 600, "maximized": true})
        );
        assert_eq!(
            serde_json::from_value::<SavedGeometry>(json).unwrap(),
            geometry
        );
    }
}
