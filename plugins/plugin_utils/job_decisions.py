# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PRIVATE: the outcome a fleet job records for each host, from its server's line of the job's control task.

The roles rolling_restart, maintenance and ensure_online run the same steps (the internal role
internal_fleet_job): one server_control task with ``hosts`` over the batch, carrying the job's gates,
then ``gamepanel_outcome`` = ``{result, reason, elapsed, pending}`` recorded on every host. The
decision is server_control's own (_rules/decision.py), made on the read each action is sent on; its
line of each host says what it found (status, uptime, players, the gate that held it, a restart the
ledger counts, nothing to do). This module turns a line into the host's outcome, in the words of the
job's own variables (_engine/messages.py holds every wording). The filter fleet_outcomes is the way
in from Jinja.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gamepanel.panel.plugins.module_utils._engine import messages as say
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ACTION_FOR_STATE
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import DEFAULT_STOPPED_STATUSES
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.decision import HELD_BY_PLAYERS, HELD_BY_STATUS
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_records import outcomes_by_job, record_items

RESTARTED, STARTED, UNCHANGED, SKIPPED, FAILED = "restarted", "started", "unchanged", "skipped", "failed"


class Job(object):
    """One fleet job: the variables its reasons name, and what its failures are called."""

    def __init__(self, name, noun, threshold=None, players=None, recent=say.COUNTS_AS_RESTARTED):
        self.name = name
        self.noun = noun  # "the restart failed", when the task said nothing
        self.threshold = threshold  # the variable named when a server is up for less than min_uptime
        self.players = players  # the variable named when a server is busy
        self.recent = recent  # what the job makes of a server up for less than its threshold


JOBS = {
    "rolling_restart": Job("rolling_restart", "restart", "rolling_restart_min_uptime", "rolling_restart_max_players"),
    "maintenance": Job(
        "maintenance", "action", "maintenance_restart_after", "maintenance_max_players", recent=say.NOT_DUE
    ),
    "ensure_online": Job("ensure_online", "start"),
}

# The result a confirmed action gives, and how it is said (confirmed, check mode).
DONE = {
    RESTARTED: (RESTARTED, say.RESTART_CONFIRMED, say.RESTART_WOULD),
    STARTED: (STARTED, say.START_CONFIRMED, say.START_WOULD),
}


def job_of(name):
    try:
        return JOBS[name]
    except (KeyError, TypeError):
        raise AnsibleFilterError("fleet job: unknown job %r (one of %s)." % (name, ", ".join(sorted(JOBS))))


def _number(value, default=0):
    if value is None or (isinstance(value, str) and value.strip() in ("", "None", "null")):
        return default
    return int(float(value)) if isinstance(value, str) else int(value)


def _flag(value):
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def _ran(registered):
    """The registered result of a control task that ran (not skipped), or None."""
    if not isinstance(registered, dict) or registered.get("skipped") or not registered:
        return None
    return registered


def _failed_whole(registered):
    """Whether the control task ``registered`` failed as a whole: it has no lines."""
    return not isinstance(registered.get("servers"), list)


def _lines(registered):
    """``{host: line}`` of a control task's result; None when the task failed whole (it has no lines)."""
    if _failed_whole(registered):
        return None
    return dict((line.get("host"), line) for line in registered["servers"] if isinstance(line, dict))


def canary_sent(registered):
    """Whether the control task ``registered`` sent (in check mode: would send) a canary."""
    canary = (_ran(registered) or {}).get("canary") or {}
    return bool(canary.get("ids"))


def _lost_canary(registered):
    """The canary of the control task ``registered`` that did not come back, or None."""
    canary = (_ran(registered) or {}).get("canary") or {}
    return canary if canary.get("ids") and canary.get("confirmed") is False else None


def outcomes(
    control,
    job_name,
    settings,
    hosts,
    check_mode=False,
    window=None,
    starts=None,
    canary_before=False,
    failure=None,
    canary_lost_before=None,
    run=None,
    records_before=None,
    play=None,
    beside=None,
):
    """Every host of a batch: ``{host: {"outcome", "ledger", "account", "job", "jobs", "play", "other_jobs"}}``.

    ``outcome``: the host's gamepanel_outcome; ``ledger``: its server's entries, or None; ``account``: the
    account its line names (server_control's label), or None; ``job``: the job's name.

    ``control``: the registered result of the job's server_control task (``hosts``); ``starts``: that of
    maintenance's second task (its starts), if it ran. A task that failed whole (no ``servers``) fails
    every host of it with its message. ``window``: maintenance's time_window result (outside it no task
    ran, every host is skipped with its reason). The outcome of a canary's host also holds ``canary``
    (what the task said of its canary), that of a host the task acted on ``pace``.
    ``failure``: the result of a step of the job that failed (the role's rescue): every host fails with it.
    ``run``: this job's id in this play of this run (opaque), kept in each outcome as ``run`` (fleet_summary
    counts the outcomes of its own) and in ``jobs``, where the job's next batch takes it from.
    ``play``: the ansible-playbook run and play recording them (opaque), kept in each record as ``play``: only
    records of the same ``play`` carry anything on.
    ``jobs``: every fleet job of the play so far, ``{job: {canary_sent, canary_lost, run}}``: whether its
    canary went out, in this batch or an earlier one (``canary_before``); the ids of its canary that did not
    come back, in this batch or an earlier one (``canary_lost_before``: no task ran, every host is skipped,
    saying so), else None; its ``run``. This job's, and those ``records_before`` carry (the records a batch
    read before it, a later one winning over an earlier), so that another fleet role recording after this
    one on a host passes this job's on.
    ``beside``: the record loop's results on the batch's first host, where another fleet role of the play
    may have just recorded this batch. Its ``jobs`` are carried on like ``records_before``. Each host's
    ``other_jobs`` (``{job: outcome}``) keeps the outcomes the other fleet jobs of the play recorded on it:
    gamepanel_outcome holds only the last one, and fleet_summary reads the others here.
    ``batch_failed``, the same in every record: whether a host of the batch failed, so that a step after the
    record reads one record instead of going over the batch's (once per host in a failed batch).
    """
    job = job_of(job_name)
    settings = dict(settings or {})
    window = dict(window or {})
    hosts = list(hosts or ())
    sent = bool(canary_before) or canary_sent(control) or canary_sent(starts)
    lost_before = list(canary_lost_before or ())
    lost_now = _lost_canary(control) or _lost_canary(starts) or {}
    lost = lost_before or list(lost_now.get("ids") or ()) or None
    beside_values = _record_values(beside, play)
    jobs = {}
    for before in list(records_before or ()) + list(beside_values.values())[:1]:
        if isinstance(before, dict) and play is not None and before.get("play") == play:
            jobs.update(before.get("jobs") or {})
    jobs[job.name] = {"canary_sent": sent, "canary_lost": lost, "run": run}

    def recorded(outcome, ledger=None, account=None, host=None):
        """What the record step sets on a host, and what the next batch (and the summary) read of this job on it."""
        if run is not None:
            outcome = dict(outcome, run=run)
        return {
            "outcome": outcome,
            "ledger": ledger,
            "account": account,
            "job": job.name,
            "jobs": jobs,
            "play": play,
            "other_jobs": _other_jobs(beside_values.get(host), job.name),
        }

    # a step that failed whole, a canary lost before, or outside the window: every host the same outcome
    every = None
    if failure is not None:
        every = _failed(job, (failure or {}).get("msg"), None, 0.0)
    elif lost_before:
        every = _left(SKIPPED, say.not_sent_reason(", ".join(lost_before)))
    elif not window.get("inside", True):
        every = _left(SKIPPED, window.get("reason") or say.OUTSIDE_WINDOW)
    if every is not None:
        return _batch_marked(dict((host, recorded(dict(every), host=host)) for host in hosts))
    first, second = _ran(control), _ran(starts)
    first_state = STARTED if job.name == "ensure_online" else RESTARTED
    # each task's lines by host, made once: a batch's hosts each look theirs up
    first_lines, second_lines = _lines(first or {}) or {}, _lines(second or {})
    found = {}
    for host in hosts:
        registered, state = first, first_state
        line = first_lines.get(host)
        if job.name == "maintenance" and _held_on_first_read(line, HELD_BY_STATUS):
            registered, state, line = _maintenance_start(host, line, settings, control, second, second_lines)
        result = _outcome(job, state, settings, registered, line, host, check_mode)
        ledger = ((registered or {}).get("ledger") or {}).get(host)
        found[host] = recorded(result, ledger, (line or {}).get("account"), host)
    return _batch_marked(found)


def _batch_marked(records):
    """``records`` (by host), each told whether a host of the batch failed (``batch_failed``)."""
    failed = any(record["outcome"].get("result") == FAILED for record in records.values())
    for record in records.values():
        record["batch_failed"] = failed
    return records


def _record_values(results, play):
    """``{host: record}`` of a record loop's ``results`` (a registered loop of set_fact) recorded in ``play``."""
    if play is None:
        return {}
    return dict((host, value) for host, value in record_items(results) if value.get("play") == play)


def _other_jobs(record, job_name):
    """The outcomes the other fleet jobs of the play recorded on a host (``record``: the latest on it), by job."""
    found = outcomes_by_job(record) if record else {}
    found.pop(job_name, None)
    return found


def _held_on_first_read(line, gate):
    """Whether ``gate`` held the line's server back on the read the task's decision was first made on.

    A server whose players were waited for (drain_timeout) was judged again on later reads: the task's
    own words say what it found, and a stop seen then is no start for this run.
    """
    return bool(line) and line.get("held_by") == gate and not line.get("failed") and not line.get("drained")


def _maintenance_start(host, line, settings, control, starts, start_lines):
    """``(registered, state, line)`` of a host maintenance's restarts left alone because it was not online.

    ``starts``: the registered result of the task that started the stopped ones, if it ran; ``start_lines``
    its lines by host (None when it failed whole).
    """
    stopped = list(settings.get("stopped_statuses") or DEFAULT_STOPPED_STATUSES)
    status = line.get("status")
    if status not in stopped:
        return None, STARTED, _skip_line(line, say.neither_online_nor_stopped(status))
    if not _flag(settings.get("start_stopped")):
        return None, STARTED, _skip_line(line, say.start_stopped_off(status))
    lost = _lost_canary(control)
    if lost is not None:
        return None, STARTED, _skip_line(line, say.not_sent_reason(", ".join(lost["ids"])))
    started = (start_lines or {}).get(host)
    if starts is not None and (started is not None or start_lines is None):
        return starts, STARTED, started
    return None, STARTED, _skip_line(line, say.LEFT_ALONE)


def _skip_line(line, reason):
    """A line the job words itself: nothing was sent, for ``reason``."""
    return dict(line, changed=False, failed=False, held_by=None, skipped_reason=reason, worded=True)


def _left(result, reason):
    return {"result": result, "reason": reason, "elapsed": 0.0, "pending": None}


def _pending(line):
    """The line's ``pending`` (the ledger entry its decision relied on) as the outcome keeps it, or None."""
    entry = line.get("pending") if isinstance(line, dict) else None
    if not isinstance(entry, dict) or not entry:
        return None
    return dict((key, entry.get(key)) for key in ("id", "action", "queued_at", "state"))


def _elapsed(registered):
    try:
        return float((registered or {}).get("elapsed") or 0)
    except (TypeError, ValueError):
        return 0.0


def _outcome(job, state, settings, registered, line, host, check_mode):
    """The host's outcome from its ``line`` of the task ``registered`` that ran it for ``state``."""
    found = _line_or_task_outcome(job, state, settings, registered, line, host, check_mode)
    canary = (registered or {}).get("canary") or {}
    if host in (canary.get("hosts") or ()):
        found["canary"] = canary.get("msg")
    if (registered or {}).get("pace") and (line or {}).get("changed"):
        found["pace"] = registered["pace"]
    return found


def _line_or_task_outcome(job, state, settings, registered, line, host, check_mode):
    if line is None:
        if registered is not None and _failed_whole(registered):  # every host with it
            return _failed(job, registered.get("msg"), None, _elapsed(registered))
        return _failed(job, None, None, _elapsed(registered))
    if line.get("id") is None and line.get("failed"):
        return _left(FAILED, say.not_a_fleet_host(host))
    entry = _pending(line)
    if line.get("failed"):
        return _failed(job, line.get("msg"), entry, _elapsed(registered))
    found = _line_outcome(job, state, settings, line, entry, check_mode)
    if found["result"] in (RESTARTED, STARTED) or found["pending"] is not None:
        found["elapsed"] = _elapsed(registered)
    return found


def _failed(job, message, entry, elapsed):
    # server_control names a pending entry in a failure only when it followed it (nothing new sent)
    reason = message or say.job_failed(job.noun)
    if entry and "nothing new" not in reason.lower():
        reason = "%s (%s)" % (reason, say.pending_note(entry))
    return {"result": FAILED, "reason": reason, "elapsed": elapsed, "pending": entry}


def _line_outcome(job, state, settings, line, entry, check_mode):
    done, confirmed, would = DONE[state]
    same = entry if entry and entry.get("action") == ACTION_FOR_STATE[state] else None
    if line.get("skipped_reason"):
        return _left(SKIPPED, _skip_reason(job, state, settings, line))
    if line.get("changed"):
        reason = would if check_mode else confirmed
        if entry and not same:  # another action was open: this one was sent as asked, the ledger named it
            reason = "%s; %s" % (reason, say.still_held([entry]))
        return {"result": done, "reason": reason, "elapsed": 0.0, "pending": None}
    if same and same.get("state") == "done":
        # a restart the ledger holds as done within min_uptime counts as the restart
        return _left(UNCHANGED, say.counted_note(same))
    if same:
        # the action an earlier run queued was applied while this run waited for it, or is still open
        if line.get("converged"):
            return {
                "result": done,
                "reason": "%s: %s" % (confirmed, say.pending_note(same)),
                "elapsed": 0.0,
                "pending": same,
            }
        return {"result": UNCHANGED, "reason": say.pending_note(same), "elapsed": 0.0, "pending": same}
    if state == RESTARTED:
        threshold = settings.get("restart_after" if job.name == "maintenance" else "min_uptime", "?")
        uptime = line.get("uptime_seconds")
        return _left(
            UNCHANGED, say.below_threshold("?" if uptime is None else uptime, job.threshold, threshold, job.recent)
        )
    return _left(UNCHANGED, say.ONLINE_ALREADY)


def _skip_reason(job, state, settings, line):
    """Why the job left the host alone: in its own variables' words where a gate held it on the first read."""
    if line.get("worded"):
        return line["skipped_reason"]
    if _held_on_first_read(line, HELD_BY_STATUS):
        status = line.get("status")
        if job.name == "rolling_restart":
            return say.not_online_left_alone(status)
        if job.name == "ensure_online":
            return say.not_a_stopped_status(status)
        return say.neither_online_nor_stopped(status)
    # with drain_timeout the task's words say how long it waited, or that check mode does not wait
    if _held_on_first_read(line, HELD_BY_PLAYERS) and job.players and _number(settings.get("drain_timeout")) == 0:
        return say.busy_left_alone(line.get("players"), job.players, settings.get("max_players"))
    return line["skipped_reason"]
