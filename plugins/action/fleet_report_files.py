# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Action plugin of gamepanel.panel.fleet_report_files: write the fleet report on the controller.

The data work is in plugin_utils/report_pages.py; this file only checks the arguments, finds
the page template (the fleet_report role's) and writes the files.
"""

from __future__ import annotations

import os
from datetime import datetime, timezone

from ansible.errors import AnsibleActionFail
from ansible.module_utils.common.text.converters import to_native
from ansible.plugins.action import ActionBase

from ansible_collections.gamepanel.panel.plugins.module_utils._api.client import COLLECTION_VERSION, PanelClient
from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelError
from ansible_collections.gamepanel.panel.plugins.module_utils._entry.connection import panel_argument_spec
from ansible_collections.gamepanel.panel.plugins.plugin_utils import job_connection
from ansible_collections.gamepanel.panel.plugins.plugin_utils import report_pages
from ansible_collections.gamepanel.panel.plugins.plugin_utils import eda_watch

COLLECTION_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
TEMPLATE = os.path.join(COLLECTION_ROOT, "roles", "fleet_report", "templates", "fleet_report.html.j2")

# The shared connection options are accepted so that module_defaults for group/gamepanel.panel.panel
# and the inventory's gamepanel_connection reach this action too; only base_url and api_variant are used (the page
# names the panel, the watcher's incident record is the panel's), nothing is sent to the panel.
ARGUMENT_SPEC = dict(
    panel_argument_spec(),
    servers={"type": "list", "elements": "dict", "required": True},
    dest={"type": "path", "required": True},
    include={"type": "list", "elements": "str", "choices": list(report_pages.INCLUDE_KINDS), "default": []},
    games={"type": "list", "elements": "str", "default": []},
    statuses={"type": "list", "elements": "str", "default": []},
    pending={"type": "list", "elements": "dict", "default": []},
    panels={"type": "list", "elements": "dict", "default": []},
)


def watcher_incidents(panels, base_url=None, api_variant=None):
    """The fleet watcher's recent incidents of the report's accounts, each with its account; [] when there are none.

    ``panels`` (``[{account, base_url, api_variant}]``, one per account) or, for one account, ``base_url``
    and ``api_variant`` name the panels whose records (state directory, beside their ledgers) are read: no
    token is needed, and ids that repeat across accounts stay apart.
    """
    accounts = []
    for entry in panels or [{"account": None}]:
        try:
            # the base URL as the watcher's client holds it (normalised), so that the panel is named alike
            url = PanelClient._check_base_url(entry.get("base_url") or base_url)  # pylint: disable=protected-access
        except PanelError:
            continue  # no panel named: no record to read
        accounts.append((entry.get("account"), "%s %s" % (entry.get("api_variant") or api_variant or "live", url)))
    try:
        return eda_watch.incidents_of_accounts(accounts)
    except (OSError, ValueError):
        return []


class ActionModule(ActionBase):
    """Prepare the report's data, render it and write the three files."""

    TRANSFERS_FILES = False
    _requires_connection = False

    def run(self, tmp=None, task_vars=None):
        result = super().run(tmp, task_vars)
        del tmp  # nothing goes to a remote host
        try:
            # the servers of several accounts name their panels themselves (panels): no one connection applies
            if not self._task.args.get("panels"):
                self._task.args = job_connection.task_arguments(
                    self._task.args,
                    job_connection.host_variables(self._templar, task_vars or {}, self._task.delegate_to),
                )
        except job_connection.ConnectionVariableError as error:
            raise AnsibleActionFail(str(error)) from None
        _validation, args = self.validate_argument_spec(argument_spec=ARGUMENT_SPEC)

        try:
            with open(TEMPLATE, encoding="utf-8") as handle:
                template = handle.read()
        except OSError as exc:
            raise AnsibleActionFail(f"cannot read the report template {TEMPLATE}: {to_native(exc)}") from None

        try:
            report = report_pages.prepare_report(
                args["servers"],
                taken_at=datetime.now(timezone.utc),
                panel_url=args["base_url"],
                collection_version=COLLECTION_VERSION,
                include=args["include"],
                games=args["games"],
                statuses=args["statuses"],
                incidents=watcher_incidents(args["panels"], args["base_url"], args["api_variant"]),
                pending=args["pending"],
                panels=args["panels"],
            )
            contents = report_pages.render_all(report, template)
            paths = report_pages.file_paths(args["dest"])
            if self._task.check_mode:
                written = dict(paths)
            else:
                written = report_pages.write_files(args["dest"], contents)
        except (report_pages.ReportError, OSError) as exc:
            raise AnsibleActionFail(f"the fleet report was not written: {to_native(exc)}") from None

        summary = report["summary"]
        result.update(
            changed=bool(written),
            dest=os.path.dirname(paths["html"]),
            files=paths,
            written=sorted(written),
            bytes={kind: len(text.encode("utf-8")) for kind, text in contents.items()},
            taken_at=report["meta"]["taken_at"],
            summary={
                "servers": summary["servers"],
                "statuses": {entry["label"]: entry["count"] for entry in summary["statuses"]},
                "players_online": summary["players"]["online"],
                "players_capacity": summary["players"]["capacity"],
                "pending": summary["pending"],
            },
        )
        return result
