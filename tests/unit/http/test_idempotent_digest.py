"""What makes two requests the same one for `Idempotency-Key` (`http.idempotency`)."""

from __future__ import annotations

from translate_server.http.idempotency import _digest


def _form(boundary: bytes) -> tuple[bytes, bytes]:
    body = (
        b"--" + boundary + b'\r\nContent-Disposition: form-data; name="file"; filename="a.tmx"'
        b"\r\n\r\n<tmx/>\r\n--" + boundary + b"--\r\n"
    )
    return b"multipart/form-data; boundary=" + boundary, body


def test_a_multipart_bodys_boundary_is_not_part_of_the_request() -> None:
    # A client draws a new boundary at every send, its retry's too.
    assert _digest("/memories/m/import", *_form(b"abc123")) == _digest(
        "/memories/m/import", *_form(b"zzz999")
    )


def test_the_route_and_the_body_are() -> None:
    json = b"application/json"
    assert _digest("/translate", json, b'{"text":"a"}') != _digest(
        "/translate", json, b'{"text":"b"}'
    )
    assert _digest("/translate", json, b"{}") != _digest("/v1/chat/completions", json, b"{}")
