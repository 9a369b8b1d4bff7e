"""An OTLP/HTTP trace receiver, and the checks of one call's trace across the gateway.

  otlp.py serve SPANS_FILE
      Receives OTLP/HTTP exports (POST /v1/traces, protobuf bodies) as an OpenTelemetry
      collector does, decoding them with the protocol's own definitions (the
      `opentelemetry-proto` package), and appends each span to SPANS_FILE as a JSON line.
      Prints "OTLP receiver at http://127.0.0.1:PORT" once it listens.

  otlp.py check SPANS_FILE ERA   (modern or legacy: the era `mcp call --era` spoke)
      Waits (at most 30 s) for the trace of `mcp call gw.add` through the gateway and
      checks it: the client's span is the root; the gateway's server span is its child; the
      gateway's client span to the upstream is a child of that; the upstream's server span
      is a child of the last; every span is named and attributed as the OpenTelemetry
      semantic conventions for MCP say (semantic-conventions-genai v0.1.0).
"""

import http.server
import json
import sys
import time

from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.trace.v1 import trace_pb2


def value_of(any_value):
    kind = any_value.WhichOneof("value")
    return getattr(any_value, kind) if kind else None


def serve(spans_file):
    class Receiver(http.server.BaseHTTPRequestHandler):
        def do_POST(self):
            if self.path != "/v1/traces":
                self.send_error(404)
                return
            length = int(self.headers.get("content-length", "0"))
            request = trace_service_pb2.ExportTraceServiceRequest()
            request.ParseFromString(self.rfile.read(length))
            with open(spans_file, "a", encoding="utf-8") as out:
                for resource_spans in request.resource_spans:
                    resource = {
                        a.key: value_of(a.value) for a in resource_spans.resource.attributes
                    }
                    for scope_spans in resource_spans.scope_spans:
                        for span in scope_spans.spans:
                            out.write(
                                json.dumps(
                                    {
                                        "service": resource.get("service.name"),
                                        "name": span.name,
                                        "kind": trace_pb2.Span.SpanKind.Name(span.kind),
                                        "trace_id": span.trace_id.hex(),
                                        "span_id": span.span_id.hex(),
                                        "parent_span_id": span.parent_span_id.hex(),
                                        "attributes": {
                                            a.key: value_of(a.value) for a in span.attributes
                                        },
                                        "status": trace_pb2.Status.StatusCode.Name(
                                            span.status.code
                                        ),
                                    }
                                )
                                + "\n"
                            )
            body = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
            self.send_response(200)
            self.send_header("content-type", "application/x-protobuf")
            self.send_header("content-length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
    print(f"OTLP receiver at http://127.0.0.1:{server.server_address[1]}", flush=True)
    server.serve_forever()


def load(spans_file):
    try:
        with open(spans_file, encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]
    except FileNotFoundError:
        return []


def find(spans, **want):
    return [s for s in spans if all(s.get(k) == v for k, v in want.items())]


def check(spans_file, era):
    # Each process exports on its own schedule: look again until everything is there, or
    # fail with what is missing after 30 s.
    deadline = time.monotonic() + 30
    while True:
        try:
            return check_once(load(spans_file), era)
        except AssertionError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def check_once(spans, era):
    version = {"modern": "2026-07-28", "legacy": "2025-11-25"}[era]
    roots = find(spans, service="mcp", name="tools/call gw.add", kind="SPAN_KIND_CLIENT")
    roots = [r for r in roots if r["attributes"].get("mcp.protocol.version") == version]
    trace = [s for s in spans if roots and s["trace_id"] == roots[-1]["trace_id"]]
    assert roots, f"no client span of `mcp call gw.add` in {era} among {json.dumps(spans, indent=1)}"
    root = roots[-1]
    by_parent = {}
    for s in spans:
        by_parent.setdefault(s["parent_span_id"], []).append(s)

    def only_child(parent, **want):
        children = [c for c in by_parent.get(parent["span_id"], []) if all(c.get(k) == v for k, v in want.items())]
        assert len(children) == 1, f"one child {want} of {parent['name']} ({parent['service']}), found {children} in {json.dumps(trace, indent=1)}"
        return children[0]

    assert root["parent_span_id"] == "", root
    gateway = only_child(root, service="gateway", name="tools/call gw.add", kind="SPAN_KIND_SERVER")
    outgoing = only_child(gateway, service="gateway", name="tools/call add", kind="SPAN_KIND_CLIENT")
    upstream = only_child(outgoing, service="upstream", name="tools/call add", kind="SPAN_KIND_SERVER")

    for span, tool in [(root, "gw.add"), (gateway, "gw.add"), (outgoing, "add"), (upstream, "add")]:
        a = span["attributes"]
        where = f"{span['service']} {span['name']}: {a}"
        assert a.get("mcp.method.name") == "tools/call", where
        assert a.get("gen_ai.tool.name") == tool, where
        assert a.get("gen_ai.operation.name") == "execute_tool", where
        assert a.get("network.transport") == "tcp", where
        assert a.get("network.protocol.name") == "http", where
        assert str(a.get("jsonrpc.request.id", "")) != "", where
        assert "error.type" not in a, where
        assert span["status"] != "STATUS_CODE_ERROR", where
    assert root["attributes"].get("mcp.protocol.version") == version, root
    assert gateway["attributes"].get("mcp.protocol.version") == version, gateway
    # The gateway speaks to its upstream in the era the upstream chose, whatever the caller's.
    assert upstream["attributes"].get("mcp.protocol.version") == outgoing["attributes"].get("mcp.protocol.version"), (upstream, outgoing)

    # A failed call: the error's type and status on the client's and the server's spans.
    failing = [
        f
        for f in find(spans, service="mcp", name="tools/call gw.nope")
        if f["attributes"].get("mcp.protocol.version") == version
    ]
    assert failing, f"no client span of the failing call in {era}"
    failed = failing[-1]
    assert failed["attributes"].get("error.type") == "-32602", failed
    assert failed["status"] == "STATUS_CODE_ERROR", failed
    served = only_child(failed, service="gateway")
    assert served["attributes"].get("error.type") == "-32602", served
    assert served["attributes"].get("rpc.response.status_code") == "-32602", served
    assert served["status"] == "STATUS_CODE_ERROR", served
    print(f"otlp {era}: the trace of one call crosses the gateway (4 spans, parent links, conventions' names and attributes):")
    shown = ["mcp.method.name", "gen_ai.tool.name", "mcp.protocol.version", "jsonrpc.request.id", "network.transport"]

    def show(span, depth):
        kind = span["kind"].removeprefix("SPAN_KIND_").lower()
        attributes = " ".join(f"{k}={span['attributes'][k]}" for k in shown if k in span["attributes"])
        print(f"{'  ' * depth}{span['service']}: {span['name']} ({kind}) {attributes}")
        for child in by_parent.get(span["span_id"], []):
            show(child, depth + 1)

    print(f"trace {root['trace_id']}")
    show(root, 0)


def exported(spans_file, service, name):
    deadline = time.monotonic() + 30
    while not find(load(spans_file), service=service, name=name):
        assert time.monotonic() < deadline, f"no span {name!r} from {service} in {spans_file}"
        time.sleep(0.2)
    print(f"otlp: {service} exported its span {name!r} as it exited")


if __name__ == "__main__":
    if sys.argv[1] == "serve":
        serve(sys.argv[2])
    elif sys.argv[1] == "check":
        check(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "exported":
        exported(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        sys.exit(__doc__)
