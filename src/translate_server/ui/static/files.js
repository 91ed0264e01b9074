// The file panel: a file sent as a multipart form to /translate/document, its progress
// followed, its result offered for download and, once done, its review opened.

import { closeReview, openReview } from "./review.js";
import {
  $, ApiError, api, clearError, errorBox, events, extensionOf, formatBytes, handleError,
  showError, state,
} from "./shared.js";
import { chosenOptions } from "./translate.js";

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
  announce: $("document-announce"), reviewOpen: $("document-review-open"),
  errors: errorBox($("document-error"), $("document-error-message"), $("document-retry")),
  running: false,
  url: null, // the object URL of the last result, released when the next one comes
  job: null, // the last file's job: { id, key, name, target, memory, source }
};

export function setUpDocuments() {
  const { documents, document_extensions: types = [], max_document_bytes: max } = state.config;
  doc.section.hidden = !documents;
  if (!documents) return;
  if (types.length) doc.file.accept = types.join(",");
  const size = max ? `Files up to ${formatBytes(max)}` : "Files";
  doc.limits.textContent = types.length ? `${size} of these types: ${types.join(", ")}.`
    : `${size}.`;
  doc.file.addEventListener("change", fileChosen);
  doc.reviewOpen.addEventListener("click", () => openReview(doc.job));
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
  const chosen = chosenOptions();
  form.append("target_lang", chosen.target_lang);
  form.append("source_lang", chosen.source_lang); // "auto": detected
  form.append("formality", chosen.formality);
  if (Object.keys(chosen.glossary).length) {
    form.append("glossary", JSON.stringify(chosen.glossary));
  }
  if (chosen.memory) form.append("memory", chosen.memory);
  if (chosen.glossary_id) form.append("glossary_id", chosen.glossary_id);
  const submitted = await (await api("translate/document", { body: form })).json();
  return { id: submitted.document_id, key: submitted.document_key, name: file.name,
    target: chosen.target_lang, memory: chosen.memory,
    source: chosen.source_lang === "auto" ? null : chosen.source_lang };
}

// Relative, like every URL of the page (the server's own `*_url` fields are absolute and
// may not see a proxy's path prefix).
export function jobPath(job, suffix = "") {
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
  doc.job = job;
  await fetchResult(job);
  const name = translatedName(job.name, final.target_lang || job.target);
  doc.download.download = name;
  doc.download.textContent = `Download ${name}`;
  doc.billed.textContent = `${final.billed_characters.toLocaleString()} characters billed`;
  showReview(final);
  doc.reviewOpen.hidden = false;
  doc.done.hidden = false;
  doc.announce.textContent = `${job.name} is translated: ${doc.download.textContent}.`;
}

// Fetched with the API key, then offered from memory: a plain link could not send the key.
async function fetchResult(job) {
  const blob = await (await api(jobPath(job, "/result"))).blob();
  if (doc.url) URL.revokeObjectURL(doc.url);
  doc.url = URL.createObjectURL(blob);
  doc.download.href = doc.url;
}

// After a segment's review: the result as it is now, and what is left to review.
export async function refreshDownload() {
  const job = doc.job;
  if (!job) return;
  await fetchResult(job);
  showReview(await (await api(jobPath(job))).json());
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
  doc.reviewOpen.hidden = true;
  closeReview();
}

function setFileRunning(running) {
  doc.running = running;
  // aria-disabled, not disabled: the button keeps keyboard focus while the file is translated.
  doc.translate.setAttribute("aria-disabled", running ? "true" : "false");
  doc.section.setAttribute("aria-busy", running ? "true" : "false");
}

