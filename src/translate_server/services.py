"""The app's services, reached by every handler through one typed object.

They live on `app.state.services`, made by the app's composition root (`lifetime.open_services`,
beside this module) once the engine is up. The container names every domain's service, so it
lives here and not in `http/`, which depends on no domain. Handlers ask `services(request)`
rather than take a `state: State` parameter: Litestar would deep-copy the state for every
request (slow), and admission counts would never be shared.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from litestar import Request

if TYPE_CHECKING:  # the services' modules load with the engine, not with the routes
    from translate_server.adapters.catalog import AdapterCatalog
    from translate_server.compat.deepl.accounts import DeepLAccounts
    from translate_server.documents.service import Documents
    from translate_server.inference.admission import Admission
    from translate_server.inference.engine import Engine
    from translate_server.inference.generation import GenerationService
    from translate_server.memory.service import Memories
    from translate_server.observability.metrics import ServiceMetrics
    from translate_server.openai_api.chat.service import ChatService
    from translate_server.openai_api.completions.service import CompletionService
    from translate_server.openai_api.responses.service import ResponsesService
    from translate_server.settings import LimitSettings
    from translate_server.translation.service.translation_service import TranslationService


@dataclass(frozen=True, slots=True)
class Services:
    engine: Engine
    generation: GenerationService
    admission: Admission
    metrics: ServiceMetrics
    limits: LimitSettings
    chat: ChatService
    responses: ResponsesService
    completions: CompletionService
    translation: TranslationService
    deepl: DeepLAccounts
    model_name: str
    started_at: int
    # Document jobs, where files are translated.
    documents: Documents | None = None
    # Translation memories (/memories, and /translate's `memory`).
    memories: Memories | None = None
    # LoRA adapters, where the engine was started for them.
    adapters: AdapterCatalog | None = None


def services(request: Request[Any, Any, Any]) -> Services:
    found: Services = request.app.state.services
    return found
