//! The switch for WebKitGTK's blank or black window on some GPUs, drivers and virtual machines:
//! `PI_DESKTOP_SAFE_RENDERING=1` starts the app with the workarounds WebKitGTK documents — no DMA-BUF renderer
//! (`WEBKIT_DISABLE_DMABUF_RENDERER=1`, WebKitGTK 2.42 and later) and no accelerated compositing
//! (`WEBKIT_DISABLE_COMPOSITING_MODE=1`, older versions). WebKit reads them when it starts and its processes
//! inherit them, so they are set first thing in `main`, before any thread or library reads the environment.
//!
//! On a machine without a GPU render node (`/dev/dri/renderD*`: a virtual machine, a container) WebKit
//! composites with OpenGL on the CPU (Mesa's llvmpipe), which costs some 27 ms a frame and stalls the first
//! second of a fast answer; there the app turns compositing off by itself (README, "Drawing without a GPU").
//! A value set by hand for either variable always stays.

use std::ffi::OsString;

/// The environment variable that turns the workarounds on.
pub const SWITCH: &str = "PI_DESKTOP_SAFE_RENDERING";

/// The workaround a machine without a GPU render node gets by itself.
const NO_COMPOSITING: (&str, &str) = ("WEBKIT_DISABLE_COMPOSITING_MODE", "1");

/// The variables the workarounds set.
const WORKAROUNDS: [(&str, &str); 2] = [("WEBKIT_DISABLE_DMABUF_RENDERER", "1"), NO_COMPOSITING];

/// Where the kernel puts GPU render nodes.
const RENDER_NODES: &str = "/dev/dri";

/// The variables to add before WebKit starts: both workarounds when the switch is on, no compositing when the
/// machine has no GPU render node, and only those not set already (a value the user chose stays; once they are
/// set, nothing more is added: a process started by the app inherits them and keeps them).
pub fn variables_to_add(
    var: impl Fn(&str) -> Option<OsString>,
    has_render_node: bool,
) -> Vec<(&'static str, &'static str)> {
    let on = var(SWITCH).is_some_and(|value| value == "1" || value.eq_ignore_ascii_case("true"));
    WORKAROUNDS
        .into_iter()
        .filter(|workaround| on || (!has_render_node && *workaround == NO_COMPOSITING))
        .filter(|(name, _)| var(name).is_none())
        .collect()
}

/// Whether the machine has a GPU render node WebKit could composite with.
fn has_render_node() -> bool {
    std::fs::read_dir(RENDER_NODES).is_ok_and(|entries| {
        entries
            .flatten()
            .any(|entry| entry.file_name().to_string_lossy().starts_with("renderD"))
    })
}

/// Sets the workarounds the switch or the machine asks for in this process's environment.
///
/// Must be called at the very start of `main`, while the process has one thread: nothing may read or write the
/// environment at the same time.
#[allow(
    unsafe_code,
    reason = "WebKit takes these switches from the environment only; setting them in-process saves starting the \
              program a second time (some 60 ms of every start)"
)]
pub fn apply_workarounds() {
    for (name, value) in variables_to_add(|name| std::env::var_os(name), has_render_node()) {
        // SAFETY: called first thing in `main`, before the app starts any thread (the contract above), so
        // nothing reads the environment while it changes.
        unsafe { std::env::set_var(name, value) };
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use super::*;

    fn adds_on(env: &[(&str, &str)], has_render_node: bool) -> Vec<(&'static str, &'static str)> {
        let env: HashMap<String, OsString> = env
            .iter()
            .map(|(name, value)| ((*name).to_owned(), OsString::from(value)))
            .collect();
        variables_to_add(|name| env.get(name).cloned(), has_render_node)
    }

    fn adds(env: &[(&str, &str)]) -> Vec<(&'static str, &'static str)> {
        adds_on(env, true)
    }

    #[test]
    fn the_switch_adds_both_workarounds_once() {
        assert_eq!(adds(&[]), Vec::new());
        assert_eq!(adds(&[(SWITCH, "0")]), Vec::new());
        assert_eq!(adds(&[(SWITCH, "1")]), WORKAROUNDS.to_vec());
        assert_eq!(adds(&[(SWITCH, "true")]), WORKAROUNDS.to_vec());
        let already_set: Vec<(&str, &str)> =
            [(SWITCH, "1")].into_iter().chain(WORKAROUNDS).collect();
        assert_eq!(
            adds(&already_set),
            Vec::new(),
            "once set, nothing more is added"
        );
    }

    #[test]
    fn a_value_the_user_set_stays() {
        assert_eq!(
            adds(&[(SWITCH, "1"), ("WEBKIT_DISABLE_COMPOSITING_MODE", "0")]),
            vec![("WEBKIT_DISABLE_DMABUF_RENDERER", "1")]
        );
        assert_eq!(
            adds_on(&[("WEBKIT_DISABLE_COMPOSITING_MODE", "0")], false),
            Vec::new()
        );
    }

    #[test]
    fn without_a_render_node_compositing_is_turned_off_once() {
        let off = vec![("WEBKIT_DISABLE_COMPOSITING_MODE", "1")];
        assert_eq!(adds_on(&[], false), off);
        assert_eq!(adds_on(&[(SWITCH, "0")], false), off);
        assert_eq!(adds_on(&[(SWITCH, "1")], false), WORKAROUNDS.to_vec());
        assert_eq!(
            adds_on(&off, false),
            Vec::new(),
            "once set, nothing more is added"
        );
    }
}
