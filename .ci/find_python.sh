#!/usr/bin/env bash
# What no stock tool does: prints the first Python of the given versions that runs (pyenv's shims may not).
# For example .ci/find_python.sh 3.13 3.12 (the Makefile sets PYTHON_OLDEST and PYTHON_LATEST with it):
# pyenv's real interpreters under $(pyenv root) first, then pythonX.Y on PATH, then python3; nothing if none works.
set -u
root=$(pyenv root 2>/dev/null || true)
candidates=()
for version in "$@"; do
    if [ -n "$root" ]; then
        for path in "$root"/versions/"$version".*/bin/python"$version"; do
            [ -e "$path" ] && candidates+=("$path")
        done
    fi
done
for version in "$@"; do
    candidates+=("python$version")
done
candidates+=(python3)
for candidate in "${candidates[@]}"; do
    if "$candidate" -c 'import sys' >/dev/null 2>&1; then
        command -v "$candidate"
        exit 0
    fi
done
