# shellcheck shell=bash
# Run a playbook against the gamepanel emulator and check what it did to the panel.
# Needs: ansible-playbook with gamepanel.panel installed, curl, and the emulator installed
# in the Python named by $EMULATOR_PYTHON (default python3): pip install gamepanel-emulator.
# Usage: bash test-with-emulator.sh   (from any directory)
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
work=$(mktemp -d)

# 1. Start the emulator on a free port. Its first line on stdout holds its URLs.
"${EMULATOR_PYTHON:-python3}" -m gamepanel_emulator --port 0 > "$work/emulator.json" 2> "$work/emulator.log" &
emulator_pid=$!
trap 'kill "$emulator_pid" 2>/dev/null || true; rm -rf "$work"' EXIT
for _ in $(seq 100); do
  [ -s "$work/emulator.json" ] && break
  kill -0 "$emulator_pid" 2>/dev/null || { cat "$work/emulator.log"; exit 1; }
  sleep 0.1
done
url() { sed -n "s/.*\"$1\": \"\\([^\"]*\\)\".*/\\1/p" "$work/emulator.json"; }
control=$(url control)

# 2. Point the collection at it, with a token of the emulator's built-in fixture.
export GAMEPANEL_BASE_URL
GAMEPANEL_BASE_URL=$(url live)
export GAMEPANEL_API_TOKEN=gp-test-owner-control
export GAMEPANEL_STATE_DIR="$work/state"

# 3. Run the playbook twice: the second run must change nothing.
ansible-playbook -i "$here/fleet.gamepanel.yml" "$here/restart_empty.yml"
ansible-playbook -i "$here/fleet.gamepanel.yml" "$here/restart_empty.yml"

# 4. Check what the panel saw: one restart of mc-02 (empty), none of mc-01 (3 players on),
#    and a single action POST in both runs together.
counters=$(curl -fsS "$control/counters")
echo "emulator counters: $counters"
expect() {
  echo "$counters" | grep -q "$1" || { echo "FAILED: expected $2"; exit 1; }
}
expect '"restarts": {"mc-02": 1}' "exactly one restart, of mc-02"
expect '"posts": {"mc-02": 1}' "exactly one action sent, to mc-02"
echo "OK: the playbook restarted mc-02 once, spared mc-01, and its second run sent nothing"
