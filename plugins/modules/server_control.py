#!/usr/bin/python
# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

from __future__ import annotations

DOCUMENTATION = r"""
module: server_control
short_description: Start, stop or restart a game server through the panel, and confirm the outcome
version_added: 1.0.0
description:
  - Brings one game server, or many with O(ids), to O(state=started), O(state=stopped) or O(state=restarted) through
    the panel's REST API.
  - "The panel only queues an action, and the server's agent runs it when it next checks in (typically within
    a minute, or only once it reconnects). So this module reads the server first and queues nothing when it already
    is in the requested state, then with O(wait=true) reads it again until the outcome shows; when O(wait_timeout)
    runs out the task fails but the action stays queued, and a re-run waits for it rather than queueing it again."
  - The module never sends the same action twice, neither after a wait that ran out nor after a request whose
    answer was lost on the way back (it then reports RV(changed=true), since the action may have been queued;
    with O(wait=true) a server that then reaches the requested state counts as success), nor in a later run.
    An error the panel answers in its own words (a 5xx or 429 with its JSON error) is a refusal that queued
    nothing; the action is sent again after the wait the panel asks for (C(Retry-After)), within O(retry_timeout),
    and with O(ids) the other servers go on meanwhile. An answer that is not the panel's (a proxy's 502, 503 or 504
    page, an empty body) may follow a queued action, so the action is then followed, never sent again.
  - A ledger in the state directory remembers every action the module queued until a read shows the outcome. An
    open entry for the same action on the same server is waited for (O(wait=true)) or reported as RV(pending)
    instead of being sent again, and a restart the ledger holds within O(min_uptime) counts as the restart even
    while the panel still reports the old uptime. Entries expire after a week, or E(GAMEPANEL_LEDGER_HORIZON)
    seconds. See O(ignore_pending) to send anyway.
  - Status values other than C(online) exist and are not all known; any unknown status is returned as the panel
    gives it. O(state=started) starts a server in any status other than C(online), O(state=stopped) stops a server
    in any status outside O(stopped_statuses).
  - While it waits (or drains), the task reads the server again O(poll_interval) seconds after queueing, then each
    gap is O(poll_interval) plus a 25th of the time waited so far (at most 30 seconds unless O(poll_interval) is
    longer), and the last read comes at the end of O(wait_timeout) itself. A task with O(ids) reads its servers at
    the same pace, together, by the list pages that hold them.
    When three or more tasks of the same token run at once on the controller (forks of a fleet restart), one list
    read (C(GET /servers)) answers the reads of many of them, the read before queueing included; a task only ever
    uses a list read that started after it did, and a wait one that started after its action was queued.
  - "With O(ids), one task handles many servers in one process: it reads the fleet list one page at a time and sends
    the actions of each page's servers before reading the next, so every action rests on a read at most
    O(max_read_age) seconds old and the fleet is read once. It sends as fast as the token's O(rate_limit) allows,
    then confirms the outcomes by reading again only the pages that still hold a server to confirm. Each server is
    decided by the same rules as a task with O(id), and gets its own line in RV(servers)."
author:
  - gamepanel.panel contributors (@gamepanel)
extends_documentation_fragment:
  - gamepanel.panel.panel
  - ansible.builtin.action_common_attributes
  - gamepanel.panel.attributes
attributes:
  check_mode:
    details: Reads the server, predicts RV(changed) and RV(action), and sends no action. It does not wait for
      O(drain_timeout).
  diff_mode:
    support: full
    details: Shows the server's status before and the status expected (or, after a wait, reached) after.
options:
  id:
    description:
      - Id of the server to control.
      - Exactly one of O(id), O(name), O(ids) and O(hosts) is required.
    type: str
  name:
    description:
      - Exact display name of the server to control (not a pattern).
      - A name that matches no server, or several, fails and lists the candidates as C(name (id)).
      - Exactly one of O(id), O(name), O(ids) and O(hosts) is required.
    type: str
  ids:
    description:
      - Ids of several servers to control in this one task, each to O(state) with the same options.
      - The task reads the fleet list, so for two or three servers of a large account a loop over O(id) costs fewer
        requests; from a few dozen servers on, this is the fast way (no fork per server, no state shared between
        forks). An id listed twice is controlled once; an id the panel does not list fails that server.
      - The task fails when any server failed, naming them; RV(servers) has every server's outcome.
      - Not with O(confirm_only) (the task confirms what it sends, with O(wait=true)).
      - Exactly one of O(id), O(name), O(ids) and O(hosts) is required.
    type: list
    elements: str
    version_added: 1.0.0
  hosts:
    description:
      - Inventory host names of the C(gamepanel.panel.servers) inventory (usually C(ansible_play_batch)), each standing
        for its own server (C(gamepanel_id)) on its own account, for a fleet job's batch in one task.
      - Each host's connection, account and token are its own variables (C(gamepanel_connection), C(gamepanel_account),
        C(gamepanel_api_token), and the token its inventory source read with); the task's own connection options
        come first, as for one server. The hosts are grouped by connection and token, and the groups run at once,
        each at its own token's rate, with the options of O(ids) (O(canary) counts for the whole task, the first
        servers to act on, in the order of O(hosts), are sent alone and confirmed before anything is sent to any
        account).
      - A host without C(gamepanel_id) fails alone (its line says so, and the task fails naming it); the others go
        on. Two hosts for one server, or a token that is not the one a host's source read its panel with, fails
        the task before anything is sent.
      - Runs on the controller only (the action plugin reads the inventory's variables); RV(servers) carries each
        line's C(host) and C(account).
    type: list
    elements: str
    version_added: 1.0.0
  max_read_age:
    description:
      - With O(ids), the oldest read (seconds) an action may rest on. When sending the actions of one page of the
        fleet takes longer (a slow plan, another consumer of the token), the page is read again and its servers
        decided again before the next action is sent, so a server stopped or filled with players meanwhile is not
        acted on.
      - The task with O(id) always acts on a read made right before, and ignores this option.
    type: float
    default: 30
    version_added: 1.0.0
  canary:
    description:
      - With O(ids), how many servers to send alone first, and to confirm, before any other action is sent.
      - The canary is the first servers of O(ids), in the order given, that the task will really act on when read
        (a server a gate holds back, or that O(min_uptime) counts as restarted, is never the canary). The task
        decides every server first, sends the canary and waits for it to show the requested state; the other actions
        follow, on reads made again when the wait made theirs older than O(max_read_age).
      - When a canary does not come back within O(wait_timeout), nothing else is sent, and the task fails naming it;
        the other servers are reported skipped (not sent). When fewer servers are free to send, the first whose
        players leave during O(drain_timeout) completes the canary. When no server is to be sent, nothing is sent.
        RV(canary) says which it was.
      - V(0) sends every action as soon as its server is decided. Needs O(wait=true).
    type: int
    default: 0
    version_added: 1.0.0
  state:
    description:
      - V(started) queues a start unless the status is C(online).
      - V(stopped) queues a stop unless the status is one of O(stopped_statuses).
      - V(restarted) always queues a restart, except for an online server that O(min_uptime) counts as
        already restarted.
      - V(restarted) on a server that is not online (C(offline), C(stopped), or any other status) starts it, as
        C(ansible.builtin.service) does. To restart only running servers, select the online ones first (the
        C(status_online) group of the inventory, or M(gamepanel.panel.server_info) with a C(status) filter) and set
        O(only_if_status=[online]), or use the C(gamepanel.panel.rolling_restart) role, which never starts a server.
      - The planned API variant (O(api_variant=planned)) can only restart; V(started) and V(stopped) fail there.
    type: str
    required: true
    choices: [started, stopped, restarted]
  wait:
    description:
      - Read the server again until the queued action shows, or O(wait_timeout) runs out.
      - V(started) waits for status C(online), V(stopped) for a status in O(stopped_statuses), V(restarted) for
        status C(online) with an uptime that reset, that is lower than the uptime read before queueing plus the time
        passed since that read (or after the server was seen down).
      - With V(false) the module returns as soon as the panel has queued the action, and RV(converged) is null.
    type: bool
    default: true
  wait_timeout:
    description:
      - Seconds to wait for the outcome. When they run out the task fails, RV(changed) is true, and the action
        stays queued for the agent.
    type: int
    default: 300
  poll_interval:
    description:
      - Seconds before the first read after queueing; each later gap is this plus a 25th of the time waited so
        far (at most 30 seconds, never below this value).
      - Agents check in about every 30 to 60 seconds, so reading much more often only spends the rate budget.
    type: float
    default: 5
  min_uptime:
    description:
      - With O(state=restarted), an online server whose uptime in seconds is already below this counts as
        restarted, and nothing is queued. Makes a maintenance job safe to re-run after a partial failure.
      - Ignored for other states, and for servers that are not online.
    type: int
  max_players:
    description:
      - Stop or restart a server only when at most this many players are online (V(0) means only an empty
        server). A server whose player count is unknown counts as busy; one in a stopped status counts as empty.
      - A busy server is handled as O(on_busy) says, after waiting up to O(drain_timeout) for players to leave.
      - Ignored for O(state=started).
    type: int
  drain_timeout:
    description:
      - Seconds to wait for the player count to fall to O(max_players) before applying O(on_busy).
      - The wait ends on time whatever the panel does. Retries of its reads stop at it, and a read that fails
        (an outage shorter than the wait) does not end it; the last read that succeeded decides.
      - V(0) decides at once. Check mode never waits.
    type: int
    default: 0
  on_busy:
    description:
      - What to do when the server still has more than O(max_players) players.
      - V(skip) queues nothing and returns RV(changed=false) with RV(skipped_reason).
      - V(fail) fails the task and queues nothing.
    type: str
    choices: [skip, fail]
    default: skip
  stopped_statuses:
    description:
      - Status values that count as stopped, for O(state=stopped) and for O(max_players).
    type: list
    elements: str
    default: [offline, stopped]
  only_if_status:
    description:
      - Send the action only when the server's status is one of these; otherwise nothing is sent, RV(changed) is
        false and RV(skipped_reason) says why.
      - The status judged is the one read just before the action would be sent (and read again after a wait for
        players to leave), so a server stopped or put into maintenance after an earlier read (an inventory, a
        fleet read of a role) is left alone. O(state=restarted) with V([online]) restarts running servers and never
        starts one.
      - A server already in the requested O(state) is unchanged whatever its status.
      - Left out, the action is sent in any status.
    type: list
    elements: str
  ignore_pending:
    description:
      - Send the action even when the ledger holds an open entry for the same action on this server (an action an
        earlier run queued whose outcome no read has shown yet). The new entry replaces the old one.
      - Use it once the agent was fixed, or after checking the server, when the pending action is known to be lost.
      - Without it, an open entry for the same action means nothing is sent; see RV(pending).
    type: bool
    default: false
  confirm_only:
    description:
      - Send nothing. Confirm the action an earlier task queued for this server, as the ledger holds it (the action
        of O(state); V(restarted) confirms a restart). An open entry is waited for with O(wait=true) (from one
        O(poll_interval) after it was queued, never longer than O(wait_timeout)), and the task fails when the wait
        runs out, like a wait after queueing; an entry a read has proven done returns RV(converged=true) at once.
      - With no such entry in the ledger the task succeeds having confirmed nothing, and says so in RV(msg).
      - The second task of the fast fleet pattern (see the examples). A first task queues with O(wait=false) on every
        host, then this one confirms them all, so no fork holds a host's wait while others wait to be queued. Run it
        only where the first task left RV(unconfirmed=true).
      - O(min_uptime), O(max_players) and O(only_if_status) do not apply, since nothing is sent.
      - Only with O(id) or O(name).
    type: bool
    default: false
notes:
  - The module talks to the panel from the controller (or whichever host runs it); game servers need no SSH access.
  - When the task runs on the controller (C(localhost), or hosts with C(ansible_connection=local) such as those of
    the P(gamepanel.panel.servers#inventory) inventory), its action plugin runs it inside Ansible's worker process,
    which saves starting a Python interpreter per host; the controller's Python then needs C(requests). Delegated to
    another host, or with C(become) or C(async), the module is executed there as usual. Both ways return the same
    values.
  - With many forks, the requests of all of them share one rate budget per token on the controller.
seealso:
  - module: gamepanel.panel.server_info
"""

EXAMPLES = r"""
# Monthly maintenance that can simply be run again after a partial failure: servers
# restarted less than an hour ago (by the first run) are not restarted again.
- name: Restart Survival unless it came up within the last hour
  gamepanel.panel.server_control:
    name: Survival
    state: restarted
    min_uptime: 3600

# Fleet restart, five servers at a time, from the gamepanel.panel.servers inventory.
# Busy servers are skipped, not interrupted: a later run picks them up.
- name: Restart empty servers
  hosts: status_online
  gather_facts: false
  serial: 5
  tasks:
    - name: Restart when at most one player is online (wait up to 10 minutes for it)
      gamepanel.panel.server_control:
        id: "{{ gamepanel_id }}"
        state: restarted
        only_if_status: [online]  # stopped since the inventory was read: left stopped
        min_uptime: 3600
        max_players: 1
        drain_timeout: 600
        on_busy: skip
      register: restart

    - name: Show the servers that were skipped
      ansible.builtin.debug:
        msg: "{{ restart.skipped_reason }}"
      when: restart.skipped_reason is not none

- name: Stop a server once it is empty, and fail if players stay on
  gamepanel.panel.server_control:
    id: rust-02
    state: stopped
    max_players: 0
    drain_timeout: 300
    on_busy: fail

- name: Make sure a server is running, without waiting for its agent
  gamepanel.panel.server_control:
    id: mc-03
    state: started
    wait: false

- name: Restart through the planned (unreleased) API variant
  gamepanel.panel.server_control:
    id: mc-01
    state: restarted
    api_variant: planned

# The fast fleet pattern: queue every host's restart first, then confirm them together. With one
# task that queues and waits, each fork holds its host through the agent's check-in and the boot
# while the hosts behind it wait to be queued.
- name: Restart the whole fleet at the panel's rate
  hosts: status_online
  gather_facts: false
  tasks:
    - name: Queue the restart
      gamepanel.panel.server_control:
        id: "{{ gamepanel_id }}"
        state: restarted
        only_if_status: [online]  # a server stopped since the inventory was read stays stopped
        wait: false
      register: queued

    - name: Confirm the restarts the first task queued
      gamepanel.panel.server_control:
        id: "{{ gamepanel_id }}"
        state: restarted
        confirm_only: true
      when: queued.unconfirmed

# Connection settings once for every module of the collection.
- name: Nightly restarts
  hosts: localhost
  gather_facts: false
  module_defaults:
    group/gamepanel.panel.panel:
      base_url: https://panel.example.com/api/v1
      api_token: "{{ lookup('ansible.builtin.env', 'ACME_PANEL_TOKEN') }}"
      rate_limit: 600
  tasks:
    - name: Restart the Minecraft servers
      gamepanel.panel.server_control:
        id: "{{ item }}"
        state: restarted
        wait_timeout: 600
      loop: [mc-01, mc-02]

# Many servers in one task: one process reads the fleet, sends at the token's rate and confirms
# with list reads (no fork per server). Its result has a line per server in "servers". The
# first Minecraft server the task acts on is restarted alone and confirmed first (the canary).
- name: Restart the Minecraft servers of the inventory in one task
  hosts: localhost
  gather_facts: false
  tasks:
    - name: Restart those up for an hour or more
      gamepanel.panel.server_control:
        ids: "{{ groups['game_minecraft'] | map('extract', hostvars, 'gamepanel_id') | list }}"
        state: restarted
        min_uptime: 3600
        canary: 1
      register: minecraft

    - name: Show what happened to each
      ansible.builtin.debug:
        msg: "{{ minecraft.summary }}"
"""

RETURN = r"""
changed:
  description: Whether an action was queued (in check mode, whether one would be).
  returned: always
  type: bool
  sample: true
action:
  description: The action queued (or, in check mode, that would be queued), or null when none was.
  returned: always
  type: str
  sample: restart
before:
  description:
    - The server as read before anything was queued, with the Server fields of the API.
    - Null only when the server could not be read at all.
  returned: always
  type: dict
  sample: {id: mc-01, name: Survival, game: minecraft, status: online, players: {current: 3, max: 20},
           cpu: 12.5, memory_mb: 2048, uptime_seconds: 86400}
server:
  description:
    - The server as last read. After a wait, the read that ended it; otherwise the same as RV(before).
    - Its C(status) is the panel's raw value, known or not.
  returned: always
  type: dict
  sample: {id: mc-01, name: Survival, game: minecraft, status: online, players: {current: 0, max: 20},
           cpu: 3.1, memory_mb: 1900, uptime_seconds: 12}
converged:
  description:
    - True when a wait saw the requested state, false when it ran out first.
    - Null when nothing was waited for (O(wait=false), check mode, or nothing queued).
  returned: always
  type: bool
  sample: true
elapsed:
  description: Seconds the module spent, waits included.
  returned: always
  type: float
  sample: 41.2
skipped_reason:
  description:
    - Why nothing was sent to a server that needed an action; null otherwise.
    - A busy server (O(max_players) with O(on_busy=skip)), or a status outside O(only_if_status).
  returned: always
  type: str
  sample: Survival (mc-01) has 3 players online, more than max_players (0).
pending:
  description:
    - The ledger entry the decision relied on, or null. It is an action an earlier run (or another process) queued
      for this server; when it is the same action, nothing new was sent.
    - Also set when a restart the ledger holds within O(min_uptime) counted as the restart, and when an open entry
      of another action stood (the requested action was then sent).
  returned: always
  type: dict
  contains:
    id:
      description: Server id.
      type: str
      sample: mc-01
    action:
      description: The action queued.
      type: str
      sample: restart
    queued_at:
      description: When it was queued, in seconds since the epoch.
      type: float
      sample: 1790000000.0
    state:
      description:
        - C(sending) (written before the POST; the run stopped before the answer), C(queued), C(may_be_queued)
          (the answer was lost) or C(done).
      type: str
      sample: queued
unconfirmed:
  description:
    - True when an action this task queued, or an open one of the same action it found in the ledger and did not send
      again, has not been confirmed by a read (O(wait=false), or a wait that ran out). A later task with
      O(confirm_only=true) confirms it.
    - False in check mode and when nothing is waiting to be confirmed.
  returned: always
  type: bool
  sample: true
msg:
  description: Why nothing new was sent, or what was pending, when the ledger decided (or what O(confirm_only) found).
  returned: when the ledger held an entry for the server, and with O(confirm_only=true)
  type: str
  sample: "A restart of Survival (mc-01) was queued at 2026-11-24 13:40:00 UTC (ledger state queued: the panel accepted
    it and no read has shown it applied yet). Nothing new was sent."
ansible_facts:
  description:
    - Facts of the host the task ran for, whether the task ran on the controller or was executed on another host.
  returned: with O(id) or O(name)
  type: dict
  contains:
    gamepanel_ledger:
      description:
        - The ledger entries of the controlled server, plus those the host's fact already carried for other servers.
          A later task or job of the same host merges them into its own ledger before it decides, so a job that
          shares no state directory with this one (AWX with fact storage, or a fact cache) does not queue again what
          this one queued. No token is in it.
        - Ansible keeps no facts of a failed task; a play that needs the entries of a failed task registers the
          result and sets the fact from it, as the fleet roles do with the C(ledger) of their O(ids) task in their
          "Record the outcome" step. See the AWX guide.
        - A task executed as a module on another host (delegated, C(become), C(async)) returns it too, but cannot
          merge the fact before it decides, since host facts do not reach a module.
      type: list
      elements: dict
servers:
  description:
    - With O(ids), one line per server (each id once, in the order given). The other return values that describe
      one server (RV(before), RV(server), RV(action), RV(converged), RV(pending), RV(unconfirmed)) are then absent.
  returned: with O(ids) or O(hosts)
  type: list
  elements: dict
  contains:
    id:
      description: The server's id (null on the line of a host without C(gamepanel_id), with O(hosts)).
      type: str
    host:
      description: With O(hosts), the inventory host the line is for.
      type: str
      returned: with O(hosts)
    account:
      description: With O(hosts), the host's account (C(gamepanel_account), else its panel's address).
      type: str
      returned: with O(hosts)
      sample: mc-01
    name:
      description: Its display name, as last read (null when it could not be read).
      type: str
      sample: Survival
    changed:
      description: Whether an action was queued for it (in check mode, whether one would be).
      type: bool
    action:
      description: The action queued (or that would be), or null.
      type: str
      sample: restart
    converged:
      description: True when a read showed the requested state after the action, false when the wait ran out, null
        when nothing was waited for.
      type: bool
    skipped_reason:
      description: Why a gate (O(only_if_status), O(max_players)) held the action back, or null.
      type: str
    pending:
      description: The ledger entry the decision relied on, as RV(pending) for one server, or null.
      type: dict
    status:
      description: Its status as last read (the panel's raw value).
      type: str
      sample: online
    uptime_seconds:
      description: Its uptime as last read, when the panel gives one.
      type: int
      sample: 12
    players:
      description: Its player count as last read, or null when the panel gives none.
      type: int
      sample: 0
    held_by:
      description: The gate that held its action back on the latest decision, V(status) (O(only_if_status)) or
        V(players) (O(max_players)), else null.
      type: str
      sample: players
    counted:
      description: Whether the ledger counted a restart queued less than O(min_uptime) ago as the restart (nothing
        new sent).
      type: bool
    in_state:
      description: Whether the read showed nothing to do (the requested state, or with O(min_uptime) a server up for
        less than that).
      type: bool
    drained:
      description: Whether players were waited for (O(drain_timeout)); the gates were then judged on later reads.
      type: bool
    msg:
      description: What happened to it in a sentence, when there is more to say than the other fields do (always
        when it failed).
      type: str
    failed:
      description: Whether this server failed (a wait that ran out, a lost answer not confirmed, an error).
      type: bool
    diff:
      description: In diff mode, its status before and the status expected (or reached) after.
      type: dict
summary:
  description: With O(ids), how many servers ended each way.
  returned: with O(ids) or O(hosts)
  type: dict
  contains:
    total:
      description: Servers in O(ids) (each once).
      type: int
    changed:
      description: Servers an action was queued for.
      type: int
    unchanged:
      description: Servers already in the requested state, or counted so by the ledger, that did not fail.
      type: int
    skipped:
      description: Servers a gate held back (RV(servers[].skipped_reason)).
      type: int
    failed:
      description: Servers that failed.
      type: int
    converged:
      description: Servers a read showed in the requested state after the action.
      type: int
    pending:
      description: Servers whose decision relied on a ledger entry.
      type: int
  sample: {total: 60, changed: 58, unchanged: 1, skipped: 1, failed: 0, converged: 58, pending: 0}
canary:
  description: With O(ids) and O(canary) above 0, the canary the task sent, or null without O(canary).
  returned: with O(ids) or O(hosts)
  type: dict
  contains:
    ids:
      description: The canary's servers (in check mode, those it would be), empty when no server was to be sent.
      type: list
      elements: str
      sample: [srv-00002]
    confirmed:
      description: True when every canary came back before anything else was sent, false when one did not (and
        nothing else was sent), null when no canary was sent.
      type: bool
    msg:
      description: The same in a sentence.
      type: str
      sample: The canary (srv-00002) came back before anything else was sent.
ledger:
  description:
    - With O(ids), each server's ledger entries by id (with O(hosts), by host), for the fleet roles to keep in each
      host's C(gamepanel_ledger) fact (one host's facts never hold a whole fleet's).
  returned: with O(ids) or O(hosts)
  type: dict
pace:
  description:
    - How the task's requests were paced, in words, for example C(paced at 120 requests a minute (rate_limit)), or
      C(not paced (rate_limit 0)).
    - When the panel's rate-limit headers (C(X-RateLimit-Limit), C(RateLimit-Limit)) announce another limit for the
      token, the task also warns, once, with the number to set.
  returned: always, except when the connection options are invalid
  type: str
  sample: paced at 120 requests a minute (rate_limit)
panel:
  description:
    - The panel the task talked to. With a server's C(id) it identifies that server across jobs and tokens
      (Automation Platform counts managed game servers by it). Never holds the token or other credentials.
  returned: always, except when the connection options are invalid
  type: dict
  contains:
    base_url:
      description: The API's base URL as the client uses it (normalized, without user or password).
      type: str
      sample: https://panel.example.com/api/v1
    api_variant:
      description: The API variant, V(live) or V(planned).
      type: str
      sample: live
api:
  description: Requests this module made to the panel.
  returned: always
  type: dict
  contains:
    requests:
      description: HTTP requests sent, retries included.
      type: int
      sample: 7
    retries:
      description: Requests that were retries (after a 429, a 5xx or a connection failure).
      type: int
      sample: 0
    waited_seconds:
      description: Seconds spent waiting for the rate budget or a C(Retry-After).
      type: float
      sample: 0.0
status:
  description: HTTP status of the panel's error answer behind a failure, when there was one.
  returned: on failure
  type: int
  sample: 403
diff:
  description:
    - With C(--diff), the status before and the status expected (or reached) after.
    - With O(ids), a list of such entries, one for each server whose status changes, each headed by the server's id.
  returned: in diff mode
  type: raw
  sample:
    before: {status: offline}
    after: {status: online}
"""

from ansible_collections.gamepanel.panel.plugins.module_utils._entry.specs import SERVER_CONTROL, run_task_module
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.tasks import server_control


# Two ways this task runs, one implementation (module_utils/_entry/specs.py, server_control):
# - on the controller (localhost, or any host with a local connection, such as the servers
#   inventory's), the action plugin of the same name, plugins/action/server_control.py, runs it in Ansible's
#   worker process, no module executed (plugins/plugin_utils/action_in_process.py says when);
# - everywhere else (delegated to another host, become, async), this file is executed as a module.
# Both return the same values (tests/integration/test_action_path.py compares them).
def main():
    run_task_module(SERVER_CONTROL, server_control)


if __name__ == "__main__":
    main()
