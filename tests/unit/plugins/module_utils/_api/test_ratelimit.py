# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""SharedBudget: the sliding window, what answers teach it, file hygiene, degradation, real processes."""

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

from ansible_collections.gamepanel.panel.plugins.module_utils._api import ratelimit
from ansible_collections.gamepanel.panel.plugins.module_utils._api.ratelimit import (
    COUNTED_SECONDS,
    WINDOW_SECONDS,
    SharedBudget,
    announced_limit,
    limit_warning,
    pace_words,
    rate_limit_headers,
)

from panel_fakes import TOKEN, FakeClock

KEY = hashlib.sha256(TOKEN.encode()).hexdigest()


def budget_file(directory):
    return Path(directory) / (KEY + ".budget")


def stamps_in(directory):
    return json.loads(budget_file(directory).read_text())["stamps"]


def answered(budget, status=200, **headers):
    budget.observe(status, headers)


def test_slots_are_free_until_the_window_is_full(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(KEY, 3, directory=str(tmp_path), clock=clock)
    waits = []
    for unused in range(3):
        waits.append(budget.acquire())
        answered(budget)
    assert waits == [0.0, 0.0, 0.0] and clock.sleeps == []
    # The fourth waits until the first stamp has counted for the panel's minute plus the wire margin.
    assert budget.acquire() == pytest.approx(COUNTED_SECONDS)
    assert COUNTED_SECONDS > 60.0


def test_window_slides(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(KEY, 2, directory=str(tmp_path), clock=clock)
    budget.acquire()
    answered(budget)
    clock.now += 20
    budget.acquire()
    clock.now += 30  # t=50: the window still holds both
    assert budget.acquire() == pytest.approx(COUNTED_SECONDS - 50)
    assert budget.acquire() == pytest.approx(20.0)  # the t=20 stamp ages out 20 s after the t=0 one


def test_a_quiet_minute_allows_the_whole_rate_at_once_even_before_any_answer(tmp_path):
    """No request recorded in the last minute: rate_limit requests go at once, no probe, no answer awaited."""
    clock = FakeClock()
    first = SharedBudget(KEY, 100, directory=str(tmp_path), clock=clock)
    second = SharedBudget(KEY, 100, directory=str(tmp_path), clock=clock)
    waits = [budget.acquire() for budget in (first, second) * 50]  # no answer observed in between
    assert waits == [0.0] * 100 and clock.sleeps == []
    assert first.acquire() == pytest.approx(COUNTED_SECONDS)


def test_the_budget_starts_from_the_history_recorded_in_the_state_file(tmp_path):
    """A later process (a later run) sees what this controller sent in the last minute, and only that."""
    clock = FakeClock()
    earlier = SharedBudget(KEY, 10, directory=str(tmp_path), clock=clock)
    for unused in range(6):
        earlier.acquire()
        answered(earlier)
    clock.now += 30
    later = SharedBudget(KEY, 10, directory=str(tmp_path), clock=clock)
    assert [later.acquire() for unused in range(4)] == [0.0] * 4  # the 4 left of the minute go at once
    assert later.acquire() == pytest.approx(COUNTED_SECONDS - 30)  # then the first 6 must age out
    clock.now += COUNTED_SECONDS  # a run a minute later: everything aged out, a whole minute again
    fresh = SharedBudget(KEY, 10, directory=str(tmp_path), clock=clock)
    assert [fresh.acquire() for unused in range(10)] == [0.0] * 10


def test_an_old_probe_mark_in_the_file_is_ignored(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(KEY, 3, directory=str(tmp_path), clock=clock)
    Path(budget.path).write_text(json.dumps({"stamps": [], "probe_until": clock.time() + 2.0}))
    assert [budget.acquire() for unused in range(3)] == [0.0] * 3
    assert "probe_until" not in json.loads(Path(budget.path).read_text())


def _sent_at(rate_limit, duration, step):
    """The instants at which a greedy client on this budget sends, trying every ``step`` seconds."""
    clock = FakeClock(start=0.0)
    budget = SharedBudget(KEY, rate_limit, directory=None, clock=clock)
    budget.files.usable = False  # the rules alone, per process
    sent = []
    while clock.now < duration:
        if budget.acquire(max_wait=0.0) is not None:
            sent.append(clock.now)
            answered(budget)
        else:
            clock.now += step
    return sent


def _most_in_any_window(instants, width):
    return max(sum(1 for other in instants if start <= other < start + width) for start in instants)


@pytest.mark.parametrize("rate_limit", [1, 7, 120])
def test_never_more_than_rate_limit_in_any_sliding_minute_and_so_in_any_calendar_minute(rate_limit):
    """The sliding minute's rule (with the wire margin) is the stricter one: it holds for a fixed minute too.

    A fixed (calendar) minute would allow rate_limit at the end of one minute and again at the start
    of the next; a sliding minute refuses the second lot, so the budget never sends it."""
    sent = _sent_at(rate_limit, duration=400.0, step=0.25)
    assert sent[:rate_limit] == [0.0] * rate_limit  # the first minute at once
    assert _most_in_any_window(sent, COUNTED_SECONDS) == rate_limit
    for offset in (0.0, 17.5, 59.75):  # calendar minutes, wherever they start
        per_minute = {}
        for instant in sent:
            minute = int((instant + offset) // WINDOW_SECONDS)
            per_minute[minute] = per_minute.get(minute, 0) + 1
        assert max(per_minute.values()) <= rate_limit
    # And it does spend what the panel allows: rate_limit per counted window, back to back.
    assert len(sent) >= rate_limit * int(400.0 // (COUNTED_SECONDS + 0.25))


def test_a_429_from_another_spender_with_a_fixed_minute_pauses_until_the_minute_turns(tmp_path):
    """A calendar-minute panel answers 429 with the seconds to the next minute: every process waits that long,
    then goes at the plan's pace (not a second burst into a minute someone else may be spending too)."""
    clock = FakeClock()
    budget = SharedBudget(KEY, 6, directory=str(tmp_path), clock=clock)
    other_process = SharedBudget(KEY, 6, directory=str(tmp_path), clock=clock)
    budget.acquire()
    answered(budget, 429, **{"Retry-After": "42"})
    assert other_process.acquire() == pytest.approx(42.0)
    assert other_process.acquire() == pytest.approx(WINDOW_SECONDS / 6)
    # Once the evidence is older than a minute, the budget is back to its own history alone.
    clock.now += COUNTED_SECONDS
    assert [other_process.acquire() for unused in range(6)] == [0.0] * 6


def test_headers_reveal_requests_spent_elsewhere(tmp_path):
    """The panel says 2 remain, we counted 1 of 10: 7 were spent by someone else until the reset."""
    clock = FakeClock()
    budget = SharedBudget(KEY, 10, directory=str(tmp_path), clock=clock)
    budget.acquire()
    answered(budget, **{"X-RateLimit-Remaining": "2", "X-RateLimit-Reset": "30"})
    assert len(stamps_in(tmp_path)) == 8
    assert [budget.acquire(), budget.acquire()] == [0.0, 0.0]
    # The window is full now; the foreign requests leave it when the panel's window resets (in 30 s).
    assert budget.acquire() == pytest.approx(30.0)


def test_headers_saying_more_remain_than_we_think_change_nothing(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(KEY, 10, directory=str(tmp_path), clock=clock)
    budget.acquire()
    answered(budget, **{"RateLimit-Remaining": "9", "RateLimit-Reset": "60"})
    assert len(stamps_in(tmp_path)) == 1


def test_header_forms():
    now = 1_700_000_000.0
    assert rate_limit_headers({"X-RateLimit-Remaining": "5", "X-RateLimit-Reset": "12"}, now) == (5, 12.0)
    assert rate_limit_headers({"RateLimit-Remaining": "0", "RateLimit-Reset": "3"}, now) == (0, 3.0)
    assert rate_limit_headers({"RateLimit": "limit=100, remaining=40, reset=7"}, now) == (40, 7.0)
    assert rate_limit_headers({"X-RateLimit-Reset": str(now + 20)}, now) == (None, 20.0)  # an epoch time stamp
    assert rate_limit_headers({}, now) == (None, None)
    assert rate_limit_headers({"X-RateLimit-Remaining": "lots"}, now) == (None, None)


def test_a_429_stops_every_process_until_retry_after_and_keeps_its_slot(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(KEY, 10, directory=str(tmp_path), clock=clock)
    other = SharedBudget(KEY, 10, directory=str(tmp_path), clock=clock)
    budget.acquire()
    answered(budget, 429, **{"Retry-After": "7"})
    # The rejected request still counts (a panel may count it), and the window is taken as full.
    assert len(stamps_in(tmp_path)) == 10
    assert other.acquire() == pytest.approx(7.0)
    # After the pause, the panel's slots free one by one at the plan's pace (10 a minute: every 6 s).
    assert other.acquire() == pytest.approx(6.0)


def test_a_429_without_any_hint_waits_for_the_window(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(KEY, 10, directory=str(tmp_path), clock=clock)
    budget.acquire()
    clock.now += 5
    answered(budget, 429)
    assert budget.acquire() == pytest.approx(COUNTED_SECONDS - 5)


def test_budget_is_shared_by_instances_on_the_same_file(tmp_path):
    clock = FakeClock()
    first = SharedBudget(KEY, 2, directory=str(tmp_path), clock=clock)
    second = SharedBudget(KEY, 2, directory=str(tmp_path), clock=clock)
    assert first.shared and second.shared
    first.acquire()
    answered(first)
    second.acquire()
    assert first.acquire() == pytest.approx(COUNTED_SECONDS)


def test_other_tokens_have_their_own_budget(tmp_path):
    clock = FakeClock()
    SharedBudget(KEY, 1, directory=str(tmp_path), clock=clock).acquire()
    assert SharedBudget("f" * 64, 1, directory=str(tmp_path), clock=clock).acquire() == 0.0


def test_zero_rate_limit_disables_pacing(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(KEY, 0, directory=str(tmp_path), clock=clock)
    assert all(budget.acquire() == 0.0 for unused in range(1000))
    answered(budget, 429, **{"Retry-After": "30"})
    assert budget.acquire() == 0.0


def test_file_is_named_by_the_key_holds_no_token_and_stays_small(tmp_path):
    clock = FakeClock()
    directory = tmp_path / "state"
    budget = SharedBudget(KEY, 5, directory=str(directory), clock=clock)
    for unused in range(200):
        budget.acquire()
        answered(budget)
        clock.now += 1
    path = budget_file(directory)
    assert Path(budget.path) == path
    assert os.listdir(directory) == [path.name]
    content = path.read_text()
    assert TOKEN not in content and TOKEN not in repr(budget)
    assert len(stamps_in(directory)) <= 5  # pruned to the window
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600


def test_unusable_directory_degrades_to_a_local_budget(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    clock = FakeClock()
    budget = SharedBudget(KEY, 2, directory=str(blocker / "state"), clock=clock)
    assert not budget.shared
    assert budget.acquire() == 0.0
    answered(budget)
    assert budget.acquire() == 0.0
    assert budget.acquire() == pytest.approx(COUNTED_SECONDS)


def test_file_removed_underneath_degrades_without_crashing(tmp_path):
    clock = FakeClock()
    directory = tmp_path / "state"
    budget = SharedBudget(KEY, 2, directory=str(directory), clock=clock)
    budget.acquire()
    os.remove(budget.path)
    os.rmdir(directory)
    assert budget.acquire() == 0.0
    assert not budget.shared


def test_garbage_in_the_file_is_ignored(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(KEY, 2, directory=str(tmp_path), clock=clock)
    Path(budget.path).write_text("garbage\n\x00\x01\n")
    assert budget.acquire() == 0.0
    Path(budget.path).write_text(json.dumps({"stamps": ["x", None, clock.time()], "blocked_until": "soon"}))
    assert budget.acquire() == 0.0
    assert budget.acquire() == pytest.approx(COUNTED_SECONDS)


def test_stamps_and_blocks_from_a_clock_set_back_do_not_block(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(KEY, 1, directory=str(tmp_path), clock=clock)
    Path(budget.path).write_text(json.dumps({"stamps": [clock.time() + 3600], "blocked_until": clock.time() + 7200}))
    assert budget.acquire() == 0.0


# -- across processes ---------------------------------------------------------------------------

CHILD = textwrap.dedent('''
    import json, os, sys, time
    sys.path.insert(0, sys.argv[1])
    from ansible_collections.gamepanel.panel.plugins.module_utils._api.ratelimit import SharedBudget

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
    budget = SharedBudget(os.environ["CHILD_KEY"], rate_limit, directory=directory, clock=FrozenClock())
    deadline = time.time() + 20
    while not os.path.exists(go_file) and time.time() < deadline:
        time.sleep(0.005)  # start together, to make the processes really contend for the lock
    granted, wait = 0, None
    for unused in range(attempts):
        try:
            budget.acquire()
            budget.observe(200, {})  # the answer: no probe pending for the others
        except WouldWait as exc:
            wait = exc.args[0]
            break
        granted += 1
    print(json.dumps({"granted": granted, "wait": wait, "shared": budget.shared}))
''')


def test_budget_is_shared_across_processes(tmp_path):
    """Two processes draw from one budget: together they get exactly rate_limit slots, no more."""
    # <root>/ansible_collections/gamepanel/panel/plugins/module_utils/_api/ratelimit.py
    collections_root = str(Path(ratelimit.__file__).parents[6])
    go_file = tmp_path / "go"
    rate_limit = 40
    env = dict(os.environ, CHILD_KEY=KEY)
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, collections_root, str(tmp_path), str(rate_limit), "35", str(go_file)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
            text=True,
        )
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
    # Whoever did not get a slot was told to wait for the window to slide.
    waits = [output["wait"] for output in outputs if output["granted"] < 35]
    assert waits and all(wait == pytest.approx(COUNTED_SECONDS) for wait in waits)
    assert len(stamps_in(tmp_path)) == rate_limit


def test_window_constant_is_a_minute():
    assert ratelimit.WINDOW_SECONDS == 60.0


def test_a_bounded_acquire_gives_up_without_taking_a_slot_or_sleeping_past_its_bound(tmp_path):
    clock = FakeClock()
    budget = SharedBudget(KEY, 2, directory=str(tmp_path), clock=clock)
    for unused in range(2):
        budget.acquire()
        answered(budget)
    assert budget.acquire(max_wait=10.0) is None
    assert sum(clock.sleeps) <= 10.0
    assert len(stamps_in(tmp_path)) == 2  # giving up took no slot
    # A bound long enough for the window to free a slot waits for it, as without a bound.
    assert budget.acquire(max_wait=COUNTED_SECONDS + 1) == pytest.approx(COUNTED_SECONDS)


def test_the_limit_a_panel_announces_in_any_header_form():
    assert announced_limit({"X-RateLimit-Limit": "600"}) == 600
    assert announced_limit({"RateLimit-Limit": "120, 120;w=60"}) == 120
    assert announced_limit({"RateLimit": "limit=100, remaining=40, reset=7"}) == 100
    assert announced_limit({"RateLimit": "remaining=40, reset=7"}) is None
    assert announced_limit({"X-RateLimit-Limit": "many"}) is None
    assert announced_limit({}) is None


def test_the_pace_and_the_advice_in_words():
    assert pace_words(120) == "paced at 120 requests a minute (rate_limit)"
    assert pace_words(0) == "not paced (rate_limit 0)"
    more = limit_warning(600, 120)
    assert more.startswith(
        "The panel's rate-limit headers allow this token 600 requests a minute, but rate_limit is 120"
    )
    assert "set rate_limit: 600 to use all of it" in more
    assert "set rate_limit: 100 (or less), or the panel refuses the requests beyond it (429)" in limit_warning(100, 120)
