"""A stand-in for a tracing backend: takes OTLP/HTTP exports and prints each trace as a tree.

    python benchmarks/trace_sink.py --port 4318 &
    OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/protobuf \\
        translate-server serve --otlp-traces-endpoint http://127.0.0.1:4318/v1/traces

For a look at the spans where no Jaeger runs (docs/operations.md shows one such tree). Spans
arrive in batches, from the server and from vLLM separately; a trace is printed once no span
of it has arrived for `--settle` seconds.
"""

from __future__ import annotations

import argparse
import http.server
import threading
import time
from collections import defaultdict

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

_spans: dict[bytes, list] = defaultdict(list)
_last_seen: dict[bytes, float] = {}
_lock = threading.Lock()


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        request = ExportTraceServiceRequest.FromString(
            self.rfile.read(int(self.headers.get("content-length", 0)))
        )
        with _lock:
            for resource in request.resource_spans:
                service = next(
                    (
                        a.value.string_value
                        for a in resource.resource.attributes
                        if a.key == "service.name"
                    ),
                    "?",
                )
                for scope in resource.scope_spans:
                    for span in scope.spans:
                        _spans[span.trace_id].append((service, span))
                        _last_seen[span.trace_id] = time.monotonic()
        self.send_response(200)
        self.send_header("content-type", "application/x-protobuf")
        self.send_header("content-length", "0")
        self.end_headers()

    def log_message(self, *args: object) -> None:
        return None


def _value(any_value) -> object:  # type: ignore[no-untyped-def]
    kind = any_value.WhichOneof("value")
    value = getattr(any_value, kind) if kind else None
    return round(value, 3) if isinstance(value, float) else value


def format_trace(spans: list) -> str:
    """One line per span, children indented under their parent, offsets from the trace's
    first span."""
    by_parent: dict[bytes, list] = defaultdict(list)
    ids = {span.span_id for _, span in spans}
    for service, span in spans:
        parent = span.parent_span_id if span.parent_span_id in ids else b""
        by_parent[parent].append((service, span))
    start = min(span.start_time_unix_nano for _, span in spans)
    lines: list[str] = []

    def walk(parent: bytes, depth: int) -> None:
        for service, span in sorted(by_parent[parent], key=lambda s: s[1].start_time_unix_nano):
            offset = (span.start_time_unix_nano - start) / 1e6
            duration = (span.end_time_unix_nano - span.start_time_unix_nano) / 1e6
            attributes = " ".join(
                f"{a.key}={_value(a.value)}"
                for a in span.attributes
                if not a.key.startswith(("code.", "http.request", "url."))
            )
            lines.append(
                f"{'  ' * depth}{span.name} [{service}] +{offset:.1f} ms "
                f"{duration:.1f} ms  {attributes}"
            )
            walk(span.span_id, depth + 1)

    walk(b"", 0)
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--port", type=int, default=4318)
    # Longer than two of the SDK's export intervals (5 s), so a trace is printed whole.
    parser.add_argument("--settle", type=float, default=12.0)
    args = parser.parse_args()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", args.port), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    while True:
        time.sleep(1)
        now = time.monotonic()
        with _lock:
            done = [t for t, seen in _last_seen.items() if now - seen > args.settle]
            traces = [(_spans.pop(t), _last_seen.pop(t)) for t in done]
        for spans, _ in traces:
            print(f"trace {spans[0][1].trace_id.hex()}\n{format_trace(spans)}\n", flush=True)


if __name__ == "__main__":
    main()
