"""Django's makemessages, which also extracts the patterns of ``said(...)`` (core/sentence.py).

The engines may not import Django (tests/test_engines_pure.py), so it cannot mark its
sentences with ``gettext_noop``; it builds them with ``said(pattern, **values)`` instead, and the
catalogue takes ``pattern`` from every such call, as Django's own documentation suggests for a
keyword of one's own ("Customizing the makemessages command").
"""

from __future__ import annotations

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=said"]
