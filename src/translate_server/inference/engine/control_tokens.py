"""Client text is text: a message that spells a model's control tokens (`<|im_start|>`,
`<start_of_turn>`, `<|endoftext|>`...) must not become those tokens.

A rendered chat prompt is tokenized as one string, and a Hugging Face tokenizer turns every
spelling of a special token into the token itself, wherever it came from. So a text to
translate, a glossary entry or a chat message could open a new system turn. OpenAI's API
treats such spellings in messages as plain text; so does this server, for every message.

Only a message that contains such a spelling takes the slower path: the chat is rendered with
a placeholder for each message's content, the template's own text is tokenized as usual
(its control tokens recognized), and each content is tokenized with special tokens encoded as
ordinary text.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

from translate_server.inference.engine.protocol import ChatMessage

# Private-use characters no tokenizer gives meaning to and no template changes.
_MARK = re.compile("\ue000(\\d+)\ue001")
# Where no placeholder survives the template: a zero-width space breaks the spelling.
_BREAK = "\u200b"


class ControlTokenGuard:
    def __init__(self, tokenizer: Any) -> None:
        spellings = _special_spellings(tokenizer)
        self._spellings = sorted(spellings, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, self._spellings))) if spellings else None
        self._encode_as_text = _text_encoder(tokenizer)

    def needed(self, messages: Sequence[ChatMessage]) -> bool:
        pattern = self._pattern
        return pattern is not None and any(pattern.search(m["content"]) for m in messages)

    def encode(
        self,
        messages: Sequence[ChatMessage],
        render: Callable[[Sequence[ChatMessage]], str],
        encode_prompt: Callable[[str], list[int]],
    ) -> list[int]:
        """The chat's token ids with every message content tokenized as text; `render` and
        `encode_prompt` are the usual ways to render a chat and tokenize a rendered prompt."""
        marked = [
            {"role": m["role"], "content": f"\ue000{i}\ue001"} for i, m in enumerate(messages)
        ]
        rendered = render(marked)  # type: ignore[arg-type]
        parts = _MARK.split(rendered)
        if sorted(int(i) for i in parts[1::2]) != list(range(len(messages))):
            # The template dropped, repeated or rewrote a content: break the spellings instead.
            return encode_prompt(render([self._broken(m) for m in messages]))
        ids: list[int] = []
        for index, part in enumerate(parts):
            if index % 2:
                ids.extend(self._encode_as_text(messages[int(part)]["content"]))
            elif part:
                ids.extend(encode_prompt(part))
        return ids

    def _broken(self, message: ChatMessage) -> ChatMessage:
        assert self._pattern is not None
        content = self._pattern.sub(
            lambda m: m.group(0)[0] + _BREAK + m.group(0)[1:], message["content"]
        )
        return {"role": message["role"], "content": content}


def _special_spellings(tokenizer: Any) -> set[str]:
    added = getattr(tokenizer, "added_tokens_decoder", None)
    if not isinstance(added, dict):
        return set()
    return {
        token.content
        for token in added.values()
        if getattr(token, "special", False) and getattr(token, "content", "")
    }


def _text_encoder(tokenizer: Any) -> Callable[[str], list[int]]:
    """Token ids of a text in which special tokens' spellings are ordinary text."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is not None and hasattr(backend, "encode_special_tokens"):
        from tokenizers import Tokenizer

        # A copy: the setting is the tokenizer object's, and the prompt path needs it off.
        literal = Tokenizer.from_str(backend.to_str())
        literal.encode_special_tokens = True
        return lambda text: literal.encode(text, add_special_tokens=False).ids
    return lambda text: tokenizer.encode(text, add_special_tokens=False, split_special_tokens=True)
