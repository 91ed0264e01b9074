// The translator: a text translated as it streams (/translate with `stream: true`), checked
// again where the stream had warnings, corrected in place into a memory
// (/translate/corrections), its language detected (/detect), and the choices it is made
// with (languages, formality, memory, glossaries) remembered in this browser.

import {
  $, ApiError, QUALITY_EXPLAINED, QUALITY_LABELS, QUALITY_TEXTS, api, clearError, events,
  handleError, keys, matchText, nameOf, qualityBand, showError, state, warningText,
} from "./shared.js";
import { saveCorrection, startEditing, stopEditing } from "./corrections.js";

const CHOICES_STORE = "translate-server.choices"; // localStorage: no text, only settings
// The option of the memory and glossary lists that opens the panel to make one.
export const NEW_STORE = "__new";

export const ui = {
  form: $("translator"), source: $("source-lang"), target: $("target-lang"), swap: $("swap"),
  text: $("source-text"), count: $("char-count"), detect: $("detect"), detected: $("detected"),
  result: $("result"), resultInfo: $("result-info"), warnings: $("warnings"), copy: $("copy"),
  quality: $("quality"),
  translate: $("translate"), stop: $("stop"), formality: $("formality"), html: $("html-mode"),
  glossaryRows: $("glossary-rows"), glossaryAdd: $("glossary-add"),
  memory: $("memory"), glossaryId: $("glossary-id"), resultEdit: $("result-edit"),
  edit: $("edit"), saveCorrection: $("save-correction"), cancelEdit: $("cancel-edit"),
  editHint: $("edit-hint"), memoryStatus: $("memory-status"), memoryOffer: $("memory-offer"),
};

export const local = {
  running: null, // the AbortController of the translation in progress
  // The last translation shown: what a correction of it says was translated, and how.
  last: null, // { text, source_lang, target_lang, translation }
};

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
  if (local.running) return;
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
  local.last = { text: body.text, source_lang: source, target_lang: body.target_lang,
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
    item.textContent = warningText(warning);
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
  badge.textContent = matchText(match);
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
  const band = qualityBand(estimate, needsReview);
  const label = QUALITY_LABELS[band];
  ui.result.dataset.quality = band;
  ui.quality.dataset.quality = band;
  ui.quality.textContent = `${label} · ${estimate.toFixed(2)}`;
  ui.quality.title = QUALITY_TEXTS[band] + " " + QUALITY_EXPLAINED;
  ui.quality.setAttribute("aria-label", `${label}, quality estimate ${estimate.toFixed(2)}. ` +
    QUALITY_TEXTS[band]);
  ui.quality.hidden = false;
}

function setRunning(controller) {
  local.running = controller;
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
  local.last = null;
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

export async function loadLanguages() {
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

// The caller's memories and stored glossaries, to choose from (with an API key, its own);
// `prefer` names those to choose now (one just made).
export async function loadResources(prefer = {}) {
  const stored = storedChoices();
  const chosen = { memory: prefer.memory || ui.memory.value || stored.memory,
    glossary_id: prefer.glossary_id || ui.glossaryId.value || stored.glossary_id };
  const listed = async (path) => {
    try {
      return (await (await api(path)).json()).data || [];
    } catch (err) {
      return null; // not served here, or refused: nothing to choose
    }
  };
  const [memories, glossaries] = await Promise.all([listed("memories"), listed("glossaries")]);
  fillChoice(ui.memory, memories, ["No memory", "New memory\u2026"], memoryLabel, chosen.memory);
  fillChoice(ui.glossaryId, glossaries, ["No stored glossary", "New glossary\u2026"],
    (g) => g.name, chosen.glossary_id);
  if (memories && memories.length) ui.memoryOffer.hidden = true;
  if (prefer.memory || prefer.glossary_id) saveChoices();
}

function fillChoice(select, items, [none, create], label, chosen) {
  select.closest(".field").hidden = items === null;
  const options = (items || []).map((item) => {
    const option = new Option(label(item), item.id);
    option.dataset.name = item.name;
    return option;
  });
  select.replaceChildren(new Option(none, ""), ...options, new Option(create, NEW_STORE));
  select.value = options.some((o) => o.value === chosen) ? chosen : "";
  select.dataset.chosen = select.value;
}

function memoryLabel(memory) {
  const n = memory.entries;
  return `${memory.name} (${n.toLocaleString()} ${n === 1 ? "entry" : "entries"})`;
}

export function updateMemoryOption(memory) {
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

export function updateCount() {
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


// ---- Setting up -----------------------------------------------------------------------------

// What a file is translated with: the languages and options chosen here.
export function chosenOptions() {
  return {
    target_lang: ui.target.value, source_lang: ui.source.value, formality: ui.formality.value,
    glossary: glossaryEntries(), memory: ui.memory.value, glossary_id: ui.glossaryId.value,
  };
}

// Asks the memories or glossaries panel to make one (`stores:create`), choosing it here once
// made.
function offerToCreate(select, kind) {
  document.dispatchEvent(new CustomEvent("stores:create", { detail: { kind, select } }));
}

export function setUpTranslate() {
  ui.form.addEventListener("submit", (event) => { event.preventDefault(); translate(); });
  ui.stop.addEventListener("click", () => local.running && local.running.abort());
  ui.detect.addEventListener("click", detect);
  ui.swap.addEventListener("click", swap);
  ui.copy.addEventListener("click", copyResult);
  ui.text.addEventListener("input", updateCount);
  ui.glossaryAdd.addEventListener("click", () => addGlossaryRow("", "", true));
  ui.edit.addEventListener("click", startEditing);
  ui.saveCorrection.addEventListener("click", saveCorrection);
  ui.cancelEdit.addEventListener("click", stopEditing);
  ui.memoryOffer.addEventListener("click", () => offerToCreate(ui.memory, "memories"));
  ui.resultEdit.addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      stopEditing();
    }
  });
  for (const [select, kind] of [[ui.memory, "memories"], [ui.glossaryId, "glossaries"]]) {
    select.addEventListener("change", () => {
      if (select.value !== NEW_STORE) return;
      select.value = select.dataset.chosen || "";
      offerToCreate(select, kind);
    });
    select.addEventListener("change", () => { select.dataset.chosen = select.value; });
  }
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
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter" && !keys.dialog.open &&
        !event.target.closest(".stores, .review")) {
      event.preventDefault();
      // In the correction, it saves it; anywhere else it translates.
      if (document.activeElement === ui.resultEdit) saveCorrection();
      else translate();
    }
  });
  updateCount();
}
