# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""PRIVATE: what a fleet job decides for one host, and the outcome it records, in words.

The roles rolling_restart, maintenance and ensure_online run the same steps (the internal
role internal_fleet_job): read the fleet, decide per host, run server_control for the hosts that act,
record ``gamepanel_outcome`` = ``{result, reason, elapsed, pending}``.  The decision and every
reason a host is given are written here, once, in Python; the roles only name the job and
pass its settings.  The filters fleet_plans and fleet_outcomes are the way in from Jinja.

The decision on the fleet read is server_control's own (job_read_decision.control_plan, which runs
the module's decision code); this module adds what only a job knows (the inventory's status, the
maintenance window, whether the job may start a server) and the wording.  The public filters call a
host's decision its plan (fleet_plans), a name that stays theirs.
"""

from __future__ import annotations

from ansible.errors import AnsibleFilterError

from ansible_collections.gamepanel.panel.plugins.module_utils._engine import messages as say
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.canary import not_sent_reason
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.request import ACTION_FOR_STATE
from ansible_collections.gamepanel.panel.plugins.module_utils._rules.convergence import DEFAULT_STOPPED_STATUSES, ONLINE
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_read_decision import control_plan

RESTARTED, STARTED, UNCHANGED, SKIPPED, FAILED = "restarted", "started", "unchanged", "skipped", "failed"
NOT_LISTED = "the panel no longer lists this server: left alone"


class Job(object):
    """One fleet job: the variable prefix its reasons name, and what its failures are called."""

    def __init__(self, name, noun, threshold=None, players=None):
        self.name = name
        self.noun = noun  # "the restart failed", when the module said nothing
        self.threshold = threshold  # the variable named when a server is up for less than min_uptime
        self.players = players  # the variable named when a server is busy


JOBS = {
    "rolling_restart": Job("rolling_restart", "restart", "rolling_restart_min_uptime", "rolling_restart_max_players"),
    "maintenance": Job("maintenance", "action", "maintenance_restart_after", "maintenance_max_players"),
    "ensure_online": Job("ensure_online", "start"),
}

# The result a confirmed action gives, and how it is said.
DONE = {
    "restarted": (RESTARTED, "restarted, uptime reset confirmed", "would be restarted (check mode)"),
    "started": (STARTED, "started, online confirmed", "would be started (check mode)"),
}


def job_of(name):
    try:
        return JOBS[name]
    except (KeyError, TypeError):
        raise AnsibleFilterError("fleet job: unknown job %r (one of %s)." % (name, ", ".join(sorted(JOBS))))


def _none(value):
    """None for the ways a null setting arrives from Jinja (None, '', 'None')."""
    return None if value is None or (isinstance(value, str) and value.strip() in ("", "None", "null")) else value


def _number(value):
    return int(float(value)) if isinstance(value, str) else int(value)


def _left_alone(result, reason):
    return {"act": False, "result": result, "reason": reason, "control": None}


def _busy(job, decision, max_players):
    if decision["players"] is not None:
        reason = say.too_many_players(decision["players"], job.players, max_players)
    else:
        reason = "the server %s" % say.no_player_count(job.players, max_players)
    return _left_alone(SKIPPED, "%s: left alone" % reason)


def _recent(job, uptime, threshold, tail):
    return _left_alone(UNCHANGED, say.below_threshold(int(uptime), job.threshold, threshold, tail))


def _acts(state, **control):
    control["state"] = state
    return {
        "act": True,
        "result": None,
        "reason": None,
        "control": dict((key, value) for key, value in control.items() if value is not None),
    }


def _decide_rolling_restart(job, server, settings, inventory_status, window):
    max_players = _none(settings.get("max_players"))
    drain, on_busy = _number(settings.get("drain_timeout") or 0), settings.get("on_busy") or "skip"
    min_uptime = settings.get("min_uptime")
    if inventory_status != ONLINE:
        return _left_alone(
            SKIPPED, "status %s when the inventory was read: not online, left alone" % (inventory_status or "unknown")
        )
    if not server:
        return _left_alone(SKIPPED, NOT_LISTED)
    # A busy server is settled here only when the module would skip it at once: a drain waits,
    # on_busy=fail fails the host.
    decision = control_plan(
        server,
        "restarted",
        only_if_status=[ONLINE],
        min_uptime=min_uptime,
        max_players=max_players if drain == 0 and on_busy == "skip" else None,
    )
    if decision["reason"] == "status_not_allowed":
        return _left_alone(
            SKIPPED, "status %s now (online when the inventory was read): not online, left alone" % decision["status"]
        )
    if decision["reason"] == "recently_restarted":
        return _recent(job, decision["uptime"], min_uptime, say.COUNTS_AS_RESTARTED)
    if decision["reason"] == "busy":
        return _busy(job, decision, max_players)
    # a server stopped since the fleet read is left alone, never started (only_if_status)
    return _acts(
        "restarted",
        only_if_status=[ONLINE],
        min_uptime=min_uptime,
        max_players=max_players,
        drain_timeout=drain,
        on_busy=on_busy,
    )


def _decide_maintenance(job, server, settings, inventory_status, window):
    if not window.get("inside", True):
        return _left_alone(SKIPPED, window.get("reason") or "outside maintenance_window: nothing sent")
    if not server:
        return _left_alone(SKIPPED, NOT_LISTED)
    stopped = list(settings.get("stopped_statuses") or DEFAULT_STOPPED_STATUSES)
    restart_after, max_players = settings.get("restart_after"), _none(settings.get("max_players"))
    drain = _number(settings.get("drain_timeout") or 0)
    # online: a restart when due; anything else: a start, which only the stopped statuses may get
    state = RESTARTED if server.get("status") == ONLINE else STARTED
    only_if_status = [ONLINE] if state == RESTARTED else stopped
    decision = control_plan(
        server,
        state,
        only_if_status=only_if_status,
        min_uptime=restart_after,
        max_players=max_players if drain == 0 else None,
    )
    if decision["reason"] == "status_not_allowed":
        return _left_alone(SKIPPED, "status %s: neither online nor stopped, left alone" % decision["status"])
    if decision["reason"] == "recently_restarted":
        return _recent(job, decision["uptime"], restart_after, "not due")
    if decision["reason"] == "busy":
        return _busy(job, decision, max_players)
    if state == STARTED and not _flag(settings.get("start_stopped")):
        return _left_alone(SKIPPED, "status %s: maintenance_start_stopped is false, left alone" % decision["status"])
    if state == RESTARTED:
        return _acts(
            state,
            only_if_status=only_if_status,
            min_uptime=_number(restart_after),
            max_players=_number(max_players) if max_players is not None else None,
            drain_timeout=drain,
            on_busy="skip",
        )
    return _acts(state, only_if_status=only_if_status, drain_timeout=drain, on_busy="skip")


def _decide_ensure_online(job, server, settings, inventory_status, window):
    stopped = list(settings.get("stopped_statuses") or DEFAULT_STOPPED_STATUSES)
    decision = control_plan(server, STARTED, only_if_status=stopped)
    if decision["action"] is not None:
        # a server put into maintenance (or any other status) since the fleet read is left alone
        return _acts(STARTED, only_if_status=stopped)
    if decision["reason"] == "in_state":
        return _left_alone(UNCHANGED, "online already")
    if not server:
        return _left_alone(SKIPPED, NOT_LISTED)
    return _left_alone(SKIPPED, "status %s: not a stopped status, left alone" % decision["status"])


DECIDERS = {
    "rolling_restart": _decide_rolling_restart,
    "maintenance": _decide_maintenance,
    "ensure_online": _decide_ensure_online,
}


def _flag(value):
    if isinstance(value, str):
        return value.strip().lower() in ("1", "true", "yes", "on")
    return bool(value)


def not_a_fleet_host(host):
    return _left_alone(
        FAILED,
        "%s has no gamepanel_id: run this role on hosts of the gamepanel.panel.servers inventory."
        % (host or "the host"),
    )


def record_of(servers, server_id):
    """The record of ``server_id`` in a fleet read (a list), or {} when the read does not list it."""
    for server in servers:
        if isinstance(server, dict) and server.get("id") == server_id:
            return server
    return {}


def decide_host(server, job_name, settings=None, inventory_status=None, window=None, server_id=None, host=None):
    """What the job does with one host, decided on ``server`` (its record of the fleet read, or {}).

    ``server`` may be the whole fleet read (a list): the host's record is then the one of
    ``server_id`` (searched here, once, rather than in Jinja, which costs a fleet's length per
    host), and a host without a ``server_id`` is not a server of the fleet: its decision fails it.
    """
    job = job_of(job_name)
    if isinstance(server, list):
        if server_id is None or str(server_id).strip() == "":
            return dict(not_a_fleet_host(host), job=job.name)
        server = record_of(server, server_id)
    if server is None:
        server = {}
    if not isinstance(server, dict):
        raise AnsibleFilterError(
            "fleet_plans expects a server record (a dictionary, as server_info returns it), not %r." % (server,)
        )
    settings = dict(settings or {})
    decided = DECIDERS[job.name](job, server, settings, inventory_status, dict(window or {}))
    decided["job"] = job.name
    if decided["control"] is not None:
        for key in ("wait_timeout", "poll_interval", "canary"):
            if settings.get(key) is not None:
                decided["control"][key] = settings[key]
    return decided


def decide_hosts(fleet, job_name, settings, hostvars, hosts, window=None, read_failure=None):
    """``{host: decision}`` (what the fleet_plans filter returns) for every host of a batch, decided on one fleet read (a list) in one call.

    One task for the batch instead of one per host: at a thousand hosts the per-host task
    alone cost Ansible about 20 s.  Each host's ``gamepanel_id`` and ``gamepanel_status``
    come from ``hostvars``.  ``read_failure`` is the message of a fleet read that failed: every
    host's decision then fails it with that message (a failed run_once task would fail one host and
    quietly take the others out of the play).
    """
    if read_failure:
        failed = _left_alone(FAILED, "The fleet read before the batch failed: %s" % (read_failure,))
        return dict(
            (host, dict(failed, job=job_of(job_name).name, server_id=hostvars[host].get("gamepanel_id")))
            for host in hosts or ()
        )
    if not isinstance(fleet, list):
        raise AnsibleFilterError("fleet_plans expects the fleet read (a list of server records), not %r." % (fleet,))
    by_id = {}
    for server in fleet:
        if isinstance(server, dict) and server.get("id") is not None:
            by_id.setdefault(server["id"], server)
    decided = {}
    for host in hosts or ():
        variables = hostvars[host]
        server_id = variables.get("gamepanel_id")
        status = variables.get("gamepanel_status")
        decided[host] = decide_host(
            [by_id[server_id]] if server_id in by_id else [],
            job_name,
            settings,
            status,
            window,
            server_id=server_id,
            host=host,
        )
        decided[host]["server_id"] = server_id
    return decided


def groups(decided, first=False, after=None):
    """The acting hosts of a batch as server_control tasks: ``[{control, hosts, label}]``, one per distinct control.

    A job acts on a batch with one server_control task (``hosts``) per kind of action, every account in
    it at once: rolling_restart and ensure_online make one group, maintenance at most two (its restarts,
    then its starts). Hosts are in their sorted order, which the task's canary follows.

    The canary is the job's, and nothing is sent after it unless it came back: ``first`` gives only the
    first group, whose task sends it. ``after`` (the registered result of that task) gives the groups it
    did not run: none when its canary did not come back; without a canary of their own when it came back;
    and, when it sent none (none of its servers could take it at the engine's read), with the canary.
    """
    if not isinstance(decided, dict):
        raise AnsibleFilterError("fleet_groups expects the plans fleet_plans returned, not %r." % (decided,))
    found = {}
    for host in sorted(decided):
        decided_for_host = decided[host]
        if not decided_for_host.get("act"):
            continue
        control = decided_for_host["control"]
        key = tuple(sorted((name, repr(value)) for name, value in control.items()))
        found.setdefault(key, {"control": control, "hosts": []})["hosts"].append(host)
    ordered = [dict(found[key], label=_group_label(found[key])) for key in sorted(found, key=_kind_order)]
    if first:
        return ordered[:1]
    if after is None:
        return ordered
    if _lost_canary(after):
        return []
    left = ordered[_groups_run(after) :]
    if _sent_canaries(after):
        return [dict(group, control=dict(group["control"], canary=0)) for group in left]
    return left


def _kind_order(key):
    """Restarts before starts (maintenance): the canary is the job's first restart when it has one."""
    state = dict(key).get("state", "")
    return (state != repr("restarted"), key)


def _loops(control):
    """The registered server_control loops ``control`` stands for: one registered loop, or a list of them."""
    return control if isinstance(control, (list, tuple)) else [control]


def _groups_run(control):
    """How many groups the registered loops ``control`` ran: their items, one group each."""
    return sum(len((loop or {}).get("results") or ()) for loop in _loops(control))


def _group_label(group):
    """What the task's loop shows of a group: its action and size."""
    return "%s: %d server(s)" % (group["control"].get("state"), len(group["hosts"]))


def _task_results(control):
    """The results of the registered server_control loops ``control`` that ran (not skipped)."""
    for registered in _loops(control):
        for task_result in (registered or {}).get("results") or ():
            if isinstance(task_result, dict) and not task_result.get("skipped"):
                yield task_result


def _sent_canaries(control):
    """The canaries the tasks of ``control`` sent (a task that had none to send reports an empty one)."""
    return [result["canary"] for result in _task_results(control) if (result.get("canary") or {}).get("ids")]


def _lost_canary(control):
    """The canary of ``control`` that did not come back, or None."""
    return next((canary for canary in _sent_canaries(control) if canary.get("confirmed") is False), None)


def _line_result(line, task_result):
    """A server's line of a server_control ``ids`` result, in the shape ``outcome`` reads for one server."""
    return {
        "changed": line.get("changed"),
        "skipped_reason": line.get("skipped_reason"),
        "pending": line.get("pending"),
        "converged": line.get("converged"),
        "msg": line.get("msg"),
        "failed": line.get("failed"),
        "elapsed": task_result.get("elapsed"),
        "server": {"status": line.get("status"), "uptime_seconds": line.get("uptime_seconds")},
    }


def _not_sent_line(canary):
    """The line of a server another group's canary kept from being sent, as the engine words its own."""
    reason = not_sent_reason(", ".join(canary["ids"]))
    return {"changed": False, "skipped_reason": reason, "pending": None, "converged": None, "failed": False}


def outcomes(decided, control=None, check_mode=False, failure=None):
    """``{host: {"outcome": gamepanel_outcome, "ledger": entries or None}}`` for every host of a batch.

    ``control`` is the registered loop of the batch's server_control ``ids`` tasks (one per group), or a
    list of such loops (the canary's group, then the others: see groups);
    a task that failed as a whole (no ``servers``) fails every host of its group with its message.
    ``ledger`` is the host's server's ledger entries when the task returned them, else None.
    ``failure``: the result of a step of the job that failed (the role's rescue): every host fails with it.
    The outcome of a canary's host also holds ``canary``: what the task said of its canary; that of a
    host the task acted on, ``pace``: how its requests were paced.
    """
    if failure is not None:
        return dict(
            (host, {"outcome": outcome(plan_of_host, failure, check_mode, failed=True), "ledger": None})
            for host, plan_of_host in decided.items()
        )
    # each line, ledger and canary names its host (server_control hosts): ids repeat across accounts
    lines, whole_failures, ledgers, canaries, paces = {}, {}, {}, {}, {}
    for task_result in _task_results(control):
        group = task_result.get("item") or {}
        if isinstance(task_result.get("servers"), list):
            for line in task_result["servers"]:
                lines[line.get("host")] = _line_result(line, task_result)
                paces[line.get("host")] = task_result.get("pace")
        else:
            for host in group.get("hosts") or ():
                whole_failures[host] = task_result
        ledgers.update(task_result.get("ledger") or {})
        canary = task_result.get("canary") or {}
        canaries.update((host, canary.get("msg")) for host in canary.get("hosts") or ())
    # a canary that did not come back: the other groups' tasks did not run (groups, after=)
    lost_canary = _lost_canary(control)
    found = {}
    for host, decided_for_host in decided.items():
        server = host
        if server in whole_failures:
            result = dict(whole_failures[server], failed=True)
            found_outcome = outcome(decided_for_host, result, check_mode, failed=True)
        elif decided_for_host.get("act") and server in lines:
            line = lines[server]
            found_outcome = outcome(decided_for_host, line, check_mode, failed=bool(line["failed"]))
        elif decided_for_host.get("act") and lost_canary:
            found_outcome = outcome(decided_for_host, _not_sent_line(lost_canary), check_mode)
        else:
            found_outcome = outcome(decided_for_host, None, check_mode)
        if server in canaries:
            found_outcome["canary"] = canaries[server]
        if paces.get(server):
            found_outcome["pace"] = paces[server]
        found[host] = {"outcome": found_outcome, "ledger": ledgers.get(server)}
    return found


# -- the outcome --------------------------------------------------------------------------------


def _pending(result):
    """server_control's ``pending`` (the ledger entry its decision relied on) as the outcome keeps it, or None."""
    entry = result.get("pending") if isinstance(result, dict) else None
    if not isinstance(entry, dict) or not entry:
        return None
    return dict((key, entry.get(key)) for key in ("id", "action", "queued_at", "state"))


def _elapsed(result):
    try:
        return float(result.get("elapsed") or 0)
    except (TypeError, ValueError):
        return 0.0


def outcome(decided, result=None, check_mode=False, failed=False):
    """``gamepanel_outcome`` of one host: from its plan and its server's line of the server_control task.

    ``result``: that line (or the failed task's result); ``failed``: the host failed with it.
    ``pending`` is the ledger entry of an action an earlier run queued and this run did not send
    again (server_control found it open); None otherwise.
    """
    if not isinstance(decided, dict):
        raise AnsibleFilterError("fleet_outcomes expects the plans fleet_plans returned, not %r." % (decided,))
    job = job_of(decided.get("job"))
    result = result if isinstance(result, dict) and not result.get("skipped") else {}
    entry = _pending(result)
    if failed:
        # server_control names a pending entry in a failure only when it followed it (nothing new sent)
        reason = result.get("msg") or "the %s failed" % job.noun
        if entry and "nothing new" not in reason.lower():
            reason = "%s (%s)" % (reason, say.pending_note(entry))
        return {"result": FAILED, "reason": reason, "elapsed": _elapsed(result), "pending": entry}
    if not decided.get("act"):
        return {
            "result": decided.get("result") or SKIPPED,
            "reason": decided.get("reason") or "left alone",
            "elapsed": 0.0,
            "pending": None,
        }

    state = decided["control"]["state"]
    done, confirmed, would = DONE[state]
    same = entry if entry and entry.get("action") == ACTION_FOR_STATE[state] else None
    kept = None
    if result.get("skipped_reason"):
        found, reason = SKIPPED, result["skipped_reason"]
    elif result.get("changed"):
        found, reason = done, would if check_mode else confirmed
        if entry and not same:  # another action was open: this one was sent as asked, the ledger named it
            reason = "%s; %s" % (reason, say.still_held([entry]))
    elif same and same.get("state") == "done":
        # a restart the ledger holds as done within min_uptime counts as the restart
        found = UNCHANGED
        reason = say.counted_note(same)
    elif same:
        kept = same
        # the action an earlier run queued was applied while this run waited for it, or is still open
        found, reason = (
            (done, "%s: %s" % (confirmed, say.pending_note(same)))
            if result.get("converged")
            else (UNCHANGED, say.pending_note(same))
        )
    elif state == RESTARTED:
        found = UNCHANGED
        reason = say.below_threshold(
            (result.get("server") or {}).get("uptime_seconds", "?"),
            job.threshold,
            decided["control"].get("min_uptime", "?"),
        )
    else:
        found, reason = UNCHANGED, "online already"
    return {"result": found, "reason": reason, "elapsed": _elapsed(result), "pending": kept}
