"""A client's own instructions on how to write a translation (DeepL's `custom_instructions`
and style rules, `/translate`'s `instructions`), and the fence that keeps them instructions
about the text and nothing more.

Each instruction is one line between `<instruction>` and `</instruction>` inside the system
message: its line breaks and control characters become spaces, and spellings of either fence
(the instruction's or the text's `<source>`) are broken, so an instruction can neither close
its fence early nor open a new section or turn. Spellings of the model's control tokens are
tokenized as text like every other message content (inference/engine/control_tokens.py).

Only an instruction-tuned model (a chat family with a chat template) follows them; a base
model is answered a 400 that says so, never a translation that silently ignored them.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from translate_server.errors import InvalidRequestError

# DeepL's limits for `custom_instructions`, kept for every client's own list: they also
# bound the prompt's overhead.
MAX_INSTRUCTIONS = 10
MAX_INSTRUCTION_CHARS = 300
# What one prompt carries at most, a style rule's (its configured rules, one line per
# category, and its custom instructions) and the request's own together.
MAX_PROMPT_INSTRUCTIONS = 40
MAX_PROMPT_INSTRUCTION_CHARS = 1000
OPEN_INSTRUCTION, CLOSE_INSTRUCTION = "<instruction>", "</instruction>"
_FENCES = re.compile(r"<\s*/?\s*(instruction|source)\s*>", re.IGNORECASE)
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]+")


class InstructionsNotSupportedError(InvalidRequestError):
    code = "instructions_not_supported"


def validate_instructions(
    instructions: Sequence[str] | None,
    param: str,
    *,
    limit: int = MAX_INSTRUCTIONS,
    max_chars: int = MAX_INSTRUCTION_CHARS,
) -> tuple[str, ...]:
    """The instructions, stripped; too many, too long or empty ones are a 400."""
    if not instructions:
        return ()
    if len(instructions) > limit:
        raise InvalidRequestError(f"At most {limit} instructions per request.", param=param)
    kept = []
    for index, instruction in enumerate(instructions):
        text = instruction.strip()
        if not text:
            raise InvalidRequestError(
                "An instruction must not be empty.", param=f"{param}[{index}]"
            )
        if len(text) > max_chars:
            raise InvalidRequestError(
                f"An instruction may be at most {max_chars} characters.",
                param=f"{param}[{index}]",
            )
        kept.append(text)
    return tuple(kept)


def refuse_on_base_model(model: str, follows: bool, param: str, what: str = "") -> None:
    """A 400 where the model follows no instructions; `what` names the feature asked for
    (else `param`)."""
    if not follows:
        raise InstructionsNotSupportedError(
            f"The served model {model} is a base model: it cannot follow instructions "
            f"({what or f'`{param}`'}). Serve an instruction-tuned (chat) model to use them"
            + ("." if what else ", or leave them out."),
            param=param,
        )


def fenced_instruction(instruction: str) -> str:
    """One instruction on one line, its fence unbreakable from inside."""
    line = _CONTROL.sub(" ", instruction).strip()
    line = _FENCES.sub(lambda m: m.group(0).replace("<", "< ", 1), line)
    return f"{OPEN_INSTRUCTION}{line}{CLOSE_INSTRUCTION}"


def instructions_block(template: str, instructions: Sequence[str]) -> str:
    """The template's paragraph of instructions, `{instructions}` one fenced line each."""
    return template.format(instructions="\n".join(map(fenced_instruction, instructions)))
