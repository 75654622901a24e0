# Copyright (c) 2026 gamepanel.panel contributors
# GNU General Public License v3.0+ (see LICENSES/GPL-3.0-or-later.txt or https://www.gnu.org/licenses/gpl-3.0.txt)

"""PRIVATE: a module option declared once (Option), and a module's options (Options).

Each option is written once, with its type, default, choices and environment fallback; the argument
spec AnsibleModule and the in-process path check a task with, and the defaults the code falls back on
(PanelClient's, ControlRequest's), are derived from that one declaration.  DOCUMENTATION stays a
literal, since ansible-doc reads it without importing the module: ansible-test sanity
(validate-modules) holds it against the argument spec derived here.
"""

from __future__ import annotations


class Option(object):
    """One option: what its argument spec says, and its default as the code uses it.

    ``default`` is kept as declared (a tuple stays a tuple, for code that must not change it); the
    argument spec gets a list copy, as Ansible hands a list option to the task.  ``env`` names the
    environment variables the option falls back on, read by ``fallback`` (env_fallback unless given).
    """

    __slots__ = ("name", "type", "default", "elements", "choices", "required", "no_log", "env", "fallback")

    def __init__(
        self,
        name,
        type,
        default=None,
        elements=None,
        choices=None,
        required=False,
        no_log=False,
        env=(),
        fallback=None,
    ):
        self.name = name
        self.type = type
        self.default = default
        self.elements = elements
        self.choices = None if choices is None else tuple(choices)
        self.required = required
        self.no_log = no_log
        self.env = tuple(env)
        self.fallback = fallback

    def spec(self):
        """The option's entry of an argument spec (a new dict on every call)."""
        spec = dict(type=self.type)
        if self.elements is not None:
            spec["elements"] = self.elements
        if self.choices is not None:
            spec["choices"] = list(self.choices)
        if self.required:
            spec["required"] = True
        if self.default is not None:
            spec["default"] = list(self.default) if isinstance(self.default, (tuple, list)) else self.default
        if self.no_log:
            spec["no_log"] = True
        if self.env:
            # imported here: PanelClient's options are declared with this class, and the client must
            # import where only requests is installed (an execution environment's check of its requirements)
            from ansible.module_utils.common.parameters import env_fallback

            spec["fallback"] = (self.fallback or env_fallback, list(self.env))
        return spec


class Options(object):
    """A module's options, in the order they are declared; options of several groups add up with ``+``."""

    def __init__(self, *options):
        self._options = dict((option.name, option) for option in options)
        if len(self._options) != len(options):
            raise ValueError("an option is declared twice")

    def __add__(self, other):
        return Options(*(tuple(self) + tuple(other)))

    def __iter__(self):
        return iter(self._options.values())

    def __getitem__(self, name):
        return self._options[name]

    def __contains__(self, name):
        return name in self._options

    @property
    def names(self):
        return tuple(self._options)

    def only(self, *names):
        """The options named, in the order named."""
        return Options(*(self._options[name] for name in names))

    def without(self, *names):
        return Options(*(option for option in self if option.name not in names))

    def argument_spec(self):
        """The argument spec of these options (new dicts on every call)."""
        return dict((option.name, option.spec()) for option in self)

    def defaults(self):
        """``{name: default}`` of every option, None where it has none."""
        return dict((option.name, option.default) for option in self)
