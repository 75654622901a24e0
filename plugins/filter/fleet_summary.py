# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""The fleet_summary filter: one summary of the gamepanel_outcome facts of a fleet job's hosts."""

from __future__ import annotations

from ansible.errors import AnsibleError, AnsibleFilterError

from ansible_collections.gamepanel.panel.plugins.module_utils._engine.messages import queued_entry
from ansible_collections.gamepanel.panel.plugins.plugin_utils.inventory_naming import ACCOUNT_VARIABLE
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_accounts import account_label
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_connection import CONNECTION_VARIABLE
from ansible_collections.gamepanel.panel.plugins.plugin_utils.job_records import outcomes_by_job, record_items

# The order results are listed in: what needs attention first.
RESULTS = ("failed", "skipped", "restarted", "started", "unchanged")
OUTCOME_FACT = "gamepanel_outcome"
# The fleet roles' record loop (registered on every host of its batch): with two fleet roles in one play, a
# host's gamepanel_outcome is the last one's, and the record keeps the others' outcomes (other_jobs).
RECORD_VARIABLE = "internal_fleet_job_recorded"


def _host_facts(hostvars, hosts, job=None, run=None):
    """``{host: (outcome or None, account or None)}``, each host's variables looked up once: Ansible builds them on each lookup.

    The account is the one server_control names the host's server by (its label: gamepanel_account, else the
    base_url of gamepanel_connection, else "default"). Given ``run``, a host whose gamepanel_outcome another
    job recorded gives this job's outcome from its record, when the record has one.
    """
    found = {}
    for host in hosts:
        try:
            variables = hostvars[host]
        except KeyError:
            variables = None
        if not hasattr(variables, "get"):
            found[host] = (None, None)
            continue
        outcome = _outcome(variables.get(OUTCOME_FACT))
        if run is not None and (outcome or {}).get("run") != run:
            outcome = _recorded_outcome(variables.get(RECORD_VARIABLE), host, job) or outcome
        found[host] = (outcome, _account(variables))
    return found


def _outcome(value):
    return value if isinstance(value, dict) and value.get("result") else None


def _recorded_outcome(record, host, job):
    """The outcome ``job`` recorded on ``host`` that its latest record (a registered record loop) keeps, or None."""
    results = record.get("results") if hasattr(record, "get") else None
    for key, value in record_items(results):
        if key == host:
            return _outcome(outcomes_by_job(value).get(job))
    return None


def _account(variables):
    """The host's account as server_control labels it; its connection is looked at only without gamepanel_account."""
    account = variables.get(ACCOUNT_VARIABLE)
    if account:
        return account_label(account, None)
    try:
        return account_label(None, variables.get(CONNECTION_VARIABLE))
    except AnsibleError:
        return account_label(None, None)  # a connection that does not template is the control task's to report


def _recorded_facts(recorded, batch):
    """``{host: (outcome, account)}`` of the hosts of ``batch`` that the batch's record loop (``recorded``) names."""
    found, batch = {}, set(batch or ())
    for host, value in record_items((recorded or {}).get("results")):
        if host in batch and value.get("account"):
            found[host] = (_outcome(value.get("outcome")), value["account"])
    return found


def _took(elapsed):
    try:
        seconds = float(elapsed)
    except (TypeError, ValueError):
        return ""
    return " [%.1f s]" % seconds if seconds >= 0.05 else ""


def _account_lines(hosts, facts, by_result):
    """One line per account when the hosts belong to several (as server_control labels them): its counts, or nothing."""
    account_of = dict((host, facts[host][1]) for host in hosts)
    accounts = sorted(set(str(account) for account in account_of.values() if account))
    if len(accounts) < 2:
        return []
    lines = []
    for account in accounts:
        counts = [
            (result, sum(1 for host, _outcome in entries if str(account_of[host]) == account))
            for result, entries in by_result.items()
        ]
        total = sum(1 for host in hosts if str(account_of[host]) == account)
        words = ", ".join("%d %s" % (count, result) for result, count in counts if count)
        lines.append("  account %s: %d server(s): %s" % (account, total, words or "none processed"))
    return lines


def _reached(hosts, batch):
    """How many of ``hosts`` (in the play's order) this play has reached: up to the batch's last host.

    The hosts after it are in later batches. An outcome they hold is an earlier run's (a fact cache, AWX fact
    storage), never this one's.
    """
    if not batch:
        return len(hosts)
    try:
        return list(hosts).index(batch[-1]) + 1
    except ValueError:
        return len(hosts)


def _this_runs(outcome, run):
    """``outcome`` if ``run`` (None: any) recorded it, else None: a host this run did not reach may hold another's."""
    if outcome is None or run is None or outcome.get("run") == run:
        return outcome
    return None


def fleet_summary(hosts, hostvars, job="fleet job", batch=None, run=None, recorded=None):
    """Counts and per-result host lists of ``hosts`` (the play's hosts); see fleet_summary.yml."""
    if not isinstance(hosts, (list, tuple)):
        raise AnsibleFilterError(
            "fleet_summary expects the list of the play's hosts (ansible_play_hosts_all), not %r." % (hosts,)
        )
    by_result = dict((result, []) for result in RESULTS)
    not_reached, canaries, paces = [], [], []
    facts = _recorded_facts(recorded, batch)  # the batch's own hosts, without a lookup of their variables
    facts.update(
        _host_facts(hostvars, [host for host in list(hosts) + list(batch or ()) if host not in facts], job, run)
    )
    reached = _reached(hosts, batch)
    for index, host in enumerate(hosts):
        outcome = _this_runs(facts[host][0], run) if index < reached else None
        if outcome is None:
            not_reached.append(host)
            continue
        by_result.setdefault(outcome["result"], []).append((host, outcome))
        if outcome.get("canary") and outcome["canary"] not in canaries:
            canaries.append(outcome["canary"])  # what the task said of its canary, once per task
        if outcome.get("pace") and outcome["pace"] not in paces:
            paces.append(outcome["pace"])

    counts = dict((result, len(entries)) for result, entries in by_result.items())
    counts["not_reached"] = len(not_reached)
    batch_failed = [host for host in (batch or []) if (facts[host][0] or {}).get("result") == "failed"]

    headline = ", ".join(
        "%d %s" % (count, result) for result, count in counts.items() if count and result != "not_reached"
    )
    lines = ["%s: %d server(s): %s" % (job, len(hosts), headline or "none processed")] + canaries
    lines.extend(_account_lines(hosts, facts, by_result))
    if paces:
        lines.append("Requests %s." % " and ".join(paces))
    for result, entries in by_result.items():
        if not entries:
            continue
        lines.append("%s (%d):" % (result, len(entries)))
        for host, outcome in entries:
            took = _took(outcome.get("elapsed"))
            lines.append("  %s: %s%s" % (host, outcome.get("reason") or result, took))
    # hosts whose action an earlier run had queued already: this run sent nothing new to them
    pending = [
        (host, outcome["pending"])
        for result in RESULTS
        for host, outcome in by_result.get(result, [])
        if isinstance(outcome.get("pending"), dict) and outcome["pending"]
    ]
    if pending:
        lines.append("already pending (%d): nothing new sent" % len(pending))
        for host, entry in pending:
            lines.append("  %s: %s" % (host, queued_entry(entry)))
    if not_reached:
        lines.append("not reached (%d): %s" % (len(not_reached), ", ".join(not_reached)))
        if batch_failed:
            lines.append("The rollout stops here: a batch had failures (max_fail_percentage).")
    return {
        "lines": lines,
        "counts": counts,
        "complete": not not_reached,
        "batch_failed": batch_failed,
        "pending": [host for host, _entry in pending],
    }


class FilterModule(object):

    def filters(self):
        return {"fleet_summary": fleet_summary}
