"""The model endpoint: a request is the bytes the harness chose, and an answer is read under a
deadline for the whole request and a cap on its size; what comes back is clean.

Hostile answers tried (each on a loopback server of this test): a server that trickles a byte at
a time, one that streams server-sent events for ever, a 20 MB answer, a gzip answer, usage
counts of NaN, Infinity, text, a negative number and 10**30, a lone surrogate in the text and in
a tool call's arguments, a 200 that is not JSON, one with no choices, 400, 429 and 503, and a
port nobody listens on."""

from __future__ import annotations

import gzip
import json
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from asiworld.agents.clients.endpoint import Endpoint, ModelError, parse_reply

from tests.agents.hostile import Hostile, endless_events, trickle


def completion(content="ok", usage=None, tool_calls=None) -> dict:
    message = {"role": "assistant", "content": content}
    if tool_calls is not None:
        message["tool_calls"] = tool_calls
    return {"choices": [{"index": 0, "message": message, "finish_reason": "stop"}],
            "usage": usage if usage is not None else {"prompt_tokens": 10,
                                                     "completion_tokens": 2}}


def send(handler, status: int, body: bytes, headers: dict | None = None) -> None:
    handler.send_response(status)
    for key, value in {"Content-Type": "application/json", **(headers or {})}.items():
        handler.send_header(key, value)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


def answering(status: int, body: bytes | dict, headers: dict | None = None):
    data = body if isinstance(body, bytes) else json.dumps(body).encode()
    return lambda handler: send(handler, status, data, headers)


def test_the_bytes_sent_are_the_bytes_given():
    body = b'{"model":"m","messages":[{"role":"user","content":"caf\\u00e9"}]}'
    received = []

    class Keep(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args) -> None:
            pass

        def do_POST(self) -> None:
            received.append(self.rfile.read(int(self.headers["Content-Length"])))
            send(self, 200, json.dumps(completion()).encode())

    server = ThreadingHTTPServer(("127.0.0.1", 0), Keep)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        reply = Endpoint(f"http://127.0.0.1:{server.server_address[1]}/v1").complete(body)
    finally:
        server.shutdown()
        server.server_close()
    assert received == [body]
    assert reply.content == "ok" and reply.usage.prompt_tokens == 10


def test_a_server_that_trickles_is_cut_off_at_the_deadline():
    with Hostile(lambda handler: trickle(handler, gap=0.2)) as server:
        began = time.monotonic()
        with pytest.raises(ModelError) as err:
            Endpoint(server.url, timeout=1.0).complete(b"{}")
        took = time.monotonic() - began
    assert err.value.cause == "model_timeout" and err.value.transient
    assert took < 3.0  # the deadline and one gap between bytes, not 20,000 s


def test_a_server_that_streams_events_for_ever_is_cut_off_at_the_deadline():
    with Hostile(endless_events) as server:
        began = time.monotonic()
        with pytest.raises(ModelError) as err:
            Endpoint(server.url, timeout=1.0).complete(b"{}")
    assert err.value.cause == "model_timeout"
    assert time.monotonic() - began < 3.0


def test_an_answer_larger_than_the_cap_is_refused_not_read_whole():
    big = b"x" * (20 * 1024 * 1024)
    with Hostile(answering(200, big)) as server:
        with pytest.raises(ModelError) as err:
            Endpoint(server.url, limit=1024 * 1024).complete(b"{}")
    assert err.value.cause == "model_malformed" and "larger than 1 MiB" in err.value.detail


def test_a_gzip_answer_is_read_and_a_bomb_is_not():
    packed = gzip.compress(json.dumps(completion("zipped")).encode())
    with Hostile(answering(200, packed, {"Content-Encoding": "gzip"})) as server:
        assert Endpoint(server.url).complete(b"{}").content == "zipped"
    bomb = gzip.compress(b"{" + b" " * (8 * 1024 * 1024) + b"}")
    with Hostile(answering(200, bomb, {"Content-Encoding": "gzip"})) as server:
        with pytest.raises(ModelError) as err:
            Endpoint(server.url, limit=1024 * 1024).complete(b"{}")
    assert err.value.cause == "model_malformed" and "inflates past" in err.value.detail


@pytest.mark.parametrize("nonsense", ["NaN", "Infinity", '"12"', "-5", "1e30",
                                      "1000000000000000000000000000000", "true", "1.5"])
def test_usage_counts_that_are_not_counts_are_missing(nonsense):
    raw = ('{"choices":[{"message":{"role":"assistant","content":"hi"}}],'
           f'"usage":{{"prompt_tokens":{nonsense},"completion_tokens":3,'
           f'"prompt_tokens_details":{{"cached_tokens":{nonsense}}}}}}}').encode()
    reply = parse_reply(raw)
    assert reply.usage.prompt_tokens is None and reply.usage.cached_tokens is None
    assert reply.usage.completion_tokens == 3


def test_a_lone_surrogate_never_leaves_the_endpoint():
    raw = json.dumps(completion("hi \ud800", tool_calls=[{
        "id": "c\udfff", "type": "function",
        "function": {"name": "say", "arguments": '{"text": "x\ud800"}'}}])).encode()
    reply = parse_reply(raw)
    for text in (reply.content, reply.tool_calls[0].arguments, reply.tool_calls[0].id):
        text.encode("utf-8")  # valid UTF-8 by construction: this would raise
    assert reply.content.startswith("hi ")


@pytest.mark.parametrize("body, says", [
    (b"<html>bad gateway</html>", "not JSON"),
    (b"[1, 2]", "not a JSON object"),
    (b'{"choices": []}', "no choices"),
    (b'{"choices": [{"index": 0}]}', "no message"),
    (b'{"choices": [{"message": {"tool_calls": [{"function": {}}]}}]}', "has no name"),
    (b"[" * 100_000, "not JSON"),
])
def test_a_200_that_is_no_completion_is_malformed(body, says):
    with pytest.raises(ModelError) as err:
        parse_reply(body)
    assert err.value.cause == "model_malformed" and says in err.value.detail


@pytest.mark.parametrize("status, cause, transient", [
    (400, "model_refused", False), (404, "model_refused", False),
    (429, "model_rate_limited", True), (503, "model_error", True), (500, "model_error", True),
])
def test_an_error_status_names_its_cause(status, cause, transient):
    with Hostile(answering(status, {"error": {"message": "no"}})) as server:
        with pytest.raises(ModelError) as err:
            Endpoint(server.url).complete(b"{}")
    assert (err.value.cause, err.value.transient, err.value.status) == (cause, transient, status)


def test_nobody_listening_is_unreachable_and_said_so_before_a_study():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = Endpoint(f"http://127.0.0.1:{port}/v1")
    with pytest.raises(ModelError) as err:
        endpoint.complete(b"{}")
    assert err.value.cause == "model_unreachable"
    assert "cannot reach" in endpoint.reachable()
    with Hostile(answering(404, b"{}")) as server:  # any HTTP answer counts as reachable
        assert Endpoint(server.url).reachable() is None
