# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""Stand-in for the get-pip.py bootstrap script that ansible-test downloads.

Every ansible-test command that builds a virtual environment (``sanity --venv``,
``units --venv`` ...) bootstraps pip with a ``get-pip.py`` script fetched from a
host this project's machines cannot reach. ansible-test first looks for a cached
copy at ``~/.ansible/test/cache/get_pip_<pip version with dots as underscores>.py``.

This file plays two roles:

* ``python .ci/get_pip_standin.py --install-cache`` (run with the Python of a
  virtual environment holding ansible-core) reads the pip version that this
  ansible-test pins and copies this file into that cache path.
* Run by ansible-test as the bootstrap script (``python get_pip_X_Y.py
  [pip options] pip==X.Y ...``), it installs pip from the wheel bundled with
  ``ensurepip`` and then lets that pip install the exact packages ansible-test
  asked for (from PyPI, like every other requirement ansible-test installs).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

CACHE_DIR = os.path.expanduser(os.path.join("~", ".ansible", "test", "cache"))
MARKER = "gamepanel.panel get-pip stand-in"
GET_PIP_ONLY_OPTIONS = ("--no-setuptools", "--no-wheel")


def ansible_test_pip_version() -> str:
    """Return the pip version the installed ansible-test bootstraps."""
    import ansible_test  # pylint: disable=import-outside-toplevel

    source = os.path.join(os.path.dirname(ansible_test.__file__), "_internal", "python_requirements.py")
    with open(source, encoding="utf-8") as handle:
        text = handle.read()
    match = re.search(r"default_packages\s*=\s*dict\(\s*pip\s*=\s*'([0-9][0-9a-zA-Z.]*)'", text)
    if not match:
        raise SystemExit(f"{MARKER}: cannot find the pinned pip version in {source}")
    return match.group(1)


def install_cache() -> None:
    """Copy this script to the cache path ansible-test looks at."""
    version = ansible_test_pip_version()
    target = os.path.join(CACHE_DIR, f"get_pip_{version.replace('.', '_')}.py")
    os.makedirs(CACHE_DIR, exist_ok=True)
    with open(__file__, "rb") as handle:
        content = handle.read()
    if os.path.exists(target):
        with open(target, "rb") as handle:
            if handle.read() == content:
                print(f"{MARKER}: {target} is up to date (pip {version})")
                return
    temp = target + ".tmp"
    with open(temp, "wb") as handle:
        handle.write(content)
    shutil.move(temp, target)
    print(f"{MARKER}: wrote {target} (pip {version})")


def bootstrap(args: list[str]) -> None:
    """Install pip into the running interpreter, then the requested packages."""
    env = dict(os.environ)
    env.pop("GET_PIP", None)
    try:
        import pip  # noqa: F401 pylint: disable=import-outside-toplevel,unused-import
    except ImportError:
        run([sys.executable, "-m", "ensurepip", "--default-pip"], env)
    # get-pip.py's own options: by default it also installs setuptools and wheel, which these
    # turn off. ansible-test names every package it wants, so they need no counterpart here.
    args = [arg for arg in args if arg not in GET_PIP_ONLY_OPTIONS]
    packages = [arg for arg in args if not arg.startswith("-")]
    if packages:
        run([sys.executable, "-m", "pip", "install", "--upgrade"] + args, env)
    print(f'{MARKER}: installed {" ".join(packages) or "pip"}')


def run(command: list[str], env: dict[str, str]) -> None:
    """Run a command quietly; show its output only when it fails."""
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.stdout.write(result.stdout)
        sys.stderr.write(result.stderr)
        raise SystemExit(f'{MARKER}: {" ".join(command)} exited {result.returncode}')


def main() -> None:
    """Entry point for both roles."""
    args = sys.argv[1:]
    if args == ["--install-cache"]:
        install_cache()
    else:
        bootstrap(args)


if __name__ == "__main__":
    main()
