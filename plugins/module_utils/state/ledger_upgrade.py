# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: moving the ledger's entries from the token-keyed layout of earlier releases to the panel's ledger.

Earlier releases kept the ledger per token (``<sha256 of the token>.ledger.NN``).  After a
token rotation nobody knows the old token any more, so every such file in the state
directory is looked at, whatever its token: the entries of this panel (each entry records
its panel) are merged into the panel's ledger, the most recently updated copy winning, and
only then removed from the old file, which is deleted once empty.  A process that stops in
between leaves the entries in both places, and the next one merges them again to the same
result: no entry is lost by upgrading.
"""

from __future__ import annotations

import os
import re

from ansible_collections.gamepanel.panel.plugins.module_utils.state.files import StateFiles

# A bucket of the token-keyed layout: the token's hash, then the bucket's kind.
TOKEN_BUCKET = re.compile(r"^([0-9a-f]{64})\.(ledger\.[0-9]{2})$")


def move_token_buckets(ledger):
    """Move this panel's entries out of token-keyed bucket files into ``ledger``; returns how many were taken."""
    if not ledger.durable:
        return 0
    try:
        names = sorted(os.listdir(ledger.files.directory))
    except OSError:
        return 0
    moved = 0
    for name in names:
        match = TOKEN_BUCKET.match(name)
        if match is not None:
            moved += _move_bucket(
                ledger, StateFiles(match.group(1), ledger.files.directory, probe=None), match.group(2)
            )
    return moved


def _move_bucket(ledger, old, kind):
    ours = [
        entry
        for entry in ((old.read(kind).get("entries") or {}).values())
        if isinstance(entry, dict) and entry.get("panel") == ledger.panel
    ]
    if not ours:
        return 0
    taken = ledger.merge(ours)
    # Each entry is keyed by panel, server and action; an entry updated since it was copied stays.
    copied = dict(((entry.get("id"), entry.get("action")), entry.get("updated_at")) for entry in ours)

    def remove(document):
        entries = document.get("entries") or {}
        for key in [
            key
            for key, entry in entries.items()
            if isinstance(entry, dict)
            and entry.get("panel") == ledger.panel
            and copied.get((entry.get("id"), entry.get("action")), object()) == entry.get("updated_at")
        ]:
            del entries[key]
        return not entries

    try:
        if old.update(kind, remove, durable=True):
            for path in (old.path(kind), old.path(kind + ".lock")):
                os.unlink(path)
    except OSError:
        pass  # the copy is in the panel's ledger; a later run removes it from here
    return taken
