"""The base of every settings section: its policy in one place."""

from __future__ import annotations

import msgspec


class Section(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Frozen: settings are read once and shared; unknown fields refused: a misspelt option
    in a loaded mapping fails loudly instead of being ignored."""
