"""DeepLX's translation over the translation service: its request in, its answer out."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from translate_server.compat.deeplx.protocol import (
    DeepLXOfficialRequest,
    DeepLXOfficialResponse,
    DeepLXRequest,
    DeepLXResponse,
)

if TYPE_CHECKING:
    from translate_server.observability.record import RequestRecord
    from translate_server.translation.service.translation_service import TranslationService


class DeepLXService:
    def __init__(self, translation: TranslationService) -> None:
        self.translation = translation

    async def translate(
        self,
        body: DeepLXRequest,
        record: RequestRecord,
        deadline: float,
        method: Literal["Free", "Pro"] = "Free",
    ) -> DeepLXResponse:
        request = body.to_translate_request()
        response = await self.translation.translate(request, record, deadline)
        return DeepLXResponse.of(body, response, method)

    async def translate_official(
        self, body: DeepLXOfficialRequest, record: RequestRecord, deadline: float
    ) -> DeepLXOfficialResponse:
        response = await self.translation.translate(body.to_translate_request(), record, deadline)
        return DeepLXOfficialResponse.of(response)
