# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: server_control with ``ids``: the engine run over many servers, read by pages, at the token's rate.

1. **Read and act, page by page** (_engine/pages.py): the task's servers on a page are decided
   (_engine/run.py) and their actions sent before the next page is read, so every action rests on
   a read a few seconds old and the fleet is read once, whatever its size.  A page whose sending
   outlasts ``max_read_age`` (a slow plan, another consumer of the token) is read again before the
   next action.  With a ``canary`` (_engine/canary.py) the actions wait until every server is decided.
2. **Follow up** (_engine/follow_up.py, the same scheduler as for one server): the drains and the
   outcomes waited for, read again with the pages that hold them.
3. **Answer** (_engine/result.py): one line per id, summary counts, the servers that failed named.

A POST the panel refused in its own words (a 429 or a 5xx: _api/retry.py) is handed back by the
client at once: the server is put back (_engine/run.py: put_back) and sent again once the wait
the panel asked for is over, between pages and after them (``resend_refused``), while the task
goes on with its other servers.  One refusal never stops a task.

A panel error that concerns one server (it is not found, or the panel kept refusing its action
for ``retry_timeout``) fails that server only; any other error (the token refused, the plan unpaid,
the panel unreachable after retries, or refusing every action for ``retry_timeout``) stops the
sending: the servers not reached yet are reported failed with "not sent", and those already sent
are still followed up.
"""

from __future__ import annotations

from ansible_collections.gamepanel.panel.plugins.module_utils._engine import messages as say
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.canary import Canary
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.follow_up import FollowUp
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.pages import PageReads, read_by_id
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.result import (
    ControlFailed,
    TaskStopped,
    failure_message,
    many_servers_result,
)
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.run import ControlRun
from ansible_collections.gamepanel.panel.plugins.module_utils._engine.server import UNREAD
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelError, PanelNotFoundError

# The longest a POST's ledger mark waits for those of the POSTs after it (send_all), in seconds.
MARKS_WRITTEN_WITHIN = 1.0


def run_many_servers(client, request, ids, ledger=None, check_mode=False, diff=False, canary=Canary):
    """Bring each server of ``ids`` to ``request.state``; return the result dict or raise ControlFailed.

    ``canary``: what makes the task's canary step from ``(run, send, follow_up)``: a Canary, or one
    account's part of a canary shared with other accounts (_engine/job_canary.py).
    """
    run = ControlRun(client, request, ledger=ledger, check_mode=check_mode, diff=diff)
    problems = run.problems()
    if problems:
        raise ControlFailed(" ".join(problems), many_servers_result([], diff, 0.0, client.stats))
    run.add(ids)
    run.hand_back = True
    pages = PageReads(client)
    canary = canary(
        run,
        send=lambda servers: send_until_taken(run, pages, servers),
        follow_up=lambda servers, over: FollowUp(run, pages, servers=servers, over=over).follow(),
    )
    run.canary = canary
    try:
        for _page, reads in pages.stream():  # 1. read and act, page by page
            decide_and_send(run, pages, [read for read in reads if read.server["id"] in run.servers], canary)
            resend_refused(run, pages, wait=False)  # those put back whose wait is over, between pages
            if all(server.read is not None for server in run.servers.values()):
                break  # every server of the task is read: the rest of the fleet is not needed
        for server in [server for server in run.still((UNREAD,)) if server.read is None]:
            try:  # servers the list did not show: a GET of each
                read = read_by_id(pages.client, server.id)
            except PanelNotFoundError as error:
                server.fail(say.not_listed(error), error)
                continue
            decide_and_send(run, pages, [read], canary)
        canary.release()
        resend_refused(run, pages)
    except TaskStopped as stop:
        run.stop(stop.error)
    except PanelError as error:
        run.stop(error)
    finally:
        canary.withdraw()  # a canary step not reached: the other accounts of the task are not kept waiting
    follow_up(run, pages)  # 2. drains and confirmations
    run.settle_last_reads()
    lines = [server.as_line(request, diff) for server in run.servers.values()]  # 3.
    result = many_servers_result(lines, diff, run.elapsed(), client.stats)
    result["canary"] = canary.view()
    failed = [line for line in lines if line["failed"]]
    if failed:
        stayed = " " + result["canary"]["msg"] if canary.came_back is False else ""
        raise ControlFailed(failure_message(failed, len(lines)) + stayed, result, run.stopped)
    return result


def decide_and_send(run, pages, reads, canary):
    """Decide the servers of ``reads`` (read together) and send their actions, unless the canary holds them."""
    servers = [run.servers[read.server["id"]] for read in reads]
    for server, read in zip(servers, reads):
        run.decide(server, read)
    planned = [server for server in servers if server.stage == UNREAD and server.action is not None]
    if not canary.hold(planned):
        send_all(run, pages, planned)


def send_all(run, pages, planned):
    """Send the planned actions of ``planned``, keeping the reads they rest on younger than max_read_age.

    The ledger marks of the POSTs are written together (run.write_marks), at the end and whenever
    the oldest waited MARKS_WRITTEN_WITHIN: at the token's pace one POST may wait for the next.
    """
    try:
        for position, server in enumerate(planned):
            if server.stage != UNREAD or server.action is None:
                continue  # decided otherwise on a fresher read
            if run.clock.monotonic() - server.read.started > run.request.max_read_age:
                read_again(run, pages, [later for later in planned[position:] if later.stage == UNREAD])
                if server.stage != UNREAD or server.action is None:
                    continue
            run.write_marks(older_than=MARKS_WRITTEN_WITHIN)
            run.send(server)
    finally:
        run.write_marks()


def read_again(run, pages, servers):
    """Fresh reads of ``servers`` (the pages holding them; a GET for one no longer listed there), decided again."""
    fresh = pages.read_again([pages.page_of[server.id] for server in servers if server.id in pages.page_of])
    for server in servers:
        server.action = None
        run.decide(server, fresh.get(server.id) or read_by_id(pages.client, server.id))


def put_back(run, servers=None):
    """The servers (of ``servers``, or all the task's) whose POST was handed back and is still to be sent again."""
    pool = run.servers.values() if servers is None else servers
    return [server for server in pool if server.retry_at is not None and server.stage == UNREAD and server.action]


def resend_refused(run, pages, servers=None, wait=True):
    """Send again the POSTs put back once their wait is over; ``wait``: until none is left, else only those due now."""
    while run.stopped is None:
        back = put_back(run, servers)
        if not back:
            return
        now = run.clock.monotonic()
        due = [server for server in back if server.retry_at <= now]
        if not due and not wait:
            return
        if not due:
            run.clock.sleep(min(server.retry_at for server in back) - now)
            continue
        for server in due:
            server.retry_at = None
        send_all(run, pages, due)


def send_until_taken(run, pages, servers):
    """Send the planned actions of ``servers``, and again those refused, until the panel took each (or gave up)."""
    send_all(run, pages, servers)
    resend_refused(run, pages, servers)


def follow_up(run, pages):
    """The follow-up passes; a drained server refused when its players left is sent again, then followed too."""
    while True:
        FollowUp(run, pages).follow()
        if run.stopped is not None or not put_back(run):
            return
        try:
            resend_refused(run, pages)
        except TaskStopped as stop:
            run.stop(stop.error)
        except PanelError as error:
            run.stop(error)
