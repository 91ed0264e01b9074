// A translation corrected in place: the result turned into a text box, and the corrected
// pair saved into the chosen memory through /translate/corrections (the same text is then
// that memory's exact match). On a fresh server, with no memory to choose, it offers to make
// one.

import { api, handleError } from "./shared.js";
import { loadResources, local, ui, updateMemoryOption } from "./translate.js";

function editing() {
  return !ui.resultEdit.hidden;
}

export function startEditing() {
  if (!local.last || local.running) return;
  ui.resultEdit.value = ui.result.textContent;
  setEditing(true);
  ui.resultEdit.focus();
}

export function stopEditing() {
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

export async function saveCorrection() {
  const last = local.last;
  const corrected = ui.resultEdit.value;
  if (!last || !editing()) return;
  if (!corrected.trim()) {
    showMemoryStatus("The corrected translation is empty: type it, or cancel.");
    ui.resultEdit.focus();
    return;
  }
  if (!ui.memory.value) {
    // On a fresh server there is none to choose: the page offers to make one.
    const none = ui.memory.options.length <= 2;
    showMemoryStatus(none ? "Choose a translation memory to save corrections into: there " +
      "is none yet, create one." : "Choose a translation memory above to save corrections into.");
    ui.memoryOffer.hidden = !none;
    (none ? ui.memoryOffer : ui.memory).focus();
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
  ui.memoryOffer.hidden = true;
  ui.memoryStatus.textContent = message;
  ui.memoryStatus.classList.toggle("saved", saved);
}

