//! What the hot path allocates, counted per thread by `allocation-counter`: the
//! promises of `protocol::Params` (a call's params take no member-name copies and no map
//! node) and of `StructuredContent` (a handler's value is written once, as text, with no
//! JSON tree in between).

use mcp_runtime::protocol::jsonrpc::Frame;
use mcp_runtime::protocol::{Message, StructuredContent};
use mcp_runtime::CallToolResult;

/// Blocks allocated on this thread while `f` runs.
fn blocks<T>(f: impl FnOnce() -> T) -> (T, u64) {
    let mut out = None;
    let info = allocation_counter::measure(|| out = Some(f()));
    match out {
        Some(out) => (out, info.count_total),
        None => unreachable!("measure runs the closure"),
    }
}

#[test]
fn a_tool_calls_params_take_no_member_names_and_no_map() {
    let line =
        br#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"add","arguments":{}}}"#;
    let (message, count) = blocks(|| Frame::parse(line).unwrap().into_message().unwrap());
    // The method's text and the tool's name: nothing for `params`, `name` or `arguments`
    // themselves (as a JSON map they took a node and two member names).
    assert_eq!(count, 2, "{message:?}");
    let Message::Request { params, .. } = message else {
        panic!("a request: {message:?}");
    };
    let params = params.unwrap();
    assert_eq!(params.get("name").and_then(|v| v.as_str()), Some("add"));
}

#[derive(serde::Serialize)]
struct Order {
    id: u32,
    item: &'static str,
    quantity: u32,
}

#[test]
fn structured_content_is_written_once_without_a_tree() {
    let order = Order {
        id: 7,
        item: "anvil",
        quantity: 2,
    };
    let (structured, count) = blocks(|| StructuredContent::new(&order).unwrap());
    // One buffer for the text (as a JSON value it took a map node and a block per
    // member name and string).
    assert_eq!(count, 1);
    assert_eq!(structured.json(), r#"{"id":7,"item":"anvil","quantity":2}"#);
    let (result, count) = blocks(|| CallToolResult::structured(&order));
    // The text, its copy for the text block, and the block list.
    assert_eq!(count, 3, "{result:?}");
}
