"""Transcripts are appended to across a resume: calls already written are not written again,
a line torn by a kill is dropped, and numbering goes on from the last whole call."""

from __future__ import annotations

from asiworld.agents.clients.transcript import Transcript, read_transcript


def line(call: int) -> dict:
    return {"call": call, "turn": call, "attempt": 1, "tick_sent": call * 3, "error": None}


def test_a_resume_appends_and_skips_calls_already_written(tmp_path):
    path = tmp_path / "t" / "a.jsonl"
    first = Transcript(path)
    assert [first.write(line(n)) for n in (1, 2, 3)] == [True] * 3
    first.close()
    again = Transcript(path)
    assert again.last_call == 3
    assert again.write(line(2)) is False and again.write(line(4)) is True
    again.close()
    assert [r["call"] for r in read_transcript(path)] == [1, 2, 3, 4]


def test_a_line_torn_by_a_kill_is_dropped_and_written_again(tmp_path):
    path = tmp_path / "a.jsonl"
    t = Transcript(path)
    t.write(line(1))
    t.close()
    with path.open("a") as fh:
        fh.write('{"call": 2, "turn"')  # the kill came mid-line
    resumed = Transcript(path)
    assert resumed.last_call == 1
    assert resumed.write(line(2)) is True
    resumed.close()
    assert [r["call"] for r in read_transcript(path)] == [1, 2]
