// The translator page: plain DOM code over the service's own API (/languages, /detect,
// /translate with `stream: true`, /translate/document for files, /memories and /glossaries
// to choose from, /translate/corrections for a translation corrected in place). Every URL is
// relative, so the page works under whatever path prefix a proxy gives the service.
"use strict";

const KEY_STORE = "translate-server.api-key"; // sessionStorage: gone when the tab closes
const CHOICES_STORE = "translate-server.choices"; // localStorage: no text, only settings
const NEED_KEY =
  "This server needs an API key: choose \u201cAPI key\u201d at the top to enter one.";

const $ = (id) => document.getElementById(id);
const ui = {
  form: $("translator"), source: $("source-lang"), target: $("target-lang"), swap: $("swap"),
  text: $("source-text"), count: $("char-count"), detect: $("detect"), detected: $("detected"),
  result: $("result"), resultInfo: $("result-info"), warnings: $("warnings"), copy: $("copy"),
  quality: $("quality"),
  translate: $("translate"), stop: $("stop"), error: $("error"), errorMessage: $("error-message"),
  retry: $("retry"), formality: $("formality"), html: $("html-mode"),
  glossaryRows: $("glossary-rows"), glossaryAdd: $("glossary-add"), keyButton: $("key-button"),
  keyDialog: $("key-dialog"), keyForm: $("key-form"), keyInput: $("key-input"),
  keyReason: $("key-reason"), documents: $("documents"),
  memory: $("memory"), glossaryId: $("glossary-id"), resultEdit: $("result-edit"),
  edit: $("edit"), saveCorrection: $("save-correction"), cancelEdit: $("cancel-edit"),
  editHint: $("edit-hint"), memoryStatus: $("memory-status"),
};

const state = {
  config: { max_text_chars: 20000, api_key_required: false, documents: false },
  names: new Map(), // language code -> name
  running: null, // the AbortController of the translation in progress
  // The last translation shown: what a correction of it says was translated, and how.
  last: null, // { text, source_lang, target_lang, translation }
};

// Where errors are shown: under the text, or in the file panel. Each has its own countdown.
const errorBox = (box, message, retry) => ({ box, message, retry, countdown: null });
const pageErrors = errorBox(ui.error, ui.errorMessage, ui.retry);

// ---- API ------------------------------------------------------------------------------------

class ApiError extends Error {
  constructor(status, message, retryAfter) {
    super(message);
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

function apiKey() {
  return sessionStorage.getItem(KEY_STORE) || "";
}

// A JSON body is sent as JSON; a FormData one as multipart (the browser sets its boundary).
async function api(path, { body, signal } = {}) {
  const headers = { Accept: "application/json" };
  const form = body instanceof FormData;
  if (body !== undefined && !form) headers["Content-Type"] = "application/json";
  if (apiKey()) headers.Authorization = "Bearer " + apiKey();
  let response;
  try {
    response = await fetch(path, {
      method: body === undefined ? "GET" : "POST", headers, signal,
      body: body === undefined || form ? body : JSON.stringify(body),
    });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new ApiError(0, "The server cannot be reached. Check your connection and try again.");
  }
  if (!response.ok) throw await errorOf(response);
  return response;
}

async function errorOf(response) {
  let message = `The server answered ${response.status} ${response.statusText}.`;
  try {
    const body = await response.json();
    if (body && body.error && body.error.message) message = body.error.message;
  } catch (_) { /* not JSON: keep the status line */ }
  const retry = parseInt(response.headers.get("Retry-After") || "", 10);
  return new ApiError(response.status, message, Number.isFinite(retry) ? retry : null);
}

// Server-sent events over fetch: `data: <json>` events separated by a blank line.
async function* events(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value.replace(/\r\n/g, "\n");
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split("\n").filter((line) => line.startsWith("data:"))
        .map((line) => line.slice(5).replace(/^ /, "")).join("\n");
      if (data === "[DONE]") return;
      if (data) yield JSON.parse(data);
    }
  }
}

// ---- Translation ----------------------------------------------------------------------------

function request() {
  const body = {
    text: ui.text.value,
    source_lang: ui.source.value,
    target_lang: ui.target.value,
    formality: ui.formality.value,
    format: ui.html.checked ? "html" : "text",
    stream: true,
  };
  const glossary = glossaryEntries();
  if (Object.keys(glossary).length) body.glossary = glossary;
  if (ui.memory.value) body.memory = ui.memory.value;
  if (ui.glossaryId.value) body.glossary_id = ui.glossaryId.value;
  return body;
}

async function translate() {
  if (state.running) return;
  if (!ui.text.value.trim()) {
    showError("Type or paste some text to translate first.");
    ui.text.focus();
    return;
  }
  if (charCount() > state.config.max_text_chars) {
    showError(`The text is longer than this server's limit of ` +
      `${state.config.max_text_chars.toLocaleString()} characters.`);
    return;
  }
  clearError();
  clearResult();
  const controller = new AbortController();
  setRunning(controller);
  let finished = null;
  const body = request();
  try {
    const response = await api("translate", { body, signal: controller.signal });
    for await (const event of events(response)) {
      if (event.error) throw new ApiError(200, event.error.message || "The translation failed.");
      if (event.delta) {
        ui.result.textContent += event.delta;
        ui.result.scrollTop = ui.result.scrollHeight; // follow the text as it grows
        ui.copy.disabled = false;
      }
      if (event.finish_reason) {
        finished = event;
        showFinal(event);
      }
    }
    if (!finished) ui.resultInfo.textContent = "The translation ended early.";
    else if (finished.warnings && finished.warnings.length) {
      await translateAgain(body, finished, controller.signal);
    }
    if (finished) translated(body, finished);
  } catch (err) {
    if (err.name === "AbortError") ui.resultInfo.textContent = "Stopped.";
    else handleError(err);
  } finally {
    setRunning(null);
  }
}

// A stream is checked only when it ends (its text is already shown), never repaired. Where
// the check found something, the same request is made once more without streaming, which
// the server's quality guard protects (placeholders masked) and retries; its answer replaces
// the streamed one when it has fewer warnings.
async function translateAgain(body, streamed, signal) {
  ui.resultInfo.textContent += " · checking the translation again…";
  let answer;
  try {
    const response = await api("translate", { body: { ...body, stream: false }, signal });
    answer = await response.json();
  } catch (err) {
    if (err.name === "AbortError") throw err;
    showFinal(streamed); // the streamed translation stands
    return;
  }
  const warnings = Array.isArray(answer.warnings) ? answer.warnings : [];
  if (typeof answer.translation !== "string" || warnings.length >= streamed.warnings.length) {
    showFinal(streamed);
    return;
  }
  ui.result.textContent = answer.translation;
  showFinal(answer);
  ui.resultInfo.textContent += " · checked again";
}

// What a correction of this translation will say was translated: the source's language as
// given, or as detected.
function translated(body, finished) {
  const detected = finished.detected_source_lang;
  const source = body.source_lang === "auto" ? detected && detected.language : body.source_lang;
  state.last = { text: body.text, source_lang: source, target_lang: body.target_lang,
    translation: ui.result.textContent };
  ui.edit.disabled = !source || !ui.result.textContent;
}

function showFinal(event) {
  const parts = [];
  if (event.detected_source_lang) {
    const lang = event.detected_source_lang;
    parts.push(`Translated from ${nameOf(lang.language)} (detected)`);
    showDetected(lang.language, lang.confidence);
  }
  if (event.finish_reason === "length") {
    parts.push("cut short: the answer reached its length limit");
  }
  if (event.usage) parts.push(`${event.usage.total_tokens} tokens`);
  ui.resultInfo.textContent = parts.join(" · ");
  showMatch(event.memory_match);
  // Warnings of the server's quality checks, when it sends any: its codes said as sentences.
  const warnings = Array.isArray(event.warnings) ? event.warnings : [];
  ui.warnings.replaceChildren(...warnings.map((warning) => {
    const item = document.createElement("li");
    item.textContent = typeof warning === "string" ? (WARNING_TEXTS[warning] || warning)
      : (warning.message || JSON.stringify(warning));
    return item;
  }));
  ui.warnings.hidden = warnings.length === 0;
  showQuality(event.quality_estimate, event.needs_review);
  ui.result.classList.toggle("warned", warnings.length > 0);
  ui.result.setAttribute("aria-label", warnings.length
    ? `Translation, with ${warnings.length} warning${warnings.length > 1 ? "s" : ""}`
    : "Translation");
}

// How the text matched the chosen memory, as a badge before the rest of the information.
function showMatch(match) {
  if (!match) return;
  const badge = document.createElement("span");
  badge.className = "match";
  badge.textContent = match.match === "exact" ? "Exact memory match"
    : `Memory match ${Math.round(match.score)}%`;
  ui.resultInfo.prepend(badge, " ");
}

// The server's quality estimate (0..1) and whether the translation needs review, as a colour
// on the translation and a badge whose tooltip says what they mean (docs/quality.md).
function showQuality(estimate, needsReview) {
  if (typeof estimate !== "number") {
    delete ui.result.dataset.quality;
    ui.quality.hidden = true;
    return;
  }
  const band = needsReview ? "review" : estimate >= GOOD_ESTIMATE ? "good" : "fair";
  const label = { review: "Needs review", good: "Likely good", fair: "Probably fine" }[band];
  ui.result.dataset.quality = band;
  ui.quality.dataset.quality = band;
  ui.quality.textContent = `${label} · ${estimate.toFixed(2)}`;
  ui.quality.title = QUALITY_TEXTS[band] + " " + QUALITY_EXPLAINED;
  ui.quality.setAttribute("aria-label", `${label}, quality estimate ${estimate.toFixed(2)}. ` +
    QUALITY_TEXTS[band]);
  ui.quality.hidden = false;
}

// At or above it, a translation that needs no review is shown as likely good.
const GOOD_ESTIMATE = 0.9;
const QUALITY_TEXTS = {
  good: "The estimate is high: this translation is likely good.",
  fair: "The estimate is middling: probably fine, worth a glance where it matters.",
  review: "The estimate is low, or the checks found something: a person should review it.",
};
const QUALITY_EXPLAINED = "The quality estimate (0 to 1) is the server's own guess, from how " +
  "sure the model was of each word, the quality checks, the length against the language " +
  "pair's and the detected language; 1.0 means a translation memory's exact match. It is " +
  "a guide for what to review, not a guarantee.";

// What the quality guard's warning codes mean to a reader (docs/quality.md).
const WARNING_TEXTS = {
  empty: "The model gave no translation: the source text is shown instead.",
  echo: "This may be the source text sent back, not a translation.",
  wrong_language: "This may not be in the language you asked for.",
  placeholders_lost: "Placeholders of the source (such as %s or {name}) may be missing.",
  commentary: "The model may have added remarks of its own.",
  truncated: "The translation may be cut short.",
  omission: "Part of the text may be missing from the translation.",
  addition: "The translation may say more than the text does.",
  copied_example: "This may not be a translation of your text.",
  deadline_exceeded: "Time ran out: part of the text is left untranslated.",
  unsupported_target_language: "The model does not write this language well.",
};

function setRunning(controller) {
  state.running = controller;
  ui.translate.disabled = controller !== null;
  ui.stop.disabled = controller === null;
  ui.result.setAttribute("aria-busy", controller ? "true" : "false");
  if (controller) ui.resultInfo.textContent = "Translating…";
  else if (ui.resultInfo.textContent === "Translating…") ui.resultInfo.textContent = "";
  // Keep keyboard focus somewhere useful when the focused button is disabled.
  if (controller && document.activeElement === ui.translate) ui.stop.focus();
  if (!controller && document.activeElement === ui.stop) ui.translate.focus();
}

function clearResult() {
  stopEditing();
  ui.result.textContent = "";
  ui.resultInfo.textContent = "";
  showQuality(null, false);
  ui.warnings.hidden = true;
  ui.warnings.replaceChildren();
  ui.result.classList.remove("warned");
  ui.result.setAttribute("aria-label", "Translation");
  ui.copy.disabled = true;
  ui.edit.disabled = true;
  ui.memoryStatus.textContent = "";
  ui.memoryStatus.classList.remove("saved");
  state.last = null;
}

// ---- Corrections: the translation edited in place, saved to the memory ---------------------

function editing() {
  return !ui.resultEdit.hidden;
}

function startEditing() {
  if (!state.last || state.running) return;
  ui.resultEdit.value = ui.result.textContent;
  setEditing(true);
  ui.resultEdit.focus();
}

function stopEditing() {
  if (!editing()) return;
  const hadFocus = ui.resultEdit.contains(document.activeElement) ||
    [ui.saveCorrection, ui.cancelEdit].includes(document.activeElement);
  setEditing(false);
  if (hadFocus) ui.edit.focus();
}

function setEditing(on) {
  ui.resultEdit.hidden = !on;
  ui.result.hidden = on;
  ui.saveCorrection.hidden = !on;
  ui.cancelEdit.hidden = !on;
  ui.editHint.hidden = !on;
  ui.edit.hidden = on;
  ui.copy.hidden = on;
}

async function saveCorrection() {
  const last = state.last;
  const corrected = ui.resultEdit.value;
  if (!last || !editing()) return;
  if (!corrected.trim()) {
    showMemoryStatus("The corrected translation is empty: type it, or cancel.");
    ui.resultEdit.focus();
    return;
  }
  if (!ui.memory.value) {
    showMemoryStatus("Choose a translation memory above to save corrections into.");
    ui.memory.focus();
    return;
  }
  ui.saveCorrection.setAttribute("aria-disabled", "true");
  try {
    const response = await api("translate/corrections", { body: {
      source: last.text, translation: last.translation, corrected,
      source_lang: last.source_lang, target_lang: last.target_lang, memory: ui.memory.value,
    } });
    const saved = await response.json();
    ui.result.textContent = corrected;
    setEditing(false);
    ui.edit.focus();
    const name = saved.memory.name;
    showMemoryStatus(saved.changed
      ? `Correction saved to \u201c${name}\u201d: this text now translates this way.`
      : `Translation confirmed in \u201c${name}\u201d.`, true);
    updateMemoryOption(saved.memory);
  } catch (err) {
    handleError(err);
    if (err.status === 404) await loadResources(); // the memory is gone: list what is left
  } finally {
    ui.saveCorrection.removeAttribute("aria-disabled");
  }
}

function showMemoryStatus(message, saved = false) {
  ui.memoryStatus.textContent = message;
  ui.memoryStatus.classList.toggle("saved", saved);
}

// ---- Detection ------------------------------------------------------------------------------

async function detect() {
  if (!ui.text.value.trim()) {
    showError("Type or paste some text to detect its language.");
    return;
  }
  clearError();
  ui.detected.textContent = "Detecting…";
  try {
    const response = await api("detect", { body: { text: ui.text.value } });
    const found = await response.json();
    showDetected(found.language, found.confidence, found.name);
  } catch (err) {
    ui.detected.textContent = "";
    handleError(err);
  }
}

function showDetected(code, confidence, name) {
  const shown = name || nameOf(code);
  ui.detected.textContent = `Detected: ${shown} (${Math.round(confidence * 100)}% sure)`;
  ui.detected.dataset.language = code;
  ui.source.options[0].textContent = `Detect language: ${shown}`;
}

// ---- Languages ------------------------------------------------------------------------------

function nameOf(code) {
  return state.names.get(code) || code;
}

async function loadLanguages() {
  const response = await api("languages");
  const { languages } = await response.json();
  languages.sort((a, b) => a.name.localeCompare(b.name));
  state.names = new Map(languages.map((lang) => [lang.code, lang.name]));
  const option = (lang) => new Option(`${lang.name}`, lang.code);
  ui.source.replaceChildren(new Option("Detect language", "auto"), ...languages.map(option));
  ui.target.replaceChildren(...languages.map(option));
  // Into the browser's language, unless that is English, the likeliest source.
  const browser = (navigator.language || "en").split("-")[0];
  ui.target.value = browser !== "en" && state.names.has(browser) ? browser : "de";
  restoreChoices();
}

function swap() {
  const detected = ui.detected.dataset.language;
  const source = ui.source.value === "auto" ? detected : ui.source.value;
  const target = ui.target.value;
  if (!source || !state.names.has(source)) {
    showError("Detect the source language first, or pick it, to swap.");
    return;
  }
  clearError();
  ui.source.value = target;
  ui.target.value = source;
  // The translation becomes the text to translate back.
  if (ui.result.textContent) {
    ui.text.value = ui.result.textContent;
    clearResult();
    updateCount();
  }
  saveChoices();
}

// ---- Stored memories and glossaries ---------------------------------------------------------

// The caller's memories and stored glossaries, to choose from (with an API key, its own).
async function loadResources() {
  const chosen = { memory: ui.memory.value || storedChoices().memory,
    glossary_id: ui.glossaryId.value || storedChoices().glossary_id };
  const listed = async (path) => {
    try {
      return (await (await api(path)).json()).data || [];
    } catch (err) {
      return null; // not served here, or refused: nothing to choose
    }
  };
  const [memories, glossaries] = await Promise.all([listed("memories"), listed("glossaries")]);
  fillChoice(ui.memory, memories, "No memory", memoryLabel, chosen.memory);
  fillChoice(ui.glossaryId, glossaries, "No stored glossary", (g) => g.name,
    chosen.glossary_id);
}

function fillChoice(select, items, none, label, chosen) {
  select.closest(".field").hidden = items === null;
  const options = (items || []).map((item) => {
    const option = new Option(label(item), item.id);
    option.dataset.name = item.name;
    return option;
  });
  select.replaceChildren(new Option(none, ""), ...options);
  select.value = options.some((o) => o.value === chosen) ? chosen : "";
}

function memoryLabel(memory) {
  const n = memory.entries;
  return `${memory.name} (${n.toLocaleString()} ${n === 1 ? "entry" : "entries"})`;
}

function updateMemoryOption(memory) {
  const option = [...ui.memory.options].find((o) => o.value === memory.id);
  if (option) option.textContent = memoryLabel(memory);
}

// ---- Glossary -------------------------------------------------------------------------------

function addGlossaryRow(term = "", translation = "", focus = false) {
  const row = $("glossary-row").content.firstElementChild.cloneNode(true);
  row.querySelector(".term").value = term;
  row.querySelector(".translation").value = translation;
  row.querySelector(".remove").addEventListener("click", () => {
    row.remove();
    saveChoices();
    ui.glossaryAdd.focus();
  });
  row.addEventListener("change", saveChoices);
  ui.glossaryRows.append(row);
  if (focus) row.querySelector(".term").focus();
}

function glossaryEntries() {
  const entries = {};
  for (const row of ui.glossaryRows.rows) {
    const term = row.querySelector(".term").value.trim();
    const translation = row.querySelector(".translation").value.trim();
    if (term && translation) entries[term] = translation;
  }
  return entries;
}

// ---- Character count, copy ------------------------------------------------------------------

function charCount() {
  // The server counts code points, as Python's len() does.
  let n = 0;
  for (const _ of ui.text.value) n += 1;
  return n;
}

function updateCount() {
  const n = charCount();
  const max = state.config.max_text_chars;
  ui.count.textContent = `${n.toLocaleString()} / ${max.toLocaleString()}`;
  ui.count.classList.toggle("over", n > max);
  ui.count.title = n > max ? "Too long for this server" : "";
}

async function copyResult() {
  const text = ui.result.textContent;
  try {
    await navigator.clipboard.writeText(text);
  } catch (_) {
    // Plain http off localhost has no clipboard API: copy through a selection instead.
    const scratch = document.createElement("textarea");
    scratch.value = text;
    document.body.append(scratch);
    scratch.select();
    document.execCommand("copy");
    scratch.remove();
  }
  ui.resultInfo.textContent = "Copied.";
}

// ---- Errors ---------------------------------------------------------------------------------

function handleError(err, where = pageErrors) {
  if (err.status === 401) {
    const hadKey = Boolean(apiKey());
    sessionStorage.removeItem(KEY_STORE);
    askForKey(hadKey ? "That key was not accepted. Try another." : err.message);
  }
  showError(err.message, err.status === 503 || err.status === 429 ? err.retryAfter : null,
    where);
}

function showError(message, retryAfter = null, where = pageErrors) {
  clearError(where);
  where.message.textContent = message;
  where.box.hidden = false;
  if (retryAfter) startCountdown(retryAfter, where);
}

function startCountdown(seconds, where) {
  let left = seconds;
  const tick = () => {
    if (left <= 0) {
      clearInterval(where.countdown);
      where.countdown = null;
      where.retry.textContent = "You can try again now.";
      return;
    }
    where.retry.textContent = `Try again in ${left} s.`;
    left -= 1;
  };
  where.retry.hidden = false;
  tick();
  where.countdown = setInterval(tick, 1000);
}

function clearError(where = pageErrors) {
  if (where.countdown) clearInterval(where.countdown);
  where.countdown = null;
  where.box.hidden = true;
  where.message.textContent = "";
  where.retry.hidden = true;
  where.retry.textContent = "";
}

// ---- API key --------------------------------------------------------------------------------

let keyWaiters = [];

function askForKey(reason) {
  ui.keyReason.textContent = reason ||
    "This server needs an API key. It is kept only in this browser tab.";
  ui.keyInput.value = "";
  if (!ui.keyDialog.open) ui.keyDialog.showModal();
  ui.keyInput.focus();
  return new Promise((resolve) => keyWaiters.push(resolve));
}

function keyDialogClosed() {
  const key = ui.keyInput.value.trim();
  if (ui.keyDialog.returnValue === "save" && key) sessionStorage.setItem(KEY_STORE, key);
  ui.keyButton.hidden = !state.config.api_key_required && !apiKey();
  const waiters = keyWaiters;
  keyWaiters = [];
  waiters.forEach((resolve) => resolve(apiKey()));
}

// ---- Remembered choices ---------------------------------------------------------------------

function saveChoices() {
  const choices = {
    source: ui.source.value, target: ui.target.value, formality: ui.formality.value,
    html: ui.html.checked, glossary: glossaryEntries(), memory: ui.memory.value,
    glossary_id: ui.glossaryId.value,
  };
  try { localStorage.setItem(CHOICES_STORE, JSON.stringify(choices)); } catch (_) { /* full */ }
}

function storedChoices() {
  try { return JSON.parse(localStorage.getItem(CHOICES_STORE) || "{}") || {}; } catch (_) {
    return {};
  }
}

function restoreChoices() {
  const choices = storedChoices();
  if (choices.source && (choices.source === "auto" || state.names.has(choices.source))) {
    ui.source.value = choices.source;
  }
  if (choices.target && state.names.has(choices.target)) ui.target.value = choices.target;
  if (["default", "formal", "informal"].includes(choices.formality)) {
    ui.formality.value = choices.formality;
  }
  ui.html.checked = Boolean(choices.html);
  ui.glossaryRows.replaceChildren();
  for (const [term, translation] of Object.entries(choices.glossary || {})) {
    addGlossaryRow(term, translation);
  }
  if (!ui.glossaryRows.rows.length) addGlossaryRow();
}

// ---- Documents ------------------------------------------------------------------------------

// A file is sent as a multipart form to /translate/document, which answers the job's id and
// key at once; its progress comes from the job's events stream, read with fetch (EventSource
// cannot send the API key header), and the status route is polled should the stream end early.
const POLL_MS = 1000;
const FINAL = new Set(["done", "error"]);
const doc = {
  section: $("documents"), file: $("document-file"), translate: $("document-translate"),
  limits: $("document-limits"), status: $("document-status"),
  progress: $("document-progress"), progressLabel: $("document-progress-label"),
  progressText: $("document-progress-text"), done: $("document-done"),
  download: $("document-download"), billed: $("document-billed"), review: $("document-review"),
  announce: $("document-announce"),
  errors: errorBox($("document-error"), $("document-error-message"), $("document-retry")),
  running: false,
  url: null, // the object URL of the last result, released when the next one comes
};

function setUpDocuments() {
  const { documents, document_extensions: types = [], max_document_bytes: max } = state.config;
  doc.section.hidden = !documents;
  if (!documents) return;
  if (types.length) doc.file.accept = types.join(",");
  const size = max ? `Files up to ${formatBytes(max)}` : "Files";
  doc.limits.textContent = types.length ? `${size} of these types: ${types.join(", ")}.`
    : `${size}.`;
  doc.file.addEventListener("change", fileChosen);
  doc.translate.addEventListener("click", translateFile);
  doc.section.addEventListener("dragover", (event) => {
    if (!event.dataTransfer.types.includes("Files")) return;
    event.preventDefault(); // without it, the browser opens the file instead
    event.dataTransfer.dropEffect = "copy";
    doc.section.classList.add("dragging");
  });
  doc.section.addEventListener("dragleave", (event) => {
    if (!doc.section.contains(event.relatedTarget)) doc.section.classList.remove("dragging");
  });
  doc.section.addEventListener("drop", (event) => {
    event.preventDefault();
    doc.section.classList.remove("dragging");
    const [file] = event.dataTransfer.files;
    if (!file) return;
    const chosen = new DataTransfer(); // the first file only, into the input as if chosen
    chosen.items.add(file);
    doc.file.files = chosen.files;
    fileChosen();
    if (!doc.translate.disabled) doc.translate.focus();
  });
}

function chosenFile() {
  return doc.file.files.length ? doc.file.files[0] : null;
}

function fileChosen() {
  clearError(doc.errors);
  const file = chosenFile();
  const refusal = file && refusalOf(file);
  if (refusal) showError(refusal, null, doc.errors);
  doc.translate.disabled = !file || Boolean(refusal);
}

// The server's own limits, checked before uploading (it still answers 400/413 itself).
function refusalOf(file) {
  const { document_extensions: types = [], max_document_bytes: max } = state.config;
  const extension = extensionOf(file.name);
  // A file without an extension is recognised by its content: the server decides.
  if (extension && types.length && !types.includes(extension)) {
    return `Files of type ${extension} cannot be translated here. ` +
      `Supported types: ${types.join(", ")}.`;
  }
  if (max && file.size > max) {
    return `${file.name} has ${formatBytes(file.size)}; this server takes files up to ` +
      `${formatBytes(max)}.`;
  }
  return null;
}

function extensionOf(name) {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : ""; // ".profile" has none, as in Python
}

function formatBytes(bytes) {
  const units = ["bytes", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toLocaleString(undefined, { maximumFractionDigits: 1 })} ${units[unit]}`;
}

async function translateFile() {
  const file = chosenFile();
  if (!file || doc.running) return;
  const refusal = refusalOf(file);
  if (refusal) {
    showError(refusal, null, doc.errors);
    return;
  }
  clearError(doc.errors);
  setFileRunning(true);
  clearDownload();
  showProgress({ status: "uploading" }, file.name);
  doc.announce.textContent = `Translating ${file.name}…`;
  try {
    const job = await submitFile(file);
    const final = await followJob(job);
    if (final.status === "error") {
      throw new ApiError(200, final.error_message || "The file could not be translated.");
    }
    await offerResult(job, final);
  } catch (err) {
    doc.status.hidden = true;
    doc.announce.textContent = ""; // the error box is an alert of its own
    handleError(err, doc.errors);
  } finally {
    setFileRunning(false);
  }
}

async function submitFile(file) {
  const form = new FormData();
  form.append("file", file, file.name);
  form.append("target_lang", ui.target.value);
  form.append("source_lang", ui.source.value); // "auto": detected
  form.append("formality", ui.formality.value);
  const glossary = glossaryEntries();
  if (Object.keys(glossary).length) form.append("glossary", JSON.stringify(glossary));
  if (ui.memory.value) form.append("memory", ui.memory.value);
  if (ui.glossaryId.value) form.append("glossary_id", ui.glossaryId.value);
  const submitted = await (await api("translate/document", { body: form })).json();
  return { id: submitted.document_id, key: submitted.document_key, name: file.name,
    target: ui.target.value };
}

// Relative, like every URL of the page (the server's own `*_url` fields are absolute and
// may not see a proxy's path prefix).
function jobPath(job, suffix = "") {
  return `translate/document/${encodeURIComponent(job.id)}${suffix}` +
    `?key=${encodeURIComponent(job.key)}`;
}

async function followJob(job) {
  let last = null;
  try {
    for await (const status of events(await api(jobPath(job, "/events")))) {
      last = status;
      showProgress(status, job.name);
    }
  } catch (err) {
    // The server's refusal stands; a dropped connection falls back to polling below.
    if (err instanceof ApiError && err.status !== 0) throw err;
  }
  while (!last || !FINAL.has(last.status)) {
    if (last) await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    last = await (await api(jobPath(job))).json();
    showProgress(last, job.name);
  }
  return last;
}

function showProgress(status, name) {
  doc.status.hidden = false;
  doc.progressLabel.textContent = `Progress of ${name}`;
  const total = status.segments_total || 0;
  const done = status.segments_done || 0;
  let text;
  if (total > 0) {
    doc.progress.max = total;
    doc.progress.value = done;
    text = `${done.toLocaleString()} of ${total.toLocaleString()} segments`;
    if (status.status === "translating" && status.seconds_remaining) {
      text += `, about ${Math.ceil(status.seconds_remaining)} s left`;
    }
  } else if (status.status === "done") {
    doc.progress.max = 1;
    doc.progress.value = 1;
    text = "Nothing to translate in this file.";
  } else {
    doc.progress.removeAttribute("value"); // indeterminate until the job has counted
    text = status.status === "uploading" ? "Uploading…" : "Waiting to start…";
  }
  doc.progressText.textContent = text;
}

async function offerResult(job, final) {
  const blob = await (await api(jobPath(job, "/result"))).blob();
  // Fetched with the API key, then offered from memory: a plain link could not send the key.
  doc.url = URL.createObjectURL(blob);
  const name = translatedName(job.name, final.target_lang || job.target);
  doc.download.href = doc.url;
  doc.download.download = name;
  doc.download.textContent = `Download ${name}`;
  doc.billed.textContent = `${final.billed_characters.toLocaleString()} characters billed`;
  showReview(final);
  doc.done.hidden = false;
  doc.announce.textContent = `${job.name} is translated: ${doc.download.textContent}.`;
}

// How many of the file's translations need review, by their quality estimates; the first of
// them listed in the badge's tooltip.
function showReview(final) {
  const count = final.needs_review;
  if (typeof count !== "number") {
    doc.review.hidden = true;
    return;
  }
  doc.review.dataset.quality = count ? "review" : "good";
  doc.review.textContent = count === 1 ? "1 segment needs review"
    : `${count.toLocaleString()} segments need review`;
  const listed = (final.review || []).slice(0, 10).map((item) =>
    `#${item.segment + 1} (${item.estimate === null ? "?" : item.estimate.toFixed(2)}): ` +
    item.translation);
  doc.review.title = count
    ? "Their quality estimates are low, or the checks found something " +
      "(catalogs mark them in the file too).\n" + listed.join("\n")
    : "Every translation's quality estimate is high enough.";
  doc.review.hidden = false;
}

function translatedName(name, lang) {
  const extension = extensionOf(name);
  return `${name.slice(0, name.length - extension.length)}.${lang}${extension}`;
}

function clearDownload() {
  if (doc.url) URL.revokeObjectURL(doc.url);
  doc.url = null;
  doc.done.hidden = true;
  doc.download.removeAttribute("href");
  doc.download.textContent = "";
  doc.billed.textContent = "";
  doc.review.hidden = true;
}

function setFileRunning(running) {
  doc.running = running;
  // aria-disabled, not disabled: the button keeps keyboard focus while the file is translated.
  doc.translate.setAttribute("aria-disabled", running ? "true" : "false");
  doc.section.setAttribute("aria-busy", running ? "true" : "false");
}

// ---- Start ----------------------------------------------------------------------------------

async function start() {
  ui.form.addEventListener("submit", (event) => { event.preventDefault(); translate(); });
  ui.stop.addEventListener("click", () => state.running && state.running.abort());
  ui.detect.addEventListener("click", detect);
  ui.swap.addEventListener("click", swap);
  ui.copy.addEventListener("click", copyResult);
  ui.text.addEventListener("input", updateCount);
  ui.glossaryAdd.addEventListener("click", () => addGlossaryRow("", "", true));
  ui.edit.addEventListener("click", startEditing);
  ui.saveCorrection.addEventListener("click", saveCorrection);
  ui.cancelEdit.addEventListener("click", stopEditing);
  ui.resultEdit.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      stopEditing();
    }
  });
  for (const control of [ui.source, ui.target, ui.formality, ui.html, ui.memory,
    ui.glossaryId]) {
    control.addEventListener("change", saveChoices);
  }
  ui.source.addEventListener("change", () => {
    ui.detected.textContent = "";
    delete ui.detected.dataset.language;
    ui.source.options[0].textContent = "Detect language";
  });
  document.addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter" && !ui.keyDialog.open) {
      event.preventDefault();
      // In the correction, it saves it; anywhere else it translates.
      if (document.activeElement === ui.resultEdit) saveCorrection();
      else translate();
    }
  });
  ui.keyButton.addEventListener("click", async () => {
    if ((await askForKey()) && !state.names.size) await loadLanguagesWithKey();
  });
  ui.keyDialog.addEventListener("close", keyDialogClosed);

  try {
    const response = await api("ui/config.json");
    state.config = { ...state.config, ...(await response.json()) };
  } catch (err) {
    handleError(err);
  }
  updateCount();
  setUpDocuments();
  ui.keyButton.hidden = !state.config.api_key_required;
  if (state.config.api_key_required && !apiKey() && !(await askForKey())) {
    showError(NEED_KEY);
    return;
  }
  await loadLanguagesWithKey();
}

// The languages need the key where there are keys: ask again until one is accepted or the
// person gives up (the API key button asks again later).
async function loadLanguagesWithKey() {
  for (;;) {
    try {
      await loadLanguages();
      await loadResources();
      clearError();
      document.body.dataset.ready = "true"; // for tests and scripts: languages are in
      return;
    } catch (err) {
      if (err.status !== 401) { handleError(err); return; }
      sessionStorage.removeItem(KEY_STORE);
      if (!(await askForKey("That key was not accepted. Try another."))) {
        showError(NEED_KEY);
        return;
      }
    }
  }
}

start();
