"""The pipe framing between the engine side and the program host.

Bad inputs tried: two frames arriving in one read, a frame split byte by byte across reads, a
reply that never comes (the deadline), a pipe closed mid-frame, a body that is not JSON (in
either encoding), and whole numbers too large for orjson.
"""

from __future__ import annotations

import os
import time

import pytest
from asiworld.programs.host import (
    FrameReader,
    HostCrashed,
    SpinWindow,
    decode_body,
    encode_body,
    encode_frame,
    poll_briefly,
    write_frame,
)


@pytest.fixture
def pipe():
    read_fd, write_fd = os.pipe()
    yield read_fd, write_fd
    for fd in (read_fd, write_fd):
        try:
            os.close(fd)
        except OSError:
            pass


def test_two_frames_in_one_read_are_both_delivered_in_order(pipe):
    read_fd, write_fd = pipe
    os.write(write_fd, encode_frame({"n": 1}) + encode_frame({"n": 2, "text": "é"}))
    reader = FrameReader(read_fd)
    assert reader.read(time.monotonic() + 5) == {"n": 1}
    assert reader.read(time.monotonic() + 5) == {"n": 2, "text": "é"}


def test_a_frame_split_into_single_bytes_is_put_back_together(pipe):
    read_fd, write_fd = pipe
    reader = FrameReader(read_fd)
    data = encode_frame({"runs": [[1, {"ok": True}, None]]})
    for i in range(len(data) - 1):
        os.write(write_fd, data[i : i + 1])
    os.write(write_fd, data[-1:])
    assert reader.read(time.monotonic() + 5) == {"runs": [[1, {"ok": True}, None]]}


def test_a_large_frame_is_written_whole_and_read_whole(pipe):
    read_fd, write_fd = pipe
    msg = {"source": "x" * 50_000}
    write_frame(write_fd, msg)  # fits the pipe's buffer, so no reader is needed to drain it
    assert FrameReader(read_fd).read(time.monotonic() + 5) == msg


def test_no_reply_before_the_deadline_counts_as_a_crashed_host(pipe):
    read_fd, _write_fd = pipe
    with pytest.raises(HostCrashed):
        FrameReader(read_fd).read(time.monotonic())


def test_a_pipe_closed_in_the_middle_of_a_frame_is_an_end_of_file(pipe):
    read_fd, write_fd = pipe
    os.write(write_fd, encode_frame({"n": 1})[:6])
    os.close(write_fd)
    with pytest.raises(EOFError):
        FrameReader(read_fd).read(time.monotonic() + 5)


def test_a_whole_number_past_64_bits_crosses_the_pipe_exactly(pipe):
    # orjson cannot write it; the json module does, and the reader must not turn it into a float
    read_fd, write_fd = pipe
    msg = {"action": {"type": "move_to", "x": 10**30, "y": -(2**70)}}
    write_frame(write_fd, msg)
    got = FrameReader(read_fd).read(time.monotonic() + 5)
    assert got == msg
    assert type(got["action"]["x"]) is int


def test_a_body_that_is_not_json_is_refused():
    with pytest.raises(ValueError):
        decode_body(b"{not json")
    with pytest.raises(ValueError):
        decode_body(b"J{not json either")


def test_messages_keep_their_meaning_through_a_frame():
    msg = {"runs": [[1, {"ok": False, "code": "blocked", "message": "a wall — ✗"}, None]], "n": 0.5}
    assert decode_body(encode_body(msg)) == msg
    # keys that are numbers become text, exactly as the json module would write them
    assert decode_body(encode_body({"counts": {3: "x"}})) == {"counts": {"3": "x"}}


def test_polling_sees_bytes_at_once_and_gives_up_after_its_window(pipe):
    read_fd, write_fd = pipe
    assert poll_briefly(read_fd, 0.001) is False
    os.write(write_fd, b"x")
    assert poll_briefly(read_fd, 10.0) is True  # returns at once, not after ten seconds


def test_the_spin_window_is_kept_only_while_answers_come_within_it():
    spin = SpinWindow(0.002)
    assert spin.next == 0.0  # nothing known yet: sleep
    spin.observe(0.0005)
    assert spin.next == 0.002  # a quick peer: poll for the next one
    spin.observe(0.1)
    assert spin.next == 0.0  # a slow one (a live world's tick interval): sleep again
