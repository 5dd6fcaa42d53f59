"""Whole files or none (:func:`core.runtime.atomic.atomic_write`): on a full disk nothing is left behind."""
from __future__ import annotations

import errno
import os

import pytest

from core.runtime.atomic import AtomicWriteError, atomic_write


def test_writes_bytes_and_text_making_the_folder(tmp_path):
    target = tmp_path / "a" / "b" / "out.json"
    assert atomic_write(target, "héllo") == target
    assert target.read_text(encoding="utf-8") == "héllo"
    atomic_write(target, b"\x00" * (3 << 20))  # more than one chunk
    assert target.stat().st_size == 3 << 20
    assert [p.name for p in target.parent.iterdir()] == ["out.json"]
    assert target.stat().st_mode & 0o777 == 0o644


def _full_disk(monkeypatch):
    def write(fd, data):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "write", write)


def test_a_full_disk_leaves_nothing_and_says_so_in_one_sentence(tmp_path, monkeypatch):
    target = tmp_path / "report.html"
    _full_disk(monkeypatch)
    with pytest.raises(AtomicWriteError) as info:
        atomic_write(target, "<html></html>")
    assert str(info.value) == f"cannot write {target} (the disk is full); nothing was written there."
    assert info.value.errno == errno.ENOSPC
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_keeps_the_file_that_was_there(tmp_path, monkeypatch):
    target = tmp_path / "result.zip"
    target.write_bytes(b"before")
    _full_disk(monkeypatch)
    with pytest.raises(OSError, match="the disk is full"):
        atomic_write(target, b"after")
    assert target.read_bytes() == b"before" and [p.name for p in tmp_path.iterdir()] == ["result.zip"]


def test_ctrl_c_while_writing_leaves_nothing(tmp_path, monkeypatch):
    def write(fd, data):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "write", write)
    with pytest.raises(KeyboardInterrupt):
        atomic_write(tmp_path / "x", b"data")
    assert list(tmp_path.iterdir()) == []


def test_a_folder_that_cannot_be_made_is_one_sentence(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("")
    with pytest.raises(AtomicWriteError, match=r"^cannot write .*out\.json \(.+\); nothing was written there\.$"):
        atomic_write(blocker / "out.json", "x")


def test_data_of_another_type_is_a_type_error(tmp_path):
    with pytest.raises(TypeError, match="bytes or a string"):
        atomic_write(tmp_path / "x", 3)
