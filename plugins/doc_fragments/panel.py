# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""The connection options shared by every gamepanel.panel module and plugin."""

from __future__ import annotations


class ModuleDocFragment(object):

    # For every module and plugin (gamepanel.panel.panel).  Modules read the environment
    # variables as argument-spec fallbacks; plugins add PLUGIN below for their `env:` entries.
    DOCUMENTATION = r"""
options:
  api_token:
    description:
      - "API token of the panel account, sent as C(Authorization: Bearer <token>)."
      - Create one in the panel under B(Settings → API tokens). A C(read-only) token is enough to read servers;
        actions need a C(control) token (scope C(servers:control)) whose user is an owner or admin.
      - If not set, the value of the E(GAMEPANEL_API_TOKEN) environment variable is used; without that, the token
        is read from the file E(GAMEPANEL_API_TOKEN_FILE) names (a systemd credential, a container secret; its only
        content, a trailing newline ignored). A token is required from one of them.
      - The token file must not be readable by every user of the machine (mode C(0600) or C(0400)); a missing, empty
        or world-readable file fails the task with a message that names the file, never its content.
      - The token never appears in any output, message, log or cache.
    type: str
  base_url:
    description:
      - Root URL of the panel's API, including the version segment, for example V(https://panel.example.com/api/v1).
      - If not set, the value of the E(GAMEPANEL_BASE_URL) environment variable is used. One of the two is required.
    type: str
  api_variant:
    description:
      - Which variant of the API the panel offers.
      - V(live) is the released API, with the sub-resources players, metrics, console and resources and one control
        endpoint for start, stop and restart.
      - V(planned) is the announced, not yet released API, with the sub-resource players only and a restart endpoint
        (no start or stop).
      - If not set, the value of the E(GAMEPANEL_API_VARIANT) environment variable is used.
    type: str
    choices: [live, planned]
    default: live
  validate_certs:
    description:
      - Whether to verify the panel's TLS certificate. Set to V(false) only for a test panel with a self-signed certificate.
    type: bool
    default: true
  request_timeout:
    description:
      - Seconds to wait for the panel to accept a connection and, separately, to answer one request.
    type: float
    default: 30
  rate_limit:
    description:
      - Requests per minute this token may send; the plan sets it (Pro V(120), Team V(600)).
      - Every module and inventory process on the controller that uses the same token shares this budget,
        so many forks together stay under the panel's limit. V(0) turns the client-side pacing off.
      - After a minute with no request, up to this many go at once; then this many a minute.
      - To keep part of the minute free for other tools that use the same token, set it to the share the
        collection may use, for example V(80) on Pro leaves 40 requests a minute to the others.
      - If not set, the value of the E(GAMEPANEL_RATE_LIMIT) environment variable is used.
    type: int
    default: 120
  retry_timeout:
    description:
      - Seconds one request may spend being retried after a rate-limit answer (HTTP 429), a server error (5xx)
        or a connection failure.
      - Reads are retried; an action is retried only when the panel surely did not receive it (HTTP 429, connection
        refused), never after an answer that leaves open whether it was queued.
      - V(0) turns retries off.
    type: float
    default: 60
  allow_insecure_http:
    description:
      - Whether a O(base_url) with plain C(http://) to a host other than this machine is accepted.
      - By default such a URL is refused before anything is sent, because the API token would cross the network
        unencrypted. C(http://) to C(localhost), C(127.0.0.0/8) or C(::1) never leaves the machine and is always accepted.
      - Set to V(true) only for a test panel on a trusted network; every run then shows one warning.
      - If not set, the value of the E(GAMEPANEL_ALLOW_INSECURE_HTTP) environment variable is used.
    type: bool
    default: false
requirements:
  - requests (Python library, where the module or plugin runs)
notes:
  - The panel counts requests per token per minute. The shared budget lives in files named by a hash of the token
    under E(GAMEPANEL_STATE_DIR), by default C(~/.ansible/tmp/gamepanel).
"""

    # For inventory and other plugins (gamepanel.panel.panel.plugin), added after
    # gamepanel.panel.panel: the same options read through Ansible's plugin configuration,
    # so the environment variables become `env:` entries.  Only those entries are here.
    PLUGIN = r"""
options:
  api_token:
    env:
      - name: GAMEPANEL_API_TOKEN
  base_url:
    env:
      - name: GAMEPANEL_BASE_URL
  api_variant:
    env:
      - name: GAMEPANEL_API_VARIANT
  rate_limit:
    env:
      - name: GAMEPANEL_RATE_LIMIT
  allow_insecure_http:
    env:
      - name: GAMEPANEL_ALLOW_INSECURE_HTTP
"""

    # Where a job (a role, a ready playbook) takes its token from, in one sentence: the one place
    # of that wording (gamepanel.panel.panel.job_token). The roles' meta/argument_specs.yml and the
    # ready playbooks' header comments cannot include a fragment, so they repeat this note word for
    # word (markup aside); make docs-check (.ci/docs_sources.py) holds them to it.
    JOB_TOKEN = r"""
notes:
  - The token comes from C(module_defaults)' C(api_token), else the variable C(gamepanel_api_token), else the
    host's inventory source, else C(GAMEPANEL_API_TOKEN) or the file C(GAMEPANEL_API_TOKEN_FILE) names; a token
    other than the one the host's inventory source read its panel with stops the job before anything is sent.
"""
