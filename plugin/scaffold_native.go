package plugin

// The scaffolds of plugins in C and Rust: the ABI by hand, no library.
// The host hands a plugin its arguments in canonical form (compact,
// members sorted), so the echo tool's arguments are exactly
// {"text":"..."} and its answer is {"result":{"text":"..."}}: the string
// is copied as it was written, escapes and all.

const cTemplate = `/* NAME: a Warden plugin in C (WebAssembly, WASI preview 1).
 *
 * Build it with ` + "`warden plugin build .`" + `, which runs
 *   clang --target=wasm32-wasi -O2 -mexec-model=reactor -o NAME.wasm plugin.c
 * (with --sysroot=DIR where the WASI sysroot is not the system's).
 * The ABI (docs/plugins.md): export warden_alloc and warden_call; the host
 * functions are imported from module "warden".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((import_module("warden"), import_name("host_call")))
int32_t warden_host_call(const char *op, int32_t op_len, const char *req, int32_t req_len);
__attribute__((import_module("warden"), import_name("host_response")))
int32_t warden_host_response(char *buf, int32_t len);

static char *in_buf;  /* the call's name and arguments, written by the host */
static char *out_buf; /* the last answer, kept until the next call */

__attribute__((export_name("warden_alloc")))
char *warden_alloc(int32_t size) {
	free(in_buf);
	in_buf = malloc(size > 0 ? (size_t)size : 1);
	return in_buf;
}

static uint64_t answer(const char *s, size_t n) {
	free(out_buf);
	out_buf = malloc(n + 1);
	if (out_buf == NULL) {
		return 0;
	}
	memcpy(out_buf, s, n);
	return ((uint64_t)(uintptr_t)out_buf << 32) | (uint32_t)n;
}

static uint64_t fail(const char *code, const char *message) {
	char buf[512];
	int n = snprintf(buf, sizeof buf, "{\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", code, message);
	return answer(buf, (size_t)n);
}

/* NAME_echo: the arguments are {"text":STRING}; the answer {"result":{"text":STRING}}. */
static uint64_t echo(const char *args, size_t len) {
	static const char pre[] = "{\"text\":";
	static const char out_pre[] = "{\"result\":{\"text\":";
	size_t plen = sizeof pre - 1;
	if (len < plen + 3 || memcmp(args, pre, plen) != 0 || args[len - 1] != '}') {
		return fail("invalid_params", "want {\"text\": string}");
	}
	size_t vlen = len - plen - 1;
	size_t n = sizeof out_pre - 1 + vlen + 2;
	char *buf = malloc(n);
	if (buf == NULL) {
		return fail("plugin_failed", "out of memory");
	}
	memcpy(buf, out_pre, sizeof out_pre - 1);
	memcpy(buf + sizeof out_pre - 1, args + plen, vlen);
	memcpy(buf + n - 2, "}}", 2);
	uint64_t r = answer(buf, n);
	free(buf);
	return r;
}

__attribute__((export_name("warden_call")))
uint64_t warden_call(const char *name, int32_t name_len, const char *args, int32_t args_len) {
	static const char tool[] = "NAME_echo";
	if ((size_t)name_len == sizeof tool - 1 && memcmp(name, tool, sizeof tool - 1) == 0) {
		return echo(args, (size_t)args_len);
	}
	return fail("unknown_tool", "this plugin has no such tool");
}
`

const rustTemplate = `//! NAME: a Warden plugin in Rust (WebAssembly, WASI preview 1).
//!
//! Build it with ` + "`warden plugin build .`" + `, which runs
//!   rustc --target wasm32-wasi --crate-type cdylib -O -o NAME.wasm lib.rs
//! The ABI (docs/plugins.md): export warden_alloc and warden_call; the host
//! functions are imported from module "warden".

use std::cell::RefCell;

#[link(wasm_import_module = "warden")]
extern "C" {
    #[allow(dead_code)]
    fn host_call(op: *const u8, op_len: i32, req: *const u8, req_len: i32) -> i32;
    #[allow(dead_code)]
    fn host_response(buf: *mut u8, len: i32) -> i32;
}

thread_local! {
    // The call's name and arguments, written by the host, and the last
    // answer, kept until the next call.
    static IN: RefCell<Vec<u8>> = RefCell::new(Vec::new());
    static OUT: RefCell<Vec<u8>> = RefCell::new(Vec::new());
}

#[no_mangle]
pub extern "C" fn warden_alloc(size: i32) -> *mut u8 {
    IN.with(|b| {
        let mut b = b.borrow_mut();
        *b = vec![0u8; size.max(1) as usize];
        b.as_mut_ptr()
    })
}

fn answer(s: Vec<u8>) -> u64 {
    OUT.with(|b| {
        let mut b = b.borrow_mut();
        *b = s;
        ((b.as_ptr() as u64) << 32) | b.len() as u64
    })
}

fn fail(code: &str, message: &str) -> u64 {
    answer(format!("{{\"error\":{{\"code\":\"{}\",\"message\":\"{}\"}}}}", code, message).into_bytes())
}

/// NAME_echo: the arguments are {"text":STRING}; the answer {"result":{"text":STRING}}.
fn echo(args: &[u8]) -> u64 {
    let pre = b"{\"text\":";
    if args.len() < pre.len() + 3 || !args.starts_with(pre) || !args.ends_with(b"}") {
        return fail("invalid_params", "want {\"text\": string}");
    }
    let value = &args[pre.len()..args.len() - 1];
    let mut out = b"{\"result\":{\"text\":".to_vec();
    out.extend_from_slice(value);
    out.extend_from_slice(b"}}");
    answer(out)
}

#[no_mangle]
pub extern "C" fn warden_call(name: *const u8, name_len: i32, args: *const u8, args_len: i32) -> u64 {
    // The host wrote both ranges into the buffer warden_alloc returned.
    let name = unsafe { std::slice::from_raw_parts(name, name_len as usize) };
    let args = unsafe { std::slice::from_raw_parts(args, args_len as usize) };
    match name {
        b"NAME_echo" => echo(args),
        _ => fail("unknown_tool", "this plugin has no such tool"),
    }
}
`
