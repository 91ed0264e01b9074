// A finished file's review (/translate/document/{id}/segments): its segments beside their
// sources, those needing review first, each with its estimate, warnings and memory match.
// A fix is saved into the file's result, and, where a memory is chosen, as a correction into
// it; approving clears the segment's review flag (PO without `#, fuzzy`, XLIFF `translated`).
// In a translation, Ctrl+Enter approves it and moves to the next, Escape puts it back.

import { refreshDownload } from "./files.js";
import {
  $, QUALITY_LABELS, clearError, errorBox, handleError, json, matchText, qualityBand,
  warningText,
} from "./shared.js";
import { ui as translator } from "./translate.js";

const view = {
  root: $("review"), summary: $("review-summary"), list: $("review-segments"),
  memory: $("review-memory"), close: $("review-close"), announce: $("review-announce"),
  errors: errorBox($("review-error"), $("review-error-message"), null),
  job: null, // { id, key, name, target, memory, source }
  segments: [],
};

function segmentsPath(job, suffix = "") {
  return `translate/document/${encodeURIComponent(job.id)}/segments${suffix}` +
    `?key=${encodeURIComponent(job.key)}`;
}

export async function openReview(job) {
  if (!job) return;
  view.job = job;
  clearError(view.errors);
  let found;
  try {
    found = await json(segmentsPath(job));
  } catch (err) {
    view.root.hidden = false;
    handleError(err, view.errors);
    return;
  }
  fillMemories(job.memory);
  // Those needing review first, then the rest in the file's order; blank ones are not shown.
  view.segments = found.data.filter((segment) => segment.source.trim());
  view.segments.sort((a, b) => Number(b.needs_review) - Number(a.needs_review) ||
    a.index - b.index);
  view.list.replaceChildren(...view.segments.map(item));
  summarize(found.needs_review);
  view.root.hidden = false;
  const first = view.list.querySelector(".segment-translation");
  if (first) first.focus();
}

export function closeReview() {
  view.root.hidden = true;
  view.list.replaceChildren();
  view.job = null;
}

// The translator's memories: the one the file was translated with chosen.
function fillMemories(chosen) {
  const options = [...translator.memory.options]
    .filter((option) => option.value && option.value !== "__new")
    .map((option) => new Option(option.dataset.name || option.textContent, option.value));
  view.memory.replaceChildren(new Option("Do not save as corrections", ""), ...options);
  view.memory.value = options.some((option) => option.value === chosen) ? chosen : "";
}

function summarize(count) {
  view.summary.textContent = count === 0 ? "Nothing needs review." : count === 1
    ? "1 segment needs review." : `${count.toLocaleString()} segments need review.`;
}

function item(segment) {
  const node = $("review-segment").content.firstElementChild.cloneNode(true);
  const part = (name) => node.querySelector(`.${name}`);
  const number = `Segment ${segment.index + 1}`;
  node.dataset.index = segment.index;
  part("segment-number").textContent = number;
  part("segment-source").textContent = segment.source;
  const field = part("segment-translation");
  field.id = `segment-${segment.index}`;
  field.value = segment.translation;
  part("segment-label").htmlFor = field.id;
  part("segment-label").textContent = `Translation of ${number.toLowerCase()}`;
  part("segment-approve").setAttribute("aria-label", `Approve ${number.toLowerCase()}`);
  part("segment-save").setAttribute("aria-label", `Save ${number.toLowerCase()}`);
  show(node, segment);
  part("segment-approve").addEventListener("click", () => save(node, true));
  part("segment-save").addEventListener("click", () => save(node, null));
  field.addEventListener("keydown", (event) => {
    if ((event.ctrlKey || event.metaKey) && event.key === "Enter") {
      event.preventDefault();
      save(node, true);
    } else if (event.key === "Escape") {
      event.preventDefault();
      field.value = view.segments.find((s) => s.index === segment.index).translation;
    }
  });
  return node;
}

// A segment's badges and warnings as it stands.
function show(node, segment) {
  const part = (name) => node.querySelector(`.${name}`);
  const band = segment.approved ? "good" : typeof segment.estimate === "number"
    ? qualityBand(segment.estimate, segment.needs_review) : segment.needs_review ? "review" : "";
  node.dataset.quality = band;
  node.classList.toggle("approved", segment.approved);
  const quality = part("segment-quality");
  const estimate = typeof segment.estimate === "number" ? ` \u00b7 ${segment.estimate.toFixed(2)}`
    : "";
  quality.textContent = segment.approved ? "Approved" + (segment.edited ? " (edited)" : "")
    : band ? `${QUALITY_LABELS[band]}${estimate}` : "";
  quality.dataset.quality = band;
  quality.hidden = !quality.textContent;
  const match = part("segment-match");
  match.textContent = segment.memory_match ? matchText(segment.memory_match) : "";
  match.hidden = !segment.memory_match;
  const warnings = part("warnings");
  warnings.replaceChildren(...segment.warnings.map((warning) => {
    const line = document.createElement("li");
    line.textContent = warningText(warning);
    return line;
  }));
  warnings.hidden = segment.warnings.length === 0;
}

async function save(node, approved) {
  const index = Number(node.dataset.index);
  const segment = view.segments.find((s) => s.index === index);
  const field = node.querySelector(".segment-translation");
  const status = node.querySelector(".segment-status");
  const translation = field.value;
  if (!translation.trim()) {
    status.textContent = "The translation is empty: type it, or press Escape.";
    field.focus();
    return;
  }
  const body = {};
  if (translation !== segment.translation) body.translation = translation;
  if (approved !== null) body.approved = approved;
  if (view.memory.value && (body.translation !== undefined || approved)) {
    body.memory = view.memory.value;
    if (view.job.source) body.source_lang = view.job.source;
  }
  if (!Object.keys(body).length) {
    status.textContent = "Nothing changed.";
    return;
  }
  clearError(view.errors);
  try {
    const edited = await json(segmentsPath(view.job, `/${index}`), { method: "PATCH", body });
    Object.assign(segment, edited.segment);
    show(node, segment);
    summarize(edited.needs_review);
    const said = [approved ? "Approved" : "Saved"];
    if (edited.correction) said.push(`saved as a correction to \u201c${edited.correction.memory.name}\u201d`);
    status.textContent = said.join(", ") + ".";
    view.announce.textContent = `Segment ${index + 1}: ${status.textContent}`;
    await refreshDownload(edited.needs_review);
    if (approved) next(node);
  } catch (err) {
    handleError(err, view.errors);
  }
}

// The next segment that needs review, else the one after this.
function next(node) {
  const waiting = [...view.list.children].find((other) => other !== node &&
    other.dataset.quality === "review" && !other.classList.contains("approved"));
  const target = waiting || node.nextElementSibling;
  if (target) target.querySelector(".segment-translation").focus();
  else view.close.focus();
}

export function setUpReview() {
  view.close.addEventListener("click", () => {
    closeReview();
    $("document-review-open").focus();
  });
}
