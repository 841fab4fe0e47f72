"""One OpenAI-compatible chat endpoint, spoken to in bytes the harness chose.

The harness builds each request body itself (`request.encode`) and this module sends exactly
those bytes, so a transcript can rebuild a request byte for byte (`asiworld study turn`). It
reads the answer under two bounds a client library does not give: a deadline for the whole
request (a server that trickles a byte at a time, or streams for ever, cannot hold a study) and
a size cap (a 1 GB answer is refused at the cap, not read whole). What it hands back is plain
data (`Reply`), checked and cleaned at this edge:

- text (content, tool names and arguments) is valid UTF-8 by construction: a lone surrogate a
  server escaped into its JSON is replaced, so it can never reach the world or a file;
- usage counts that are not whole numbers from 0 to a billion (NaN, Infinity, text, 10**30) are
  treated as missing: a server's nonsense costs its seat a count, never the study.

Failures are `ModelError(cause, detail)`, `cause` being the incident the harness records:
`model_timeout`, `model_unreachable`, `model_rate_limited`, `model_error` (408, 409, 5xx),
`model_refused` (any other 4xx: the request itself was refused, retrying will not help) and
`model_malformed` (a 200 that is not a usable completion).
"""

from __future__ import annotations

import json
import math
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from asiworld.engine.text import clean

REPLY_LIMIT_BYTES = 8 * 1024 * 1024  # an answer larger than this is refused, not read whole
USAGE_LIMIT = 10**9  # no single call uses a billion tokens: a bigger count is nonsense
TRANSIENT_STATUS = {408, 409, 429}
CONNECT_SECONDS = 10.0


class ModelError(Exception):
    """A model request that did not give a usable answer; `cause` is its incident's cause."""

    def __init__(self, cause: str, detail: str, status: int | None = None) -> None:
        super().__init__(detail)
        self.cause = cause
        self.detail = detail
        self.status = status

    @property
    def transient(self) -> bool:
        """Worth asking again: everything but a request the server refused as such."""
        return self.cause != "model_refused"


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: str  # JSON text, as the model wrote it (cut off or not)


@dataclass
class Usage:
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None  # of the prompt tokens, those the server had cached


@dataclass
class Reply:
    """The first choice of a completion, as plain data."""

    content: str | None
    tool_calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    finish_reason: str | None = None
    size: int = 0  # bytes of the answer's body


def clean_text(value: Any) -> str | None:
    """A string with every lone surrogate replaced (valid UTF-8), None for a missing one;
    anything else (a number, a list) is given as its JSON."""
    if value is None:
        return None
    if not isinstance(value, str):
        value = json.dumps(value, ensure_ascii=False)
    return clean(value)


def count(value: Any) -> int | None:
    """A usage count the harness can add up: a whole number in [0, USAGE_LIMIT], else None."""
    if isinstance(value, bool):
        return None
    if isinstance(value, float):
        if not math.isfinite(value) or value != int(value):
            return None
        value = int(value)
    if isinstance(value, int) and 0 <= value <= USAGE_LIMIT:
        return value
    return None


def parse_reply(body: bytes) -> Reply:
    """The completion in `body`; ModelError("model_malformed") for one the harness cannot use."""
    try:
        data = json.loads(body)
    except (ValueError, RecursionError):
        raise ModelError("model_malformed", f"the answer is not JSON: {_head(body)}") from None
    if not isinstance(data, dict):
        raise ModelError("model_malformed", "the answer is not a JSON object")
    choices = data.get("choices")
    if not isinstance(choices, list) or not choices or not isinstance(choices[0], dict):
        raise ModelError("model_malformed", "the answer has no choices")
    message = choices[0].get("message")
    if not isinstance(message, dict):
        raise ModelError("model_malformed", "the answer's choice has no message")
    calls = []
    raw_calls = message.get("tool_calls") or []
    if not isinstance(raw_calls, list):
        raise ModelError("model_malformed", "the answer's tool_calls is not a list")
    for i, raw in enumerate(raw_calls):
        function = raw.get("function") if isinstance(raw, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise ModelError("model_malformed", f"tool call {i + 1} of the answer has no name")
        arguments = function.get("arguments")
        calls.append(ToolCall(
            id=clean_text(raw.get("id")) or f"call_{i}",
            name=clean_text(function["name"]) or "",
            arguments=clean_text(arguments if arguments is not None else "") or "",
        ))
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    details = usage.get("prompt_tokens_details")
    cached = details.get("cached_tokens") if isinstance(details, dict) else None
    content = message.get("content")
    if isinstance(content, list):  # content parts: keep their text
        content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
    finish = choices[0].get("finish_reason")
    return Reply(
        content=clean_text(content),
        tool_calls=calls,
        usage=Usage(count(usage.get("prompt_tokens")), count(usage.get("completion_tokens")),
                    count(cached)),
        finish_reason=finish if isinstance(finish, str) else None,
        size=len(body),
    )


def _head(body: bytes, limit: int = 80) -> str:
    return repr(body[:limit].decode("utf-8", "replace"))


_HTTP: Any = None
_HTTP_LOCK = threading.Lock()


def http_client() -> Any:
    """One HTTP client (connection pool, TLS context) for every seat of this process: making
    one loads the CA bundle (about 0.1 s), and it is thread-safe."""
    global _HTTP
    with _HTTP_LOCK:
        if _HTTP is None:
            import httpx2

            _HTTP = httpx2.Client(follow_redirects=False,
                                  limits=httpx2.Limits(max_connections=64))
        return _HTTP


class Endpoint:
    """`POST {base_url}/chat/completions` with the given body bytes, bounded by `timeout`
    seconds for the whole request and `limit` bytes of answer."""

    def __init__(self, base_url: str, api_key: str = "not-needed", *, timeout: float = 60.0,
                 limit: int = REPLY_LIMIT_BYTES, http: Any = None) -> None:
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.headers = {"Content-Type": "application/json", "Accept": "application/json",
                        "Authorization": f"Bearer {api_key}"}
        self.timeout = timeout
        self.limit = limit
        self.http = http

    def complete(self, body: bytes, timeout: float | None = None) -> Reply:
        return parse_reply(self.post(body, timeout))

    def post(self, body: bytes, timeout: float | None = None) -> bytes:
        """The answer's body for a 200; ModelError for everything else."""
        import httpx2

        seconds = self.timeout if timeout is None else timeout
        deadline = time.monotonic() + seconds
        http = self.http or http_client()
        limits = httpx2.Timeout(seconds, connect=min(CONNECT_SECONDS, seconds))
        try:
            with http.stream("POST", self.url, content=body, headers=self.headers,
                             timeout=limits) as response:
                data = self._read(response, deadline, seconds)
                status = response.status_code
        except httpx2.TimeoutException as exc:
            raise ModelError("model_timeout", f"no answer within {seconds:g} s "
                             f"({type(exc).__name__})") from None
        except (httpx2.TransportError, OSError) as exc:
            raise ModelError("model_unreachable", f"{type(exc).__name__}: {str(exc)[:200]}") \
                from None
        if status == 200:
            return data
        said = _head(data, 200)
        if status == 429:
            raise ModelError("model_rate_limited", f"429 {said}", status)
        if status in TRANSIENT_STATUS or status >= 500:
            raise ModelError("model_error", f"{status} {said}", status)
        raise ModelError("model_refused", f"{status} {said}", status)

    def _read(self, response: Any, deadline: float, seconds: float) -> bytes:
        size = 0
        chunks = []
        for chunk in response.iter_raw():
            size += len(chunk)
            if size > self.limit:
                raise ModelError("model_malformed", f"the answer is larger than "
                                 f"{self.limit // (1024 * 1024)} MiB; not read further")
            if time.monotonic() > deadline:
                raise ModelError("model_timeout", f"the answer took longer than {seconds:g} s "
                                 f"(still arriving after {size} bytes)")
            chunks.append(chunk)
        data = b"".join(chunks)
        encoding = response.headers.get("content-encoding", "")
        if encoding:  # iter_raw leaves it compressed; decode with the same cap
            data = _decompress(data, encoding, self.limit)
        return data

    def reachable(self, timeout: float = 10.0) -> str | None:
        """None when something answers HTTP at the base URL (any status: a server without
        /models still counts); else the sentence saying why not."""
        import httpx2

        http = self.http or http_client()
        try:
            http.get(self.base_url + "/models", headers=self.headers, timeout=timeout)
        except httpx2.TimeoutException:
            return f"no answer from {self.base_url} within {timeout:g} s"
        except (httpx2.TransportError, OSError) as exc:
            return f"cannot reach {self.base_url}: {type(exc).__name__}: {str(exc)[:160]}"
        return None


def _decompress(data: bytes, encoding: str, limit: int) -> bytes:
    import zlib

    if encoding not in ("gzip", "deflate"):
        raise ModelError("model_malformed", f"the answer is encoded as {encoding!r}")
    wbits = 31 if encoding == "gzip" else 15
    inflater = zlib.decompressobj(wbits)
    try:
        out = inflater.decompress(data, limit + 1)
    except zlib.error as exc:
        raise ModelError("model_malformed", f"the answer's {encoding} is broken: {exc}") \
            from None
    if len(out) > limit or inflater.unconsumed_tail:
        raise ModelError("model_malformed", f"the answer inflates past "
                         f"{limit // (1024 * 1024)} MiB; not read further")
    return out
