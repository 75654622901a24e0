# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: How the inventory plugin keeps the panel's data from ever being rendered as a template.

Controller-only: it depends on the templating of the running ansible-core, which changed
in 2.19 (data tagging: every string is untrusted unless marked trusted; before, every
string is a template unless marked unsafe).  Both generations are handled here, once.
"""

from __future__ import annotations

try:
    # ansible-core 2.19+ (data tagging): every string is untrusted unless marked trusted.
    from ansible.template import trust_as_template

    AnsibleUnsafeText = wrap_var = None  # pylint: disable=invalid-name
except ImportError:
    # Older ansible-core: every string is a template unless marked unsafe.
    from ansible.utils.unsafe_proxy import AnsibleUnsafeText, wrap_var

    trust_as_template = None  # pylint: disable=invalid-name


def trusted_template(text):
    """``text``, a template of our own, marked so that Ansible renders it on every ansible-core."""
    return trust_as_template(text) if trust_as_template else text


def untrusted(value):
    """``value`` such that Ansible never renders it as a template.

    With data tagging (ansible-core 2.19+) the panel's data is untrusted already. Before, it is
    marked unsafe as wrap_var would, with fast paths for the field types of a server: wrap_var's
    generic type checks were the largest cost of building a 10,000-host inventory.
    """
    if trust_as_template is not None:
        return value
    kind = type(value)
    if kind is str:
        return AnsibleUnsafeText(value)
    if value is None or kind in (int, float, bool):
        return value
    if kind is dict:
        return dict((key, untrusted(item)) for key, item in value.items())
    return wrap_var(value)
