"""The pipe framing between the engine side and the program host.

Bad inputs tried: two frames arriving in one read, a frame split byte by byte across reads, a
reply that never comes (the deadline), and a pipe closed mid-frame.
"""

from __future__ import annotations

import os
import time

import pytest

from app.programs.host import FrameReader, HostCrashed, encode_frame, write_frame


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
