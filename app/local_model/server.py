"""llama.cpp's own OpenAI-compatible HTTP server, in this process, through xllamacpp.

xllamacpp ships prebuilt wheels of llama.cpp's server (`pip install 'asiworld[local-model]'`,
seconds), where llama-cpp-python is a long source build. `xllamacpp.Server(params)` returns once
the model is loaded and the port listens; dropping the last reference stops it (safely only once
its task loop runs: LocalModelServer.start waits for that). Besides
/v1/chat/completions (with real `usage`), it answers llama.cpp's /tokenize and /apply-template,
so a benchmark can count tokens with the model's own tokenizer.
"""

from __future__ import annotations

import socket
from pathlib import Path
from types import ModuleType, TracebackType
from typing import Any

from asiworld.engine import codes
from asiworld.engine.errors import CodedError

from .files import INSTALL_SERVER, checked_model, model_name, packaged_model, read_template

# Servers whose task loop never answered: dropping one would hang this process (see
# _wait_for_the_task_loop), so they are kept until it exits.
_UNSTOPPABLE: list[Any] = []
LOOP_DEADLINE = 60.0  # seconds for the first task; it takes milliseconds

# llama.cpp's log thresholds: 1 errors, 2 warnings (one per odd request), 3 its usual info log
# (start-up, every request's timings). Quiet keeps the errors: they say why a start failed.
QUIET, VERBOSE = 1, 3


def load_xllamacpp() -> ModuleType:
    try:
        import xllamacpp
    except ImportError:
        raise CodedError(
            codes.LOCAL_MODEL_UNAVAILABLE,
            f"serving a local model needs xllamacpp: `{INSTALL_SERVER}`",
        ) from None
    return xllamacpp


def port_is_free(host: str, port: int) -> bool:
    """Whether a listening socket could bind (host, port) now; port 0 always can."""
    if port == 0:
        return True
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0]
    except OSError:
        return False
    with socket.socket(family, kind, proto) as probe:
        # as a server socket binds: a closed connection's TIME_WAIT does not hold the port
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError:
            return False
    return True


class LocalModelServer:
    """A model on an OpenAI-compatible endpoint: `with LocalModelServer(port=0) as server:`
    then `server.url` is "http://127.0.0.1:PORT/v1" (port 0 picks a free port).

    Every check (xllamacpp, the model file, the template, the port) runs before anything starts
    and raises a CodedError."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        model: Path | None = None,
        threads: int = 1,
        ctx: int = 8192,
        parallel: int = 1,
        chat_template: Path | None = None,
        verbose: bool = False,
    ) -> None:
        self.host, self.port = host, port
        self.model, self.chat_template = model, chat_template
        # One inference thread by default: two contend with each other on a two-core machine.
        self.threads, self.ctx, self.parallel = threads, ctx, parallel
        self.verbose = verbose
        self.name = model_name(model)
        self._server: Any = None
        self.address: str | None = None  # "http://HOST:PORT" while serving

    @property
    def url(self) -> str:
        """The OpenAI base URL, ".../v1"."""
        if self.address is None:
            raise RuntimeError("the local model server is not running")
        return f"{self.address}/v1"

    @property
    def context_per_request(self) -> int:
        """llama.cpp gives each parallel slot an equal share of the context."""
        return self.ctx // self.parallel

    def start(self) -> LocalModelServer:
        if self._server is not None:
            return self
        xllamacpp = load_xllamacpp()
        model = packaged_model() if self.model is None else checked_model(self.model)
        template = read_template(self.chat_template)
        if not port_is_free(self.host, self.port):
            raise self._port_unavailable()
        try:
            self._server = xllamacpp.Server(self._params(xllamacpp, model, template))
        except RuntimeError:
            if not port_is_free(self.host, self.port):  # taken since the check above
                raise self._port_unavailable() from None
            raise CodedError(
                codes.SERVER_FAILED,
                f"llama.cpp could not start {model} (its log above says why; --verbose shows "
                "all of it)",
            ) from None
        self.address = self._server.listening_address
        self._wait_for_the_task_loop()
        return self

    def stop(self) -> None:
        # xllamacpp stops the server when its object goes: drop the one reference
        self._server = None
        self.address = None

    def _wait_for_the_task_loop(self) -> None:
        """Return once llama.cpp's task loop runs. xllamacpp's Server returns when the port
        listens, before its thread enters the loop, and the loop's start clears a stop asked for
        before it: a server dropped in that gap never stops (the process hangs in ~Server). GET
        /slots is answered by the loop itself, so once it answers a stop is heard."""
        # Imported here: urllib.request brings http.client, email and ssl (about 35 ms), and
        # every `asiworld` command line imports this module to list `model serve`.
        import urllib.request

        try:
            with urllib.request.urlopen(f"{self.address}/slots", timeout=LOOP_DEADLINE):
                pass
        except OSError as err:
            _UNSTOPPABLE.append(self._server)
            self._server, self.address = None, None
            raise CodedError(
                codes.SERVER_FAILED, f"llama.cpp's server started but does not answer: {err}"
            ) from None

    def __enter__(self) -> LocalModelServer:
        return self.start()

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self.stop()

    def _params(self, xllamacpp: ModuleType, model: Path, template: str) -> Any:
        params = xllamacpp.CommonParams()
        params.model.path = str(model)
        params.model_alias = {self.name}
        params.n_ctx = self.ctx
        params.n_parallel = self.parallel
        params.cpuparams.n_threads = self.threads
        params.cpuparams_batch.n_threads = self.threads  # prompt evaluation too
        params.use_jinja = True  # the template is Jinja; llama.cpp reads tool calls through it
        params.chat_template = template
        params.hostnames = [self.host]
        params.port = self.port
        params.ui = False  # an endpoint for programs: no chat web page
        params.endpoint_slots = True  # GET /slots: see _wait_for_the_task_loop
        params.verbosity = VERBOSE if self.verbose else QUIET
        return params

    def _port_unavailable(self) -> CodedError:
        return CodedError(
            codes.PORT_UNAVAILABLE,
            f"cannot listen on {self.host}:{self.port}: the port is in use or the address is "
            "not this machine's (--port 0 picks a free port)",
        )
