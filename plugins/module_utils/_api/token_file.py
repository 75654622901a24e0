# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: The API token read from a file, for jobs that must not carry it in a command line or a variable.

A systemd credential (``LoadCredential=``), a container secret or a file a cron job names
holds the token; ``GAMEPANEL_API_TOKEN_FILE`` (and the inventory's ``api_token_file``)
gives its path. The modules and the inventory plugin both read it here. No message built
here quotes the file's content: a file in the wrong place may still hold a secret.
"""

from __future__ import annotations

import hashlib
import os
import stat

from ansible_collections.gamepanel.panel.plugins.module_utils._api.errors import PanelAuthError

TOKEN_ENV = "GAMEPANEL_API_TOKEN"
TOKEN_FILE_ENV = "GAMEPANEL_API_TOKEN_FILE"
# The inventory file's option for the same (the inventory plugin and the event source read it).
TOKEN_FILE_OPTION = "api_token_file"
# A token is a few hundred bytes at most; a bigger file is the wrong file, and is not read whole.
MAX_TOKEN_FILE_BYTES = 64 * 1024


class TokenFileError(PanelAuthError):
    """The token file cannot be used; the message names the file, the setting that named it, and the fix."""


def read_token_file(path, named_by):
    """The token the file at ``path`` holds, without the surrounding whitespace (the trailing newline).

    ``named_by`` is the setting that gave the path, for the messages. Raises TokenFileError
    for a file that is missing, unreadable, not a regular file, readable by every user, empty or too big.
    """
    where = "The API token file %s (from %s)" % (path, named_by)
    try:
        # O_NONBLOCK: a FIFO put there by mistake must not hang the job before it is refused below.
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except FileNotFoundError:
        raise TokenFileError(
            "%s does not exist. Write the API token into it, or correct %s." % (where, named_by)
        ) from None
    except OSError as error:
        raise TokenFileError("%s cannot be opened: %s." % (where, error.strerror or error)) from None
    try:
        # Checked on the open file, so a file swapped in between cannot slip past.
        mode = os.fstat(descriptor).st_mode
        if not stat.S_ISREG(mode):
            raise TokenFileError(
                "%s is not a regular file: point %s at the file that holds the token." % (where, named_by)
            )
        if mode & stat.S_IROTH:
            raise TokenFileError(
                "%s can be read by every user of this machine (mode %04o): make it readable by its owner only, "
                "for example with chmod 600 (or mode 0400 for a container secret)." % (where, stat.S_IMODE(mode))
            )
        content = os.read(descriptor, MAX_TOKEN_FILE_BYTES + 1)
    finally:
        os.close(descriptor)
    if len(content) > MAX_TOKEN_FILE_BYTES:
        raise TokenFileError("%s is larger than %d bytes: it is not a token file." % (where, MAX_TOKEN_FILE_BYTES))
    try:
        token = content.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise TokenFileError("%s does not hold text: write only the API token into it." % where) from None
    if not token:
        raise TokenFileError(
            "%s is empty: write the API token into it (create one in the panel under Settings \u2192 API tokens)."
            % where
        )
    return token


def in_file(path, named_by):
    """Where a token is, in words, when a file holds it: the file and the setting that named it."""
    return "the file %s (%s)" % (path, named_by)


def in_variable(name):
    """Where a token is, in words, when an environment variable holds it."""
    return "the environment variable %s" % name


def in_inventory_file(path):
    """Where a token is, in words, when an inventory file's ``api_token`` holds it."""
    return "api_token in %s" % path


def token_digest(token):
    """A short one-way digest of ``token``, to tell two tokens apart where the token itself must not go.

    The inventory hands it on with a host's connection, and a job compares the token it is about to
    send with it. Distinct from the state files' key (_state/files.py), so the two never match.
    """
    return hashlib.sha256(b"gamepanel.panel token digest\0" + token.encode("utf-8")).hexdigest()[:16]


def token_from_environment(variables=(TOKEN_ENV,), environ=None):
    """The token the environment gives: the first of ``variables`` set, else the file ``GAMEPANEL_API_TOKEN_FILE`` names.

    ``environ``: the environment to read (os.environ by default). None when none is set (an empty value
    counts as unset); TokenFileError for a named file that cannot be used.
    """
    return environment_token(variables, environ)[0]


def environment_token(variables=(TOKEN_ENV,), environ=None):
    """``(token, where)``: token_from_environment's token and the words naming where it came from, or ``(None, None)``."""
    environ = os.environ if environ is None else environ
    for variable in variables:
        if environ.get(variable):
            return environ[variable], variable
    path = environ.get(TOKEN_FILE_ENV)
    if not path:
        return None, None
    return read_token_file(path, TOKEN_FILE_ENV), in_file(path, TOKEN_FILE_ENV)


def api_token_fallback(*variables):
    """The modules' ``api_token`` fallback: token_from_environment(``variables``), so the token is a no_log value.

    Given as ``(api_token_fallback, [TOKEN_ENV])``, the shape of ``env_fallback``, which readers of
    the argument spec that know only that shape (the event source) still understand. A token file
    that cannot be used counts as no token here, because a fallback cannot fail a task cleanly; the
    module's client set-up asks token_from_environment again and says why.
    """
    try:
        token = token_from_environment(variables)
    except TokenFileError:
        token = None
    if token is None:
        # imported here: the client imports this file, and must import where only requests is installed
        # (an execution environment's check of its requirements, the event source)
        from ansible.module_utils.errors import AnsibleFallbackNotFound

        raise AnsibleFallbackNotFound
    return token
