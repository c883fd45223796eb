"""The suite's guard on the real home (tests/conftest.py): it sees a file written there."""

from __future__ import annotations


def test_the_home_guard_notices_a_write(tmp_path, snapshot):
    home = (tmp_path / "cache",)
    empty = snapshot(home)
    assert empty == {str(home[0]): None}
    home[0].mkdir()
    (home[0] / "g.npz").write_bytes(b"x")
    written = snapshot(home)
    assert written != empty and written[str(home[0])][0][:2] == ("g.npz", 1)
