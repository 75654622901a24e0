# What no stock tool does: the get-pip.py that ansible-test downloads from a host these machines cannot reach.
# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)
"""A stand-in for ansible-test's get-pip.py, which it first looks for in its cache.

``python .ci/get_pip_standin.py --install-cache`` (with the Python of a venv holding ansible-core)
copies this file to ~/.ansible/test/cache/get_pip_<pip version, dots as underscores>.py, the
version being the pip that ansible-test pins. Run by ansible-test as the bootstrap script
(``python get_pip_X_Y.py [pip options] pip==X.Y ...``) it installs pip from ensurepip's wheel, then
lets that pip install the packages ansible-test asked for.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys

CACHE_DIR = os.path.expanduser(os.path.join("~", ".ansible", "test", "cache"))
MARKER = "gamepanel.panel get-pip stand-in"
GET_PIP_ONLY_OPTIONS = ("--no-setuptools", "--no-wheel")  # get-pip.py's own: ansible-test names every package


def install_cache() -> None:
    """Copy this script to the cache path ansible-test looks at."""
    import ansible_test  # pylint: disable=import-outside-toplevel

    source = os.path.join(os.path.dirname(ansible_test.__file__), "_internal", "python_requirements.py")
    with open(source, encoding="utf-8") as handle:
        match = re.search(r"default_packages\s*=\s*dict\(\s*pip\s*=\s*'([0-9][0-9a-zA-Z.]*)'", handle.read())
    if not match:
        raise SystemExit(f"{MARKER}: cannot find the pinned pip version in {source}")
    target = os.path.join(CACHE_DIR, f"get_pip_{match.group(1).replace('.', '_')}.py")
    os.makedirs(CACHE_DIR, exist_ok=True)
    with open(__file__, "rb") as handle:
        content = handle.read()
    with open(f"{target}.{os.getpid()}", "wb") as handle:
        handle.write(content)
    os.replace(f"{target}.{os.getpid()}", target)  # at once: several checkouts may share the cache
    print(f"{MARKER}: wrote {target} (pip {match.group(1)})")


def run(command: list[str]) -> None:
    """Run a command quietly; show its output only when it fails."""
    env = {key: value for key, value in os.environ.items() if key != "GET_PIP"}
    result = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        sys.stdout.write(result.stdout + result.stderr)
        raise SystemExit(f'{MARKER}: {" ".join(command)} exited {result.returncode}')


def bootstrap(args: list[str]) -> None:
    """Install pip into the running interpreter, then the requested packages."""
    try:
        import pip  # noqa: F401 pylint: disable=import-outside-toplevel,unused-import
    except ImportError:
        run([sys.executable, "-m", "ensurepip", "--default-pip"])
    args = [arg for arg in args if arg not in GET_PIP_ONLY_OPTIONS]
    packages = [arg for arg in args if not arg.startswith("-")]
    if packages:
        run([sys.executable, "-m", "pip", "install", "--upgrade"] + args)
    print(f'{MARKER}: installed {" ".join(packages) or "pip"}')


if __name__ == "__main__":
    if sys.argv[1:] == ["--install-cache"]:
        install_cache()
    else:
        bootstrap(sys.argv[1:])
