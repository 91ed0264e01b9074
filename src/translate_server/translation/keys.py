"""What the translation domain provides to the app's services."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from translate_server.services import Key

if TYPE_CHECKING:
    from translate_server.inference.admission import Admission
    from translate_server.translation.service.translation_service import TranslationService

    # Another translation service over the same detector, cache and prompt template, behind
    # its own admission and at its own engine priority (the document jobs').
    TranslationAt = Callable[[Admission, int], TranslationService]

# The interactive translation service: /translate and every API built on it.
TRANSLATION: Key[TranslationService] = Key("translation")
TRANSLATION_AT: Key[TranslationAt] = Key("translation at a priority")
