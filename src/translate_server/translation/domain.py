"""The translation domain: /translate, /detect and /languages, the translation service every
other translating surface is built on, the guard's and the cache's metrics."""

from __future__ import annotations

from translate_server.inference.admission import Admission
from translate_server.registration import Domain, Opening
from translate_server.services import SERVED_MODELS
from translate_server.translation.guard.findings import TranslationMetrics
from translate_server.translation.keys import TRANSLATION, TRANSLATION_AT
from translate_server.translation.planning.cache import CacheMetrics
from translate_server.translation.planning.ports import GLOSSARY_LOOKUP, MEMORY_LOOKUP
from translate_server.translation.routes import translation_router


async def _open(opening: Opening) -> None:
    # Imported here: the service pulls in the language registry and the detector.
    from translate_server.text.detection import LanguageDetection
    from translate_server.translation.estimate.model import QualityModels
    from translate_server.translation.planning.cache import TranslationCache
    from translate_server.translation.planning.glossary import GlossaryIndexes
    from translate_server.translation.prompts.templates import PromptTemplates
    from translate_server.translation.service.translation_service import TranslationService

    found, options = opening.services, opening.settings.translation
    detection = LanguageDetection(options.detection_accuracy)
    # Lingua's models load in the background: the first detection waits for them.
    opening.start_task(detection.warm())
    cache = TranslationCache(options.translation_cache_size, found.metrics.part(CacheMetrics))
    model = found.engine.info.model
    template = PromptTemplates.load(options.prompt_templates).for_model(model)
    estimator = QualityModels.load(options.quality_estimate_models).for_model(model)
    memories, models = found.get(MEMORY_LOOKUP), found[SERVED_MODELS]
    glossaries, indexes = found.get(GLOSSARY_LOOKUP), GlossaryIndexes()

    def translation_at(admission: Admission, priority: int = 0) -> TranslationService:
        return TranslationService(
            found.generation,
            admission,
            found.limits,
            found.model_name,
            detection=detection,
            cache=cache,
            template=template,
            estimator=estimator,
            priority=priority,
            quality_guard=options.quality_guard,
            refuse_unsupported_targets=options.refuse_unsupported_targets,
            memories=memories,
            models=models,
            glossaries=glossaries,
            glossary_indexes=indexes,
        )

    found.provide(TRANSLATION, translation_at(found.admission))
    found.provide(TRANSLATION_AT, translation_at)


DOMAIN = Domain(
    "translation",
    routes=lambda settings: [translation_router()],
    open=_open,
    metrics=lambda settings: [TranslationMetrics, CacheMetrics],
    needs=(SERVED_MODELS,),
    # Where this front end owns no store, translation goes on without memories or glossaries
    # (the requests that name one are forwarded to the owner).
    uses=(MEMORY_LOOKUP, GLOSSARY_LOOKUP),
    provides=(TRANSLATION, TRANSLATION_AT),
)
