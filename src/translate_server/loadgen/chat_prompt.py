"""The chat a load generator sends for a translation: this service's own prompt where it is
importable, so `/v1/chat/completions` (here or on another server) does the same work as
`/translate`."""

from __future__ import annotations

from typing import Any


def default_messages(text: str, source_lang: str, target_lang: str) -> list[dict[str, str]]:
    """The chat messages for a translation: the service's own prompt when it is importable, so
    `/v1/chat/completions` (here or on another server) does the same work as `/translate`."""
    try:
        from translate_server.text.languages import resolve_language
        from translate_server.translation.prompts.templates import build_translation_messages
    except ImportError:
        return [
            {
                "role": "system",
                "content": f"Translate the user's text from {source_lang} to {target_lang}. "
                "Reply with the translation only.",
            },
            {"role": "user", "content": text},
        ]
    source, target = resolve_language(source_lang).name, resolve_language(target_lang).name
    return [_as_message_dict(m) for m in build_translation_messages(text, source, target)]


def default_stop(text: str) -> list[str]:
    """The stop strings `/translate` uses for `text` (none before the service exists)."""
    try:
        from translate_server.translation.prompts.templates import translation_stop
    except ImportError:
        return []
    return list(translation_stop(text))


def _as_message_dict(message: Any) -> dict[str, str]:
    if isinstance(message, dict):
        return {"role": message["role"], "content": message["content"]}
    return {"role": message.role, "content": message.content}
