"""What the DeepL domain provides to the app's services."""

from __future__ import annotations

from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.compat.deepl.accounts import DeepLAccounts
    from translate_server.compat.deepl.service import DeepLService

# What DeepL keeps per API key: usage, glossaries, style rules.
DEEPL_ACCOUNTS: Key[DeepLAccounts] = Key("deepl accounts")
# DeepL's API over the translation service, the document jobs and those accounts: what its
# routes call.
DEEPL: Key[DeepLService] = Key("deepl")
