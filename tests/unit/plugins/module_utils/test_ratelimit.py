# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""SharedBudget: sliding window, file hygiene, degradation, and sharing across real processes."""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from ansible_collections.gamepanel.panel.plugins.module_utils import ratelimit
from ansible_collections.gamepanel.panel.plugins.module_utils.ratelimit import SharedBudget

from panel_fakes import TOKEN, FakeClock


def budget_file(directory):
    return Path(directory) / (hashlib.sha256(TOKEN.encode()).hexdigest() + ".budget")


def test_slots_are_free_until_the_window_is_full(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(TOKEN, 3, directory=str(tmp_path), clock=clock)
    assert [budget.acquire() for unused in range(3)] == [0.0, 0.0, 0.0]
    assert clock.sleeps == []
    # The fourth waits until the first stamp leaves the 60 s window.
    assert budget.acquire() == pytest.approx(60.0)
    assert clock.sleeps == [pytest.approx(60.0)]


def test_window_slides(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(TOKEN, 2, directory=str(tmp_path), clock=clock)
    budget.acquire()
    clock.now += 20
    budget.acquire()
    clock.now += 30  # t=50: the window still holds both
    assert budget.acquire() == pytest.approx(10.0)  # the t=0 stamp expires at t=60
    assert budget.acquire() == pytest.approx(20.0)  # the t=20 stamp expires at t=80


def test_budget_is_shared_by_instances_on_the_same_file(tmp_path):
    clock = FakeClock()
    first = SharedBudget(TOKEN, 2, directory=str(tmp_path), clock=clock)
    second = SharedBudget(TOKEN, 2, directory=str(tmp_path), clock=clock)
    assert first.shared and second.shared
    first.acquire()
    second.acquire()
    assert first.acquire() == pytest.approx(60.0)


def test_other_tokens_have_their_own_budget(tmp_path):
    clock = FakeClock()
    SharedBudget(TOKEN, 1, directory=str(tmp_path), clock=clock).acquire()
    assert SharedBudget("another-token", 1, directory=str(tmp_path), clock=clock).acquire() == 0.0


def test_zero_rate_limit_disables_pacing(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(TOKEN, 0, directory=str(tmp_path), clock=clock)
    assert all(budget.acquire() == 0.0 for unused in range(1000))


def test_file_is_named_by_hash_holds_no_token_and_stays_small(tmp_path):
    clock = FakeClock()
    directory = tmp_path / "state"
    budget = SharedBudget(TOKEN, 5, directory=str(directory), clock=clock)
    for unused in range(200):
        budget.acquire()
        clock.now += 1
    path = budget_file(directory)
    assert Path(budget.path) == path
    assert os.listdir(directory) == [path.name]
    content = path.read_bytes()
    assert TOKEN.encode() not in content
    assert TOKEN not in repr(budget)
    assert len(content.splitlines()) <= 5  # pruned to the window
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_state_dir_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("GAMEPANEL_STATE_DIR", str(tmp_path / "from-env"))
    budget = SharedBudget(TOKEN, 5, clock=FakeClock())
    assert Path(budget.path).parent == tmp_path / "from-env"


def test_default_state_dir(tmp_path, monkeypatch):
    monkeypatch.delenv("GAMEPANEL_STATE_DIR", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    budget = SharedBudget(TOKEN, 5, clock=FakeClock())
    assert Path(budget.path).parent == tmp_path / ".ansible" / "tmp" / "gamepanel"


def test_unusable_directory_degrades_to_a_local_budget(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    clock = FakeClock()
    budget = SharedBudget(TOKEN, 2, directory=str(blocker / "state"), clock=clock)
    assert not budget.shared
    assert [budget.acquire(), budget.acquire()] == [0.0, 0.0]
    assert budget.acquire() == pytest.approx(60.0)


def test_file_removed_underneath_degrades_without_crashing(tmp_path):
    clock = FakeClock()
    directory = tmp_path / "state"
    budget = SharedBudget(TOKEN, 2, directory=str(directory), clock=clock)
    budget.acquire()
    os.remove(budget.path)
    os.rmdir(directory)
    assert budget.acquire() == 0.0
    assert not budget.shared


def test_garbage_in_the_file_is_ignored(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(TOKEN, 2, directory=str(tmp_path), clock=clock)
    Path(budget.path).write_text("garbage\n%f\n\x00\x01\n" % clock.time())
    assert budget.acquire() == 0.0
    assert budget.acquire() == pytest.approx(60.0)


def test_stamps_from_a_clock_set_back_do_not_block(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(TOKEN, 1, directory=str(tmp_path), clock=clock)
    Path(budget.path).write_text("%f\n" % (clock.time() + 3600))
    assert budget.acquire() == 0.0


# -- across processes ---------------------------------------------------------------------------

CHILD = textwrap.dedent('''
    import json, os, sys, time
    sys.path.insert(0, sys.argv[1])
    from ansible_collections.gamepanel.panel.plugins.module_utils.ratelimit import SharedBudget

    class WouldWait(Exception):
        pass

    class FrozenClock:
        """Every process sees the same instant; a wait ends the run instead of sleeping."""
        def monotonic(self):
            return 5000.0
        def time(self):
            return 1700000000.0
        def sleep(self, seconds):
            raise WouldWait(seconds)

    directory, rate_limit, attempts, go_file = sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
    budget = SharedBudget(os.environ["CHILD_TOKEN"], rate_limit, directory=directory, clock=FrozenClock())
    deadline = time.time() + 20
    while not os.path.exists(go_file) and time.time() < deadline:
        time.sleep(0.005)  # start together, to make the processes really contend for the lock
    granted, wait = 0, None
    for unused in range(attempts):
        try:
            budget.acquire()
        except WouldWait as exc:
            wait = exc.args[0]
            break
        granted += 1
    print(json.dumps({"granted": granted, "wait": wait, "shared": budget.shared}))
''')


def test_budget_is_shared_across_processes(tmp_path):
    """Two processes draw from one budget: together they get exactly rate_limit slots, no more."""
    # <root>/ansible_collections/gamepanel/panel/plugins/module_utils/ratelimit.py
    collections_root = str(Path(ratelimit.__file__).parents[5])
    go_file = tmp_path / "go"
    rate_limit = 40
    env = dict(os.environ, CHILD_TOKEN=TOKEN)
    children = [
        subprocess.Popen([sys.executable, "-c", CHILD, collections_root, str(tmp_path), str(rate_limit), "35",
                          str(go_file)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, text=True)
        for unused in range(3)
    ]
    go_file.write_text("go")
    outputs = []
    for child in children:
        stdout, stderr = child.communicate(timeout=60)
        assert child.returncode == 0, stderr
        outputs.append(json.loads(stdout))
    assert all(output["shared"] for output in outputs)
    assert sum(output["granted"] for output in outputs) == rate_limit
    # Whoever did not get a slot was told to wait for the window to slide: 60 s on a frozen clock.
    assert all(output["wait"] == pytest.approx(60.0) for output in outputs if output["granted"] < 35)
    content = budget_file(tmp_path).read_text()
    assert TOKEN not in content
    assert len(content.splitlines()) == rate_limit


def test_window_constant_is_a_minute():
    assert ratelimit.WINDOW_SECONDS == 60.0
