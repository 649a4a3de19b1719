//! A WebKit web process extension: gives the web process's freed heap memory back to the system when the app
//! asks (a user message named [`RELEASE_MEMORY`], sent after a quiet spell), and, for the benchmarks, tells the
//! page how big its JavaScript heap is.
//!
//! glibc's malloc keeps what the page's engine frees between blocks still in use, and returns only what lies at
//! the top of a heap; over a day of runs the web process stays resident at its peaks (README, "A day without a
//! restart"). WebKit calls `malloc_trim` there only under memory pressure, whose thresholds an app on Tauri
//! cannot set. Built by `build.rs` with no dependencies and no standard library: it is loaded into every web
//! process of the app's windows.

#![no_std]

use core::ffi::{CStr, c_char, c_int, c_uint, c_ulong, c_void};

/// The name of the message that asks for the memory back; the host sends the same bytes.
const RELEASE_MEMORY: &[u8] = b"pi-desktop.release-memory";
/// Set in the app's environment (the benchmarks set it), it gives the page [`JS_HEAP_FUNCTION`].
const REPORT_JS_HEAP: &CStr = c"PI_DESKTOP_REPORT_JS_HEAP";
/// A function of the page's global object: JavaScriptCore's statistics of the page's heap, as JSON.
const JS_HEAP_FUNCTION: &CStr = c"__piDesktopJsHeap";
/// JavaScriptCore's statistics call: exported, but not part of its public headers, so looked up when asked for
/// (a WebKit without it loads the extension all the same, and the page gets no function).
const JS_HEAP_STATISTICS: &CStr = c"JSGetMemoryUsageStatistics";
/// GLib's `G_TYPE_STRING`, a fundamental type: 16 shifted by `G_TYPE_FUNDAMENTAL_SHIFT`.
const G_TYPE_STRING: usize = 16 << 2;

#[link(name = "gobject-2.0")]
unsafe extern "C" {
    fn g_signal_connect_data(
        instance: *mut c_void,
        signal: *const c_char,
        handler: *const c_void,
        data: *mut c_void,
        destroy: *const c_void,
        flags: c_int,
    ) -> c_ulong;
    fn g_object_unref(object: *mut c_void);
}

#[link(name = "glib-2.0")]
unsafe extern "C" {
    fn g_malloc(size: usize) -> *mut c_void;
}

#[link(name = "webkit2gtk-4.1")]
unsafe extern "C" {
    fn webkit_user_message_get_name(message: *mut c_void) -> *const c_char;
    fn webkit_script_world_get_default() -> *mut c_void;
    fn webkit_frame_is_main_frame(frame: *mut c_void) -> c_int;
    fn webkit_frame_get_js_context_for_script_world(
        frame: *mut c_void,
        world: *mut c_void,
    ) -> *mut c_void;
    fn webkit_frame_get_javascript_global_context(frame: *mut c_void) -> *mut c_void;
}

#[link(name = "javascriptcoregtk-4.1")]
unsafe extern "C" {
    fn jsc_value_new_functionv(
        context: *mut c_void,
        name: *const c_char,
        callback: *const c_void,
        data: *mut c_void,
        destroy: *const c_void,
        return_type: usize,
        parameters: c_uint,
        parameter_types: *const usize,
    ) -> *mut c_void;
    fn jsc_context_set_value(context: *mut c_void, name: *const c_char, value: *mut c_void);
    fn JSValueCreateJSONString(
        context: *mut c_void,
        value: *mut c_void,
        indent: c_uint,
        exception: *mut *mut c_void,
    ) -> *mut c_void;
    fn JSStringGetMaximumUTF8CStringSize(string: *mut c_void) -> usize;
    fn JSStringGetUTF8CString(string: *mut c_void, buffer: *mut c_char, size: usize) -> usize;
    fn JSStringRelease(string: *mut c_void);
}

#[link(name = "c")]
unsafe extern "C" {
    fn malloc_trim(pad: usize) -> c_int;
    fn getenv(name: *const c_char) -> *const c_char;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

/// `JSGetMemoryUsageStatistics(JSContextRef) -> JSObjectRef`.
type HeapStatistics = unsafe extern "C" fn(*mut c_void) -> *mut c_void;

/// `WebKitWebExtension::user-message-received`: true when the message was ours (no reply is expected).
unsafe extern "C" fn on_user_message(
    _extension: *mut c_void,
    message: *mut c_void,
    _data: *mut c_void,
) -> c_int {
    // SAFETY: WebKit passes a live WebKitUserMessage; its name is a NUL-terminated string it owns.
    let name = unsafe { CStr::from_ptr(webkit_user_message_get_name(message)) };
    if name.to_bytes() != RELEASE_MEMORY {
        return 0;
    }
    // SAFETY: malloc_trim takes no pointers; glibc takes each arena's lock in turn.
    unsafe { malloc_trim(0) };
    1
}

/// `WebKitScriptWorld::window-object-cleared`: gives the main frame's new global object [`JS_HEAP_FUNCTION`].
unsafe extern "C" fn on_window_object_cleared(
    world: *mut c_void,
    _page: *mut c_void,
    frame: *mut c_void,
    statistics: *mut c_void,
) {
    // SAFETY: WebKit passes the live world and frame; the context and the function are ours to release.
    unsafe {
        if webkit_frame_is_main_frame(frame) == 0 {
            return;
        }
        let global = webkit_frame_get_javascript_global_context(frame);
        let context = webkit_frame_get_js_context_for_script_world(frame, world);
        if global.is_null() || context.is_null() {
            return;
        }
        // The statistics call and the frame's global context travel in one allocation that lives as long as
        // the function (freed by GLib when JavaScriptCore collects it).
        let data = g_malloc(2 * size_of::<*mut c_void>()).cast::<*mut c_void>();
        *data = statistics;
        *data.add(1) = global;
        let function = jsc_value_new_functionv(
            context,
            JS_HEAP_FUNCTION.as_ptr(),
            js_heap as *const c_void,
            data.cast(),
            g_free_pointer(),
            G_TYPE_STRING,
            0,
            core::ptr::null(),
        );
        jsc_context_set_value(context, JS_HEAP_FUNCTION.as_ptr(), function);
        g_object_unref(function);
        g_object_unref(context);
    }
}

/// GLib's `g_free`, as a destroy notification.
fn g_free_pointer() -> *const c_void {
    #[link(name = "glib-2.0")]
    unsafe extern "C" {
        fn g_free(memory: *mut c_void);
    }
    g_free as *const c_void
}

/// The page's [`JS_HEAP_FUNCTION`]: the statistics as a JSON string (handed to JavaScriptCore, which frees it).
unsafe extern "C" fn js_heap(data: *mut c_void) -> *mut c_char {
    // SAFETY: `data` is the pair `on_window_object_cleared` stored: the statistics call (looked up by its
    // exported name, with the signature JavaScriptCore declares) and the global context the function lives in.
    unsafe {
        let data = data.cast::<*mut c_void>();
        let statistics = core::mem::transmute::<*mut c_void, HeapStatistics>(*data);
        let global = *data.add(1);
        let json = JSValueCreateJSONString(global, statistics(global), 0, core::ptr::null_mut());
        if json.is_null() {
            return core::ptr::null_mut();
        }
        let size = JSStringGetMaximumUTF8CStringSize(json);
        let text = g_malloc(size).cast::<c_char>();
        JSStringGetUTF8CString(json, text, size);
        JSStringRelease(json);
        text
    }
}

/// WebKit's entry point, called once in each web process before any page is loaded.
///
/// # Safety
/// `extension` is the process's WebKitWebExtension, as WebKit passes it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn webkit_web_extension_initialize(extension: *mut c_void) {
    // SAFETY: each handler has its signal's signature; the world is WebKit's default one, alive for the process.
    unsafe {
        g_signal_connect_data(
            extension,
            c"user-message-received".as_ptr(),
            on_user_message as *const c_void,
            core::ptr::null_mut(),
            core::ptr::null(),
            0,
        );
        if getenv(REPORT_JS_HEAP.as_ptr()).is_null() {
            return;
        }
        let statistics = dlsym(core::ptr::null_mut(), JS_HEAP_STATISTICS.as_ptr());
        if statistics.is_null() {
            return;
        }
        g_signal_connect_data(
            webkit_script_world_get_default(),
            c"window-object-cleared".as_ptr(),
            on_window_object_cleared as *const c_void,
            statistics,
            core::ptr::null(),
            0,
        );
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}
