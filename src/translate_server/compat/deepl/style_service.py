"""DeepL's style rules as its routes use them, per API key (kept by style_rules.py); a page of
them is at most DeepL's 25."""

from __future__ import annotations

from translate_server.compat.deepl.style_rules import (
    ConfiguredRules,
    CustomInstruction,
    InstructionBody,
    StyleRule,
    StyleRuleCreate,
    StyleRuleList,
    StyleRuleStore,
)

MAX_PAGE_SIZE = 25


class DeepLStyleRules:
    def __init__(self, store: StyleRuleStore) -> None:
        self.store = store

    async def create(self, key: str, body: StyleRuleCreate) -> StyleRule:
        return await self.store.create(key, body)

    async def page(self, key: str, page: int, page_size: int, *, detailed: bool) -> StyleRuleList:
        """The `page`th page of the key's rules, oldest first; without `detailed`, their rules
        left out."""
        size = min(page_size, MAX_PAGE_SIZE)
        return StyleRuleList(
            style_rules=await self.store.list(key, page=page, page_size=size, detailed=detailed)
        )

    async def get(self, key: str, style_id: str) -> StyleRule:
        return await self.store.get(key, style_id)

    async def rename(self, key: str, style_id: str, name: str) -> StyleRule:
        return await self.store.rename(key, style_id, name)

    async def configure(self, key: str, style_id: str, rules: ConfiguredRules) -> StyleRule:
        return await self.store.configure(key, style_id, rules)

    async def delete(self, key: str, style_id: str) -> None:
        await self.store.delete(key, style_id)

    async def add_instruction(
        self, key: str, style_id: str, body: InstructionBody
    ) -> CustomInstruction:
        return await self.store.add_instruction(key, style_id, body)

    async def instruction(self, key: str, style_id: str, instruction_id: str) -> CustomInstruction:
        return await self.store.instruction(key, style_id, instruction_id)

    async def replace_instruction(
        self, key: str, style_id: str, instruction_id: str, body: InstructionBody
    ) -> CustomInstruction:
        return await self.store.replace_instruction(key, style_id, instruction_id, body)

    async def delete_instruction(self, key: str, style_id: str, instruction_id: str) -> None:
        await self.store.delete_instruction(key, style_id, instruction_id)
