//! A WebKit web process extension: gives the web process's freed memory back to the system when the app tells
//! its window's page that the app is quiet or the window has gone behind (one user message each, see
//! [`cache_release::Moment`]), and, for the benchmarks, tells the page how big its JavaScript heap is and how
//! often WebKit's caches were emptied.
//!
//! glibc's malloc keeps what the page's engine frees between blocks still in use, and returns only what lies at
//! the top of a heap; over a day of runs the web process stays resident at its peaks (README, "A day without a
//! restart"). WebKit calls `malloc_trim` there, and empties its caches, only under memory pressure, whose
//! thresholds an app on Tauri cannot set. So the extension trims at every message and empties WebKit's caches
//! when [`cache_release`] says so, with WebKit's own memory-pressure response (exported by JavaScriptCore's
//! library though not in its headers, so looked up by name: a WebKit without it only gets the trim). Built by
//! `build.rs` with no dependencies and no standard library: it is loaded into every web process of the app's
//! windows, whose main thread is the only one that calls it.

#![no_std]

mod cache_release;

use core::cell::UnsafeCell;
use core::ffi::{CStr, c_char, c_int, c_long, c_uint, c_ulong, c_void};

use cache_release::{CacheRelease, Moment};

/// Set in the app's environment (the benchmarks set it), it gives the page [`JS_HEAP_FUNCTION`] and
/// [`CACHES_FUNCTION`].
const REPORT_JS_HEAP: &CStr = c"PI_DESKTOP_REPORT_JS_HEAP";
/// A function of the page's global object: JavaScriptCore's statistics of the page's heap, as JSON.
const JS_HEAP_FUNCTION: &CStr = c"__piDesktopJsHeap";
/// A function of the page's global object: how many of the app's messages this process received, how often it
/// emptied WebKit's caches and how long that took (milliseconds, all told), as JSON:
/// `{"told":40,"emptied":3,"ms":121}`.
const CACHES_FUNCTION: &CStr = c"__piDesktopCachesEmptied";
/// `WTF::MemoryPressureHandler::singleton()`.
const PRESSURE_HANDLER: &CStr = c"_ZN3WTF21MemoryPressureHandler9singletonEv";
/// `WTF::MemoryPressureHandler::releaseMemory(Critical, Synchronous)`: both arguments are `enum class : bool`.
const RELEASE_MEMORY: &CStr =
    c"_ZN3WTF21MemoryPressureHandler13releaseMemoryENS_8CriticalENS_11SynchronousE";
/// `CLOCK_MONOTONIC` of Linux's `clock_gettime`.
const CLOCK_MONOTONIC: c_int = 1;
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
    fn webkit_user_message_new(name: *const c_char, parameters: *mut c_void) -> *mut c_void;
    fn webkit_user_message_send_reply(message: *mut c_void, reply: *mut c_void);
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
    fn clock_gettime(clock: c_int, time: *mut Timespec) -> c_int;
    fn getenv(name: *const c_char) -> *const c_char;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
}

/// `JSGetMemoryUsageStatistics(JSContextRef) -> JSObjectRef`.
type HeapStatistics = unsafe extern "C" fn(*mut c_void) -> *mut c_void;
/// `MemoryPressureHandler::singleton() -> MemoryPressureHandler&`.
type PressureHandler = unsafe extern "C" fn() -> *mut c_void;
/// `MemoryPressureHandler::releaseMemory(this, Critical, Synchronous)`.
type ReleaseMemory = unsafe extern "C" fn(*mut c_void, bool, bool);

#[repr(C)]
struct Timespec {
    seconds: c_long,
    nanoseconds: c_long,
}

/// What the extension keeps between messages.
struct State {
    release: CacheRelease,
    /// WebKit's memory-pressure response, when this WebKit exports it.
    webkit: Option<(PressureHandler, ReleaseMemory)>,
    told: u64,
    emptied: u64,
    emptying_ms: u64,
}

/// The extension's state: touched only on the web process's main thread (WebKit's signals are emitted there).
struct MainThread(UnsafeCell<State>);

// SAFETY: every access is on the web process's main thread (see `MainThread`).
unsafe impl Sync for MainThread {}

static STATE: MainThread = MainThread(UnsafeCell::new(State {
    release: CacheRelease::new(0),
    webkit: None,
    told: 0,
    emptied: 0,
    emptying_ms: 0,
}));

/// Milliseconds of the monotonic clock.
fn now_ms() -> u64 {
    let mut time = Timespec {
        seconds: 0,
        nanoseconds: 0,
    };
    // SAFETY: `time` is a live timespec; the monotonic clock always exists on Linux.
    unsafe { clock_gettime(CLOCK_MONOTONIC, &raw mut time) };
    time.seconds.unsigned_abs() * 1000 + time.nanoseconds.unsigned_abs() / 1_000_000
}

/// Connects `handler` to `instance`'s `signal` for the process's lifetime, with `data` as its last argument.
///
/// # Safety
/// `instance` is a live GObject with that signal, and `handler` has the signal's signature.
unsafe fn connect(instance: *mut c_void, signal: &CStr, handler: *const c_void, data: *mut c_void) {
    // SAFETY: as the caller promises; nothing is freed when the handler goes, so no destroy notification.
    unsafe {
        g_signal_connect_data(
            instance,
            signal.as_ptr(),
            handler,
            data,
            core::ptr::null(),
            0,
        );
    }
}

/// `WebKitWebExtension::page-created`: the page listens for the app's messages to its window.
unsafe extern "C" fn on_page_created(
    _extension: *mut c_void,
    page: *mut c_void,
    _data: *mut c_void,
) {
    // SAFETY: WebKit passes a live WebKitWebPage; the handler has the signal's signature.
    unsafe {
        connect(
            page,
            c"user-message-received",
            on_user_message as *const c_void,
            core::ptr::null_mut(),
        );
    }
}

/// `WebKitWebPage::user-message-received`: true when the message was ours, which is answered with an empty
/// message of the same name once done.
unsafe extern "C" fn on_user_message(
    _page: *mut c_void,
    message: *mut c_void,
    _data: *mut c_void,
) -> c_int {
    // SAFETY: WebKit passes a live WebKitUserMessage; its name is a NUL-terminated string it owns.
    let name = unsafe { webkit_user_message_get_name(message) };
    // SAFETY: as above.
    let Some(moment) = Moment::of_message(unsafe { CStr::from_ptr(name) }.to_bytes()) else {
        return 0;
    };
    // SAFETY: signals are emitted on the main thread, the only one that touches the state.
    let state = unsafe { &mut *STATE.0.get() };
    state.told += 1;
    let started = now_ms();
    if let Some((handler, release)) = state.webkit
        && state.release.empty_now(moment, started)
    {
        // SAFETY: the functions were looked up by their mangled names, whose signatures these are; the
        // synchronous release is what WebKit itself runs on the main thread under critical memory pressure.
        unsafe { release(handler(), true, true) };
        state.emptied += 1;
        state.emptying_ms += now_ms().saturating_sub(started);
    }
    // SAFETY: malloc_trim takes no pointers; glibc takes each arena's lock in turn. The reply is a new floating
    // message, which sending consumes.
    unsafe {
        malloc_trim(0);
        webkit_user_message_send_reply(
            message,
            webkit_user_message_new(name, core::ptr::null_mut()),
        );
    }
    1
}

/// `WebKitScriptWorld::window-object-cleared`: gives the main frame's new global object [`CACHES_FUNCTION`] and,
/// when JavaScriptCore exports its statistics call (`statistics` is not null), [`JS_HEAP_FUNCTION`].
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
        let caches = jsc_value_new_functionv(
            context,
            CACHES_FUNCTION.as_ptr(),
            caches_emptied as *const c_void,
            core::ptr::null_mut(),
            core::ptr::null(),
            G_TYPE_STRING,
            0,
            core::ptr::null(),
        );
        jsc_context_set_value(context, CACHES_FUNCTION.as_ptr(), caches);
        g_object_unref(caches);
        if !statistics.is_null() {
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
        }
        g_object_unref(context);
    }
}

/// The page's [`CACHES_FUNCTION`]: `{"told":T,"emptied":N,"ms":M}` (handed to JavaScriptCore, which frees it).
unsafe extern "C" fn caches_emptied(_data: *mut c_void) -> *mut c_char {
    // SAFETY: called by JavaScriptCore on the main thread, the only one that touches the state.
    let state = unsafe { &*STATE.0.get() };
    let mut json = Json::default();
    json.push(b"{\"told\":");
    json.number(state.told);
    json.push(b",\"emptied\":");
    json.number(state.emptied);
    json.push(b",\"ms\":");
    json.number(state.emptying_ms);
    json.push(b"}\0");
    // SAFETY: g_malloc returns room for the bytes copied, NUL included.
    unsafe {
        let text = g_malloc(json.length).cast::<u8>();
        core::ptr::copy_nonoverlapping(json.bytes.as_ptr(), text, json.length);
        text.cast()
    }
}

/// A short JSON text built without an allocator (three numbers fit with room to spare).
struct Json {
    bytes: [u8; 128],
    length: usize,
}

impl Default for Json {
    fn default() -> Self {
        Json {
            bytes: [0; 128],
            length: 0,
        }
    }
}

impl Json {
    fn push(&mut self, text: &[u8]) {
        for &byte in text {
            if let Some(slot) = self.bytes.get_mut(self.length) {
                *slot = byte;
                self.length += 1;
            }
        }
    }

    fn number(&mut self, value: u64) {
        let mut digits = [0u8; 20];
        let mut start = digits.len();
        let mut rest = value;
        // Filled from the end; `get_mut` keeps every index checked without a panic path (there is no
        // unwinding here to panic with).
        while let Some(slot) = start.checked_sub(1).and_then(|index| digits.get_mut(index)) {
            *slot = b'0' + (rest % 10) as u8;
            start -= 1;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        self.push(digits.get(start..).unwrap_or_default());
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
    // The looked-up functions have the signatures their mangled names spell; the state is touched on this
    // thread only.
    unsafe {
        let state = &mut *STATE.0.get();
        state.release = CacheRelease::new(now_ms());
        let handler = dlsym(core::ptr::null_mut(), PRESSURE_HANDLER.as_ptr());
        let release = dlsym(core::ptr::null_mut(), RELEASE_MEMORY.as_ptr());
        if !handler.is_null() && !release.is_null() {
            state.webkit = Some((
                core::mem::transmute::<*mut c_void, PressureHandler>(handler),
                core::mem::transmute::<*mut c_void, ReleaseMemory>(release),
            ));
        }
        connect(
            extension,
            c"page-created",
            on_page_created as *const c_void,
            core::ptr::null_mut(),
        );
        if getenv(REPORT_JS_HEAP.as_ptr()).is_null() {
            return;
        }
        let statistics = dlsym(core::ptr::null_mut(), JS_HEAP_STATISTICS.as_ptr());
        connect(
            webkit_script_world_get_default(),
            c"window-object-cleared",
            on_window_object_cleared as *const c_void,
            statistics,
        );
    }
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    loop {}
}
