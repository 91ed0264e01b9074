"""Chat prompts to token ids: rendered with the model's chat template, then tokenized with
the pieces that repeat taken from a cache.

A rendered chat prompt is text between special tokens (`<|im_start|>`, `<|im_end|>`...), and
a Hugging Face tokenizer splits its input on those tokens before anything else: every piece
in between is normalized, pre-tokenized and encoded on its own. So the pieces can be encoded
one at a time, and the ones seen before reused. A translation prompt's system message (the
instructions) is the same for every request in a language pair and is most of the prompt's
tokens; only the user's text is new.

Whether a tokenizer really splits that way is checked when the encoder is built, by encoding
probe texts both ways; a tokenizer that does not (added tokens that strip the whitespace
around them, a pre-tokenizer that marks only the first piece of a text...) gets the whole
prompt encoded at once, as before.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import structlog
from jinja2 import TemplateError

from translate_server.inference.engine.control_tokens import ControlTokenGuard
from translate_server.inference.engine.protocol import ChatMessage, EngineRejectedError

log = structlog.get_logger(__name__)

# Distinct pieces kept: a system message per language pair and template direction, plus
# the short glue between special tokens; user texts pass through and age out.
CACHE_SIZE = 1024
# Longer pieces are encoded every time: a long text rarely repeats and would crowd the cache.
MAX_CACHED_CHARS = 4096

_PROBE_TEXTS = (
    "Hello world",
    " leading space",
    "\nnew line",
    "trailing space ",
    "mixed  spaces\t\ttabs",
    "Ünïcödé – “quotes” 日本語",
    "x",
    " ",
)


class ChatPromptTokenizer:
    """Called with a chat: its token ids, rendered with the model's own chat template
    (generation prompt added), or with ChatML for a model that has none."""

    def __init__(self, tokenizer: Any) -> None:
        self._tokenizer = tokenizer
        self.has_chat_template = bool(getattr(tokenizer, "chat_template", None))
        self._encoder = PromptEncoder(tokenizer)
        self._guard = ControlTokenGuard(tokenizer)

    def __call__(self, messages: Sequence[ChatMessage]) -> list[int]:
        # Render to text, then tokenize without adding special tokens: the template already
        # wrote them (a BOS added twice would shift the model's input).
        if self._guard.needed(messages):
            return self._guard.encode(messages, self.render, self._encoder.encode)
        return self._encoder.encode(self.render(messages))

    def render(self, messages: Sequence[ChatMessage]) -> str:
        if not self.has_chat_template:
            return chatml_prompt(messages)
        try:
            text: str = self._tokenizer.apply_chat_template(
                [dict(m) for m in messages], tokenize=False, add_generation_prompt=True
            )
        except (TemplateError, ValueError, TypeError) as exc:
            # Templates refuse what their model was not trained on (a system role,
            # roles that do not alternate) by raising: the client's mistake, not ours.
            raise EngineRejectedError(
                f"The model's chat template refused these messages: {exc}", param="messages"
            ) from None
        return text

    def clear_cache(self) -> None:
        self._encoder.clear_cache()


def chatml_prompt(messages: Sequence[ChatMessage]) -> str:
    """Used only for models whose tokenizer has no chat template (base models).

    A plain ChatML rendering: instruct-tuned models ship their own template, and for a base
    model any rendering is a guess; ChatML is the most widespread one and keeps the roles
    visible as text.
    """
    parts = [f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in messages]
    parts.append("<|im_start|>assistant\n")
    return "".join(parts)


class PromptEncoder:
    """`encode(text)`: the token ids of a rendered prompt, without added special tokens (the
    template wrote them)."""

    def __init__(self, tokenizer: Any, cache_size: int = CACHE_SIZE) -> None:
        self._encode_whole = _whole_text_encoder(tokenizer)
        self._special_ids = _special_token_ids(tokenizer)
        self._splitter: re.Pattern[str] | None = None
        if self._special_ids:
            # Longest first: at one position the regex takes the first alternative that
            # matches, and the tokenizer the longest added token.
            tokens = sorted(self._special_ids, key=len, reverse=True)
            self._splitter = re.compile("(" + "|".join(map(re.escape, tokens)) + ")")
        self._encode_piece = functools.lru_cache(maxsize=cache_size)(self._encode_whole)
        if self._splitter is not None and not self._splits_like_the_tokenizer(tokenizer):
            log.info("prompt_encoder_whole_prompts", reason="pieces tokenize differently")
            self._splitter = None
        self._encode_piece.cache_clear()  # of the probes

    @property
    def caches_pieces(self) -> bool:
        return self._splitter is not None

    def cache_info(self) -> Any:
        """functools' hits, misses and size of the piece cache."""
        return self._encode_piece.cache_info()

    def clear_cache(self) -> None:
        self._encode_piece.cache_clear()

    def encode(self, text: str) -> list[int]:
        if self._splitter is None:
            return self._encode_whole(text)
        ids: list[int] = []
        special_ids = self._special_ids
        # re.split with one group alternates text, special token, text, ...
        for index, piece in enumerate(self._splitter.split(text)):
            if index % 2:
                ids.append(special_ids[piece])
            elif len(piece) > MAX_CACHED_CHARS:
                ids.extend(self._encode_whole(piece))
            elif piece:
                ids.extend(self._encode_piece(piece))
        return ids

    def _splits_like_the_tokenizer(self, tokenizer: Any) -> bool:
        probes = _probes(tokenizer, self._special_ids)
        return all(self.encode(text) == self._encode_whole(text) for text in probes)


def _whole_text_encoder(tokenizer: Any) -> Callable[[str], list[int]]:
    """`tokenizer.encode(text, add_special_tokens=False)`, straight through the Rust tokenizer
    when there is one: the Python wrapper around it costs a third of the time on the event
    loop (about 100 us of 350 for a 150-token prompt).

    `encode_batch_fast` (tokenizers 0.20+) leaves out the character offsets, which nothing
    here reads: a fifth to a third faster on texts of 10-200 tokens. Unlike `encode`, it also
    releases the GIL while it runs, so a long prompt tokenized in a worker thread leaves the
    event loop free."""
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None or not callable(getattr(backend, "encode", None)):
        return lambda text: tokenizer.encode(text, add_special_tokens=False)
    encode_batch_fast = getattr(backend, "encode_batch_fast", None)
    if callable(encode_batch_fast):
        return lambda text: encode_batch_fast([text], add_special_tokens=False)[0].ids
    return lambda text: backend.encode(text, add_special_tokens=False).ids


def _special_token_ids(tokenizer: Any) -> dict[str, int]:
    """The added tokens the tokenizer splits on, by text; empty when any of them would make
    piece-by-piece encoding differ (one that eats the whitespace beside it, matches only
    whole words, or is matched after normalization)."""
    added = getattr(tokenizer, "added_tokens_decoder", None)
    if not isinstance(added, dict) or not added:
        return {}
    backend = getattr(tokenizer, "backend_tokenizer", None)
    if backend is None or _marks_the_first_piece(backend):
        return {}
    has_normalizer = getattr(backend, "normalizer", None) is not None
    ids = {}
    for token_id, token in added.items():
        content = getattr(token, "content", None)
        if not content:
            return {}
        if token.lstrip or token.rstrip or token.single_word:
            return {}
        if token.normalized and has_normalizer:
            return {}
        ids[content] = token_id
    return ids


def _marks_the_first_piece(backend: Any) -> bool:
    """A Metaspace pre-tokenizer with `prepend_scheme: first` (sentencepiece-style tokenizers)
    prefixes only a text's first piece, not the pieces after a special token."""
    try:
        # Each component's own configuration: the whole tokenizer's would carry its vocabulary.
        configs = [
            json.loads(component.__getstate__())
            for component in (backend.pre_tokenizer, backend.normalizer)
            if component is not None
        ]
    except Exception:  # noqa: BLE001 - unreadable: assume the worst
        return True

    def walk(node: Any) -> bool:
        if isinstance(node, dict):
            if node.get("type") == "Metaspace" and node.get("prepend_scheme") == "first":
                return True
            return any(walk(value) for value in node.values())
        if isinstance(node, list):
            return any(walk(value) for value in node)
        return False

    return walk(configs)


def _vocabulary_words(tokenizer: Any, specials: dict[str, int], count: int = 16) -> list[str]:
    """Some of the tokenizer's own words: probe texts made of words it knows."""
    vocab = tokenizer.get_vocab() if callable(getattr(tokenizer, "get_vocab", None)) else {}
    words = [token for token in sorted(vocab, key=vocab.get) if token not in specials]
    step = max(1, len(words) // count)
    return [tokenizer.convert_tokens_to_string([token]) for token in words[::step][:count]]


def _probes(tokenizer: Any, specials: dict[str, int]) -> Iterable[str]:
    texts = [*_PROBE_TEXTS, *_vocabulary_words(tokenizer, specials)]
    for special in list(specials)[:8]:
        for text in texts:
            yield f"{special}{text}"
            yield f"{text}{special}"
            yield f"{text}{special}{text}{special}{text}"
    if getattr(tokenizer, "chat_template", None):
        conversation = [
            {"role": "system", "content": "Translate from English to German."},
            {"role": "user", "content": " A text, with  odd\nspacing. "},
        ]
        try:
            yield tokenizer.apply_chat_template(
                conversation, tokenize=False, add_generation_prompt=True
            )
        except Exception:  # noqa: BLE001 - a template without a system role; the rest will do
            return
