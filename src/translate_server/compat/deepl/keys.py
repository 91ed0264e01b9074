"""What the DeepL domain provides to the app's services."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.compat.deepl.accounts import DeepLAccounts

# What DeepL keeps per API key: usage, glossaries, style rules.
DEEPL_ACCOUNTS: Key[DeepLAccounts] = Key("deepl accounts")
