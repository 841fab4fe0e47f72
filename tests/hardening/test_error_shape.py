"""One error base class, one answer: every refusal the server gives, from whichever module,
has the same JSON shape (a stable code and a sentence, flat and under `error`) and keeps the
HTTP status it had before; the CLI prints an uncaught one as `error: code: sentence`, exit 2."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from asiworld import cli
from asiworld.agents.clients import interface, sdk
from asiworld.engine.errors import CodedError, Refusal
from asiworld.evaluation.report import ReportError
from asiworld.headless.multi import RayUnavailable
from asiworld.replay.format import ReplayError
from asiworld.server import assessment, errors, sockets, validation
from asiworld.study.spec import StudyError

from tests.hardening.conftest import ADMIN, agent, bearer

# The bad inputs tried: (method, path, body, headers-kind, HTTP status, code).
BAD_REQUESTS = [
    ("post", "/api/agents/join", {"name": ""}, None, 422, "bad_name"),
    ("post", "/api/agents/join", {"name": "ada", "extra": 1}, None, 422, "unknown_argument"),
    ("post", "/api/agents/join", "not json", None, 400, "bad_json"),
    ("get", "/api/agents/{cid}/observe", None, None, 401, "missing_token"),
    ("get", "/api/agents/{cid}/observe?format=xml", None, "bearer", 422, "bad_format"),
    ("post", "/api/agents/{cid}/act", {"action": {"type": "fly"}}, "bearer", 422, "unknown_action"),
    ("post", "/api/agents/{cid}/act", {"action": {"type": "craft", "recipe": "plank", "count": 51}},
     "bearer", 422, "bad_argument"),
    ("post", "/api/agents/{cid}/act", {"action": {"type": "gather"}}, "bearer", 422,
     "bad_argument"),
    ("post", "/api/agents/{cid}/act", {"action": {"type": "eat", "item": ""}}, "bearer", 422,
     "bad_argument"),
    ("get", "/api/agents/{cid}/programs/99", None, "bearer", 404, "unknown_program"),
    ("get", "/api/agents/{cid}/events?after=soon", None, "bearer", 422, "bad_argument"),
    ("post", "/admin/step", {"n": 0}, "admin", 422, "bad_argument"),
    ("post", "/admin/pause", None, None, 403, "not_admin"),
    ("get", "/api/replays/nothing-here", None, None, 404, "unknown_replay"),
    ("get", "/api/evaluation", None, None, 403, "not_spectator"),
    ("get", "/api/evaluation?run=../up", None, None, 400, "bad_run_name"),
    ("get", "/no/such/page", None, None, 404, "not_found"),
    ("delete", "/api/agents/join", None, None, 405, "method_not_allowed"),
]


@pytest.mark.parametrize("method,path,body,auth,status,code", BAD_REQUESTS,
                         ids=[f"{m} {p} {c}" for m, p, _, _, _, c in BAD_REQUESTS])
def test_every_refusal_has_the_one_shape_and_its_status(http, method, path, body, auth, status,
                                                         code):
    cid, token = agent(http)
    headers = {"bearer": bearer(token), "admin": {"X-Admin-Token": ADMIN}}.get(auth, {})
    kwargs = {"data": body} if isinstance(body, str) else {"json": body}
    reply = getattr(http, method)(path.format(cid=cid), headers=headers, **kwargs)
    answer = reply.get_json()
    assert (reply.status_code, answer["code"]) == (status, code), answer
    assert answer["ok"] is False and answer["message"].strip()
    assert answer["error"]["code"] == code and answer["error"]["message"] == answer["message"]


def test_socket_refusals_have_the_same_shape_and_name_the_event(sock):
    client = sock("/")
    answer = client.emit("act", {"token": "nobody", "action": {"type": "wait"}}, callback=True)
    assert answer["ok"] is False and answer["event"] == "act"
    assert answer["error"] == {"code": answer["code"], "message": answer["message"]}


@pytest.mark.parametrize("error", [
    Refusal("no_path", "no path"),
    validation.Invalid("bad_name", "bad name"),
    errors.ApiError("unknown_program", "no program"),
    assessment.RunResultsError("bad_run_name", "bad run"),
    sockets.BadEvent("bad_token", "no token"),
    ReportError("no_runs", "no runs"),
    ReplayError("unknown_replay", "no replay"),
    sdk.ApiError(500, "server_error", "broken"),
    sdk.ServerUnreachable("refused"),
    interface.InterfaceError("not_an_agent", "no decide"),
    StudyError("bad_study", "bad study"),
    RayUnavailable("no ray"),
], ids=lambda e: type(e).__name__)
def test_every_code_and_message_error_is_a_coded_error(error):
    assert isinstance(error, CodedError)
    assert error.to_dict()["code"] == error.code and error.message


def test_the_cli_prints_an_uncaught_coded_error_as_a_sentence_and_exits_2(monkeypatch, capsys):
    def refuse(_args):
        raise ReplayError("unknown_replay", "there is no replay 'x'")

    parser = cli.build_parser()
    monkeypatch.setattr(cli, "build_parser", lambda: parser)
    monkeypatch.setattr(parser, "parse_args", lambda argv: SimpleNamespace(func=refuse))
    assert cli.main([]) == 2
    err = capsys.readouterr().err
    assert err.strip() == "error: unknown_replay: there is no replay 'x'"
    assert "Traceback" not in err
