"""Every error `code` the server answers with, its HTTP status and what it means: the table in
docs/api.md, generated from the source so that it cannot leave a code out.

The codes and statuses are read from the package's own source (its `ast`), not listed by
hand: the `ApiError` subclasses (`errors.py` and beside the routes) with their `status_code`
and `code`, every `code="..."` given to one of them where it is raised, and the codes the one
renderer (`http/errors.py`) gives framework errors. Only the meanings are written here, one
line per code; a code without one fails tests/unit/docs.

    python -m translate_server.error_codes     # the Markdown table, as docs/api.md shows it
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent
ROOT_CLASS = "ApiError"
RENDERER = "http/errors.py"
# A stream's last event when it failed after its 200: no status of its own.
IN_A_STREAM = 0

MEANINGS: dict[str, str] = {
    # 400: the request
    "invalid_value": "A field is missing, of the wrong type or out of bounds; `param` names it "
    "(its JSON path, e.g. `messages[0].role`).",
    "invalid_request": "The request is malformed or contradicts itself (e.g. DeepL Write's "
    "`writing_style` and `tone` together).",
    "invalid_json": "The body is not JSON, or is nested too deeply.",
    "invalid_encoding": "The body is not UTF-8.",
    "unsupported_language": "A language tag that is not a BCP-47 tag of a real language.",
    "language_not_detected": "`source_lang` left to detection, and the text has no words to "
    "go by (digits, emoji): send `source_lang`.",
    "unsupported_target_language": "With `--refuse-unsupported-targets`: the served model was "
    "measured not to write this target language.",
    "string_above_max_length": "A text (of `/translate`, `/detect`) over `--max-text-chars`.",
    "too_many_pieces": "After splitting (HTML text nodes, long texts), the request needs more "
    "than `--max-pieces` engine requests.",
    "context_length_exceeded": "The prompt does not fit the model's context (`--max-model-len`) "
    "with room for an answer.",
    "invalid_glossary_entry": "A glossary term or translation with a line break or a control "
    "character.",
    "glossary_entry_exists": "Our glossary API: an entry added or edited onto a term the "
    "glossary's dictionary for that pair already has.",
    "glossary_pair_missing": "`glossary_id` names a glossary with no dictionary for the "
    "request's language pair.",
    "glossary_term_too_long": "A glossary term or translation over the limit (1,000 characters).",
    "invalid_tbx_file": "A TBX file translate-toolkit cannot read: the message names the line.",
    "instructions_not_supported": "`instructions` (DeepL: `custom_instructions`, `style_id`, "
    "Write) on a base model, which cannot follow them: serve an instruction-tuned model.",
    "chat_not_supported": "Chat or Responses on a base model without a chat template: the "
    "message gives the command that serves an instruction-tuned model.",
    "tools_not_supported": "`tools`, `functions` or tool messages: tool calling is not served.",
    "unsupported_parameter": "A Responses API field that is not served (`store: true`, "
    "`previous_response_id`, `tools`, ...), or a `/tokenize` chat option no chat is rendered "
    "with (`add_generation_prompt: false`, `chat_template`, ...); `param` names it.",
    "unsupported_document_format": "A file of no format the server translates (its extension "
    "and content); the message lists those it does.",
    "invalid_document": "A file of a supported format that its library cannot read (corrupt, "
    "wrong encoding).",
    "unsupported_memory_format": "A translation memory file of no format the server reads (TMX, "
    "XLIFF, PO/MO, CSV/TSV).",
    "invalid_memory_file": "A translation memory file that cannot be read: the message names "
    "the line or unit.",
    "invalid_adapter": "The admin routes: an adapter folder that is not a peft LoRA, or a "
    "`serves` rule that cannot be read.",
    "adapter_not_loaded": "vLLM could not load the adapter's folder.",
    "adapter_rank_too_large": "The adapter's LoRA rank is over `--max-lora-rank`.",
    "lora_not_enabled": "An adapter loaded at run time on a server started without "
    "`--enable-lora` (or `--lora`).",
    # 401, 403
    "invalid_api_key": "No key, or not one of the server's (`Authorization: Bearer <key>` or "
    "`DeepL-Auth-Key <key>`); DeepL's and LibreTranslate's routes answer 403.",
    "api_key_invalid": "Google's routes: a key that is not one of the server's (400 "
    "`API_KEY_INVALID`, as Google answers it).",
    "api_key_missing": "Google's routes: no key where the server has keys (403 "
    "`PERMISSION_DENIED`, as Google answers it).",
    "missing_scope": "The key is valid but lacks the route's scope, which the message and "
    "`param` name (`translate`, `documents`, `memories:read`, ...); in each surface's own shape.",
    "suggestions_disabled": "LibreTranslate's `/suggest` where `--suggestions-memory` is empty: "
    "suggestions are not taken, as on a LibreTranslate server without them.",
    # 404, 405
    "not_found": "No such route (or, on DeepL's routes, no such resource).",
    "no_text": "DeepLX's routes: no `text` to translate (a 404, as DeepLX answers it).",
    "method_not_allowed": "The route exists, not with this method.",
    "model_not_found": "`model` names neither the served model nor one of its adapters; the "
    "message lists what is served.",
    "adapter_not_found": "The admin routes: no adapter of that name is loaded.",
    "account_not_found": "The admin routes and `accounts`/`keys` commands: no account of that "
    "name or id.",
    "key_not_found": "The admin routes and `keys` commands: no key with that id, prefix or value.",
    "document_not_found": "No document job with this id and key (or it is another key's): the "
    "same answer, so ids cannot be probed.",
    "memory_not_found": "No translation memory with this id, or another key's.",
    "glossary_not_found": "No DeepL glossary with this id for this key.",
    "memory_entry_not_found": "No entry with this id in that memory.",
    "style_rule_not_found": "No DeepL style rule with this id for this key.",
    "file_not_found": "No `/v1/files` file with this id for this key.",
    "batch_not_found": "No `/v1/batches` batch with this id for this key.",
    # 409
    "memory_entry_exists": "An entry edited onto the source (and language pair) of another "
    "entry of the memory.",
    "document_not_ready": "A document's result asked for before its job is done (503 on "
    "DeepL's `/v2/document/{id}/result`, which DeepL's clients read as \"not yet\").",
    "account_exists": "An account of that name exists already.",
    "adapter_conflict": "The adapter's name is taken (the base model's, or a loaded adapter's).",
    "too_many_adapters": "`--max-loras` adapters are loaded: unload one first.",
    # 413, 415
    "payload_too_large": "The request body is over `--max-body-bytes`.",
    "document_too_large": "A document over `--max-document-bytes`.",
    "file_too_large": "A batch file over `--max-batch-file-bytes`.",
    "document_too_long": "A document with more than `--max-document-chars` characters to "
    "translate.",
    "glossary_too_large": "A glossary with more entries than the limit: 10,000 per dictionary "
    "stored, 256 in a request's own `glossary` (the message names `glossary_id` for more).",
    "memory_too_large": "An import that would leave a memory with more than "
    "`--max-memory-entries` entries (nothing of it is added).",
    "memory_file_too_large": "A translation memory file over `--max-memory-bytes`.",
    "unsupported_media_type": "A JSON route's body sent without `Content-Type: application/json`.",
    # 422
    "idempotency_key_reused": "An `Idempotency-Key` sent again with another body, or to another "
    "route, than its first request (whose answer it replays for a day): use a new key.",
    # 429
    "too_many_documents": "The key already has `--max-documents-per-key` documents in translation.",
    "too_many_files": "The key already keeps `--max-batch-files-per-key` batch files: delete one.",
    "too_many_batches": "The key already has `--max-batches-per-key` batches in progress.",
    "rate_limit_exceeded": "The key or its account is over its requests or characters per "
    "minute: retry after `Retry-After` seconds; the `x-ratelimit-*` headers say where it stands "
    "(DeepL's, LibreTranslate's and Google's routes: 429 in their own shape).",
    "insufficient_quota": "The key or its account has used its characters for this calendar "
    "month (UTC): `x-should-retry: false`, nothing helps before the month ends (DeepL's routes: "
    "456; Google's: 403 `dailyLimitExceeded`).",
    # 500
    "internal_error": "An unexpected failure (logged with its traceback); nothing about it is "
    "revealed.",
    "engine_error": "The engine failed while a stream was being generated: the stream's last "
    "event.",
    "document_failed": "LibreTranslate's `/translate_file`: the file was accepted, its "
    "translation failed (as LibreTranslate answers).",
    # 501
    "method_not_served": "Google's v3 routes: a method of Google's API not served here, named "
    "(`ListGlossaries`, `romanizeText`): Google's `UNIMPLEMENTED`.",
    # 502: the engine took the request and lost it (never replayed by a load balancer)
    "engine_failed": "The engine died while generating the request.",
    "aborted": "The request was aborted in the engine: the server shut down before it finished.",
    # 503: nothing reached an engine (a load balancer may retry elsewhere)
    "overloaded": "Every engine slot and queue place is taken: try again after `Retry-After` "
    "seconds (DeepL's and LibreTranslate's routes: 429).",
    "shutting_down": "The server is draining after SIGTERM.",
    "database_unavailable": "The database of the stores (memories, glossaries, usage, document "
    "jobs) cannot be reached: try again after `Retry-After`; requests that need no stored data "
    "keep being served.",
    "engine_unavailable": "The engine is not running.",
    "engine_failing": "Health routes only: the engine is up but failed its last "
    "`--engine-failure-threshold` requests in a row; its next success clears it.",
    # 504
    "request_timeout": "The request's deadline (`--request-timeout`, or its `timeout`) passed "
    "before anything was translated; its engine work was aborted.",
    # Never answered to a client: the log line's code for a client that hung up.
    "client_disconnected": "Never sent: the request log's code (499) for a client that went "
    "away before its answer.",
}


@dataclass
class Found:
    statuses: set[int] = field(default_factory=set)
    places: set[str] = field(default_factory=set)


@dataclass(frozen=True)
class _ErrorClass:
    status: int | None
    code: str | None


def collect_codes(package: Path = PACKAGE) -> dict[str, Found]:
    """Every error code the package's source answers with, its statuses and where it is."""
    modules = {
        path.relative_to(package).as_posix(): ast.parse(path.read_text())
        for path in sorted(package.rglob("*.py"))
    }
    classes = _error_classes(modules)
    found: dict[str, Found] = {}

    def add(code: str, status: int | None, place: str) -> None:
        entry = found.setdefault(code, Found())
        entry.statuses.add(IN_A_STREAM if status is None else status)
        entry.places.add(place)

    for name, error in classes.items():
        if error.code is not None:
            add(error.code, error.status, name)
    for place, tree in modules.items():
        for code, status in _raised_codes(tree, classes):
            add(code, status, place)
    for code, status in _renderer_codes(modules[RENDERER]):
        add(code, status, RENDERER)
    return found


def _error_classes(modules: dict[str, ast.Module]) -> dict[str, _ErrorClass]:
    """`ApiError` and its subclasses by name, each with its own or inherited status and code."""
    definitions = {
        node.name: node
        for tree in modules.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.ClassDef)
    }
    resolved: dict[str, _ErrorClass] = {}

    def resolve(name: str) -> _ErrorClass | None:
        if name in resolved:
            return resolved[name]
        node = definitions.get(name)
        if node is None:
            return None
        bases = [base.id for base in node.bases if isinstance(base, ast.Name)]
        inherited = next((r for b in bases if (r := resolve(b)) is not None), None)
        if inherited is None and name != ROOT_CLASS:
            return None
        own = _class_constants(node)
        status = own.get("status_code", inherited.status if inherited else None)
        code = own.get("code", inherited.code if inherited else None)
        resolved[name] = _ErrorClass(
            status if isinstance(status, int) else None, code if isinstance(code, str) else None
        )
        return resolved[name]

    for name in definitions:
        resolve(name)
    return resolved


def _class_constants(node: ast.ClassDef) -> dict[str, object]:
    constants: dict[str, object] = {}
    for statement in node.body:
        if isinstance(statement, ast.Assign | ast.AnnAssign) and isinstance(
            statement.value, ast.Constant
        ):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    constants[target.id] = statement.value.value
    return constants


def _raised_codes(
    tree: ast.Module, classes: dict[str, _ErrorClass]
) -> Iterator[tuple[str, int | None]]:
    """`SomeError(..., code="x")`: the code, with that class's status."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and (name := _called_name(node)) in classes:
            for keyword in node.keywords:
                if keyword.arg == "code" and (code := _string(keyword.value)) is not None:
                    yield code, classes[name].status


def _renderer_codes(tree: ast.Module) -> Iterator[tuple[str, int | None]]:
    """The renderer's own: `ErrorAnswer(status, _body(..., "code"))`, a stream's lone
    `_body(..., "code")`, `_client_error(message, "code")` (400), and the status -> code
    table of the framework's errors."""
    calls = [node for node in ast.walk(tree) if isinstance(node, ast.Call)]
    answered: set[int] = set()
    for call in calls:
        if _called_name(call) == "ErrorAnswer" and len(call.args) >= 2:
            status, body = _integer(call.args[0]), call.args[1]
            code = _argument(body, 3) if isinstance(body, ast.Call) else None
            if status is not None and code is not None:
                answered.add(id(body))
                yield code, status
    for call in calls:
        name = _called_name(call)
        if name == "_client_error" and (code := _argument(call, 1)) is not None:
            yield code, 400
        elif name == "_body" and id(call) not in answered:
            code = _argument(call, 3)
            if code is not None:
                yield code, None  # a stream's last event: its status was sent before
    for table in (node for node in ast.walk(tree) if isinstance(node, ast.Dict)):
        for key, value in zip(table.keys, table.values, strict=True):
            status, code = _integer(key), _string(value)
            if status is not None and code is not None:
                yield code, status


def _called_name(call: ast.Call) -> str | None:
    if isinstance(call.func, ast.Name):
        return call.func.id
    if isinstance(call.func, ast.Attribute):
        return call.func.attr
    return None


def _argument(call: ast.Call, index: int) -> str | None:
    return _string(call.args[index]) if len(call.args) > index else None


def _string(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _integer(node: ast.expr | None) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def error_table(found: dict[str, Found] | None = None) -> str:
    """The Markdown table of every code, by status, as docs/api.md shows it. A code without a
    meaning above is a KeyError: write its line first."""
    found = collect_codes() if found is None else found
    rows = ["| status | code | meaning |", "|---|---|---|"]
    for code, entry in sorted(found.items(), key=lambda item: (_order(item[1]), item[0])):
        statuses = ", ".join(
            "stream event" if status == IN_A_STREAM else str(status)
            for status in sorted(entry.statuses)
        )
        rows.append(f"| {statuses} | `{code}` | {MEANINGS[code]} |")
    return "\n".join(rows)


def _order(entry: Found) -> int:
    real = [status for status in entry.statuses if status != IN_A_STREAM]
    return min(real) if real else 500


if __name__ == "__main__":
    print(error_table())
