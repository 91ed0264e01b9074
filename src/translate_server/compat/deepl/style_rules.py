"""DeepL style rules (`/v3/style_rules`), kept per API key in the DeepL accounts' database: a
name, the target language they apply to, configured rules by category and custom instructions.

A translation that names one (`style_id`) gets its rules as instructions to the model
(`instructions_of`): one line per configured category, and the custom instructions whose
source language, where they name one, is the request's.
"""

from __future__ import annotations

import datetime
import json
import uuid
from collections.abc import Callable, Sequence
from typing import Annotated, Any

import msgspec
from msgspec import Meta
from sqlalchemy import Connection, delete, select, update

from translate_server import owners
from translate_server.errors import ApiError, InvalidRequestError
from translate_server.storage.account_tables import deepl_style_rules
from translate_server.storage.database import Database
from translate_server.storage.row_ids import new_row_id
from translate_server.text.languages import UnknownLanguageError, resolve_language
from translate_server.translation.prompts.instructions import MAX_INSTRUCTION_CHARS

# DeepL's seven categories of configured rules.
CATEGORIES = (
    "dates_and_times",
    "formatting",
    "numbers",
    "punctuation",
    "spelling_and_grammar",
    "style_and_tone",
    "vocabulary",
)
MAX_CUSTOM_INSTRUCTIONS = 20  # per rule list: ours (each one is a line of every prompt)
_Name = Annotated[str, Meta(min_length=1, max_length=1024)]
_Setting = Annotated[str, Meta(min_length=1, max_length=100)]
ConfiguredRules = dict[str, Annotated[dict[_Setting, _Setting], Meta(max_length=50)]]


class StyleRuleNotFoundError(ApiError):
    status_code = 404
    code = "style_rule_not_found"

    def __init__(self, what: str = "Style rule") -> None:
        super().__init__(f"{what} not found.", param="style_id")


class InstructionBody(msgspec.Struct, kw_only=True):
    label: Annotated[str, Meta(min_length=1, max_length=100)]
    prompt: Annotated[str, Meta(min_length=1, max_length=MAX_INSTRUCTION_CHARS)]
    source_language: str | None = None


class CustomInstruction(InstructionBody, kw_only=True, omit_defaults=True):
    id: str


class StyleRuleCreate(msgspec.Struct, kw_only=True):
    name: _Name
    language: Annotated[str, Meta(min_length=2, max_length=35)]
    configured_rules: ConfiguredRules | None = None
    custom_instructions: list[InstructionBody] | None = None


class StyleRuleRename(msgspec.Struct, kw_only=True):
    name: _Name


class StyleRule(msgspec.Struct, kw_only=True, omit_defaults=True):
    style_id: str
    name: str
    creation_time: str
    updated_time: str
    language: str
    version: int
    configured_rules: ConfiguredRules | None = None
    custom_instructions: list[CustomInstruction] | None = None

    def brief(self) -> StyleRule:
        """As a list without `detailed` shows it: its rules left out."""
        return msgspec.structs.replace(self, configured_rules=None, custom_instructions=None)


class StyleRuleList(msgspec.Struct, kw_only=True):
    style_rules: list[StyleRule]


def _now() -> str:
    now = datetime.datetime.now(datetime.UTC)
    return now.isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _language(code: str, param: str) -> str:
    try:
        return resolve_language(code.split("-")[0]).tag
    except UnknownLanguageError:
        raise InvalidRequestError(f"Value for '{param}' not supported.", param=param) from None


def checked_rules(rules: ConfiguredRules | None) -> ConfiguredRules:
    for category in rules or {}:
        if category not in CATEGORIES:
            raise InvalidRequestError(
                f"Unknown category of configured rules `{category}`; known: "
                + ", ".join(CATEGORIES)
                + ".",
                param="configured_rules",
            )
    return dict(rules or {})


def _instruction(body: InstructionBody) -> CustomInstruction:
    source = _language(body.source_language, "source_language") if body.source_language else None
    return CustomInstruction(
        id=str(uuid.uuid4()), label=body.label, prompt=body.prompt, source_language=source
    )


def instructions_of(rule: StyleRule, source_lang: str | None) -> list[str]:
    """The rule as instructions: each configured category on a line, then the custom
    instructions for any source language or for `source_lang`'s."""
    lines = []
    for category, settings in (rule.configured_rules or {}).items():
        if settings:
            named = "; ".join(
                f"{key.replace('_', ' ')}: {value.replace('_', ' ')}"
                for key, value in settings.items()
            )
            lines.append(f"{category.replace('_', ' ').capitalize()}: {named}.")
    source = source_lang.split("-")[0].lower() if source_lang else None
    lines += [
        instruction.prompt
        for instruction in rule.custom_instructions or ()
        if instruction.source_language in (None, source)
    ]
    return lines


class StyleRuleStore:
    def __init__(
        self, database: Database, owner_of: Callable[[str], str] = owners.owner_of
    ) -> None:
        self.database = database
        self.owner_of = owner_of  # the account a presented key's rules belong to

    async def create(self, key: str, body: StyleRuleCreate) -> StyleRule:
        instructions = [_instruction(b) for b in body.custom_instructions or ()]
        _check_count(len(instructions))
        now = _now()
        rule = StyleRule(
            style_id=str(new_row_id()),  # the tiebreaker of rules made in one millisecond
            name=body.name,
            creation_time=now,
            updated_time=now,
            language=_language(body.language, "language"),
            version=1,
            configured_rules=checked_rules(body.configured_rules),
            custom_instructions=instructions,
        )
        made = deepl_style_rules.insert().values(
            style_id=rule.style_id,
            owner=self.owner_of(key),
            name=rule.name,
            language=rule.language,
            creation_time=now,
            updated_time=now,
            version=rule.version,
            configured_rules=json.dumps(rule.configured_rules),
            custom_instructions=msgspec.json.encode(instructions).decode(),
        )
        await self.database.write(lambda c: c.execute(made))
        return rule

    async def list(self, key: str, *, page: int, page_size: int, detailed: bool) -> list[StyleRule]:
        query = (
            _SELECT.where(_RULES.owner == self.owner_of(key))
            .order_by(_RULES.creation_time, _RULES.style_id)
            .limit(page_size)
            .offset(page * page_size)
        )
        rules = await self.database.read(lambda c: [_rule(row) for row in c.execute(query)])
        return rules if detailed else [rule.brief() for rule in rules]

    async def get(self, key: str, style_id: str) -> StyleRule:
        query = _SELECT.where(_RULES.owner == self.owner_of(key), _RULES.style_id == style_id)
        row = await self.database.read(lambda c: c.execute(query).first())
        if row is None:
            raise StyleRuleNotFoundError
        return _rule(row)

    async def delete(self, key: str, style_id: str) -> None:
        await self.get(key, style_id)
        deleted = delete(deepl_style_rules).where(
            _RULES.owner == self.owner_of(key), _RULES.style_id == style_id
        )
        await self.database.write(lambda c: c.execute(deleted))

    async def rename(self, key: str, style_id: str, name: str) -> StyleRule:
        return await self._change(key, style_id, lambda rule: _replace(rule, name=name))

    async def configure(self, key: str, style_id: str, rules: ConfiguredRules) -> StyleRule:
        checked = checked_rules(rules)
        return await self._change(
            key, style_id, lambda rule: _replace(rule, configured_rules=checked)
        )

    async def add_instruction(
        self, key: str, style_id: str, body: InstructionBody
    ) -> CustomInstruction:
        added = _instruction(body)

        def add(rule: StyleRule) -> StyleRule:
            instructions = [*(rule.custom_instructions or ()), added]
            _check_count(len(instructions))
            return _replace(rule, custom_instructions=instructions)

        await self._change(key, style_id, add)
        return added

    async def instruction(self, key: str, style_id: str, instruction_id: str) -> CustomInstruction:
        return _find(await self.get(key, style_id), instruction_id)

    async def replace_instruction(
        self, key: str, style_id: str, instruction_id: str, body: InstructionBody
    ) -> CustomInstruction:
        replaced = msgspec.structs.replace(_instruction(body), id=instruction_id)

        def replace(rule: StyleRule) -> StyleRule:
            _find(rule, instruction_id)
            return _replace(
                rule,
                custom_instructions=[
                    replaced if i.id == instruction_id else i
                    for i in rule.custom_instructions or ()
                ],
            )

        await self._change(key, style_id, replace)
        return replaced

    async def delete_instruction(self, key: str, style_id: str, instruction_id: str) -> None:
        def delete(rule: StyleRule) -> StyleRule:
            _find(rule, instruction_id)
            kept = [i for i in rule.custom_instructions or () if i.id != instruction_id]
            return _replace(rule, custom_instructions=kept)

        await self._change(key, style_id, delete)

    async def _change(self, key: str, style_id: str, change: Any) -> StyleRule:
        """The rule read (its row locked), changed and written back in one transaction, its
        version one up."""
        query = _SELECT.where(_RULES.owner == self.owner_of(key), _RULES.style_id == style_id)

        def change_rule(c: Connection) -> StyleRule:
            row = c.execute(query.with_for_update()).first()
            if row is None:
                raise StyleRuleNotFoundError
            rule: StyleRule = change(_rule(row))
            c.execute(
                update(deepl_style_rules)
                .where(_RULES.style_id == style_id)
                .values(
                    name=rule.name,
                    updated_time=rule.updated_time,
                    version=rule.version,
                    configured_rules=json.dumps(rule.configured_rules or {}),
                    custom_instructions=msgspec.json.encode(
                        rule.custom_instructions or []
                    ).decode(),
                )
            )
            return rule

        return await self.database.write(change_rule)


_RULES = deepl_style_rules.c
_SELECT = select(
    _RULES.style_id,
    _RULES.name,
    _RULES.language,
    _RULES.creation_time,
    _RULES.updated_time,
    _RULES.version,
    _RULES.configured_rules,
    _RULES.custom_instructions,
)


def _rule(row: Sequence[Any]) -> StyleRule:
    style_id, name, language, created, updated, version, configured, instructions = row
    return StyleRule(
        style_id=style_id,
        name=name,
        creation_time=created,
        updated_time=updated,
        language=language,
        version=version,
        configured_rules=json.loads(configured),
        custom_instructions=msgspec.json.decode(instructions, type=list[CustomInstruction]),
    )


def _replace(rule: StyleRule, **changes: Any) -> StyleRule:
    return msgspec.structs.replace(rule, updated_time=_now(), version=rule.version + 1, **changes)


def _find(rule: StyleRule, instruction_id: str) -> CustomInstruction:
    for instruction in rule.custom_instructions or ():
        if instruction.id == instruction_id:
            return instruction
    raise StyleRuleNotFoundError("Custom instruction")


def _check_count(count: int) -> None:
    if count > MAX_CUSTOM_INSTRUCTIONS:
        raise InvalidRequestError(
            f"A style rule may hold at most {MAX_CUSTOM_INSTRUCTIONS} custom instructions.",
            param="custom_instructions",
        )
