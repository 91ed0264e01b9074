// What every part of the page shares: the API over fetch (JSON, forms, server-sent events),
// the error boxes, the API key dialog, and the quality checks' words. Every URL is relative,
// so the page works under whatever path prefix a proxy gives the service.

export const KEY_STORE = "translate-server.api-key"; // sessionStorage: gone when the tab closes
export const NEED_KEY =
  "This server needs an API key: choose \u201cAPI key\u201d at the top to enter one.";

export const $ = (id) => document.getElementById(id);

export const state = {
  config: { max_text_chars: 20000, api_key_required: false, documents: false },
  names: new Map(), // language code -> name
};

// ---- API ------------------------------------------------------------------------------------

export class ApiError extends Error {
  constructor(status, message, retryAfter) {
    super(message);
    this.status = status;
    this.retryAfter = retryAfter;
  }
}

export function apiKey() {
  return sessionStorage.getItem(KEY_STORE) || "";
}

function headers(json) {
  const found = { Accept: "application/json" };
  if (json) found["Content-Type"] = "application/json";
  if (apiKey()) found.Authorization = "Bearer " + apiKey();
  return found;
}

// A JSON body is sent as JSON; a FormData one as multipart (the browser sets its boundary).
// The method is GET without a body and POST with one, unless named.
export async function api(path, { body, signal, method } = {}) {
  const form = body instanceof FormData;
  let response;
  try {
    response = await fetch(path, {
      method: method || (body === undefined ? "GET" : "POST"),
      headers: headers(body !== undefined && !form), signal,
      body: body === undefined || form ? body : JSON.stringify(body),
    });
  } catch (err) {
    if (err.name === "AbortError") throw err;
    throw new ApiError(0, "The server cannot be reached. Check your connection and try again.");
  }
  if (!response.ok) throw await errorOf(response);
  return response;
}

export async function json(path, options) {
  return (await api(path, options)).json();
}

// A form sent with its upload's progress (fetch cannot report it): `progress(sent, total)`.
export function upload(path, form, progress) {
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", path);
    for (const [name, value] of Object.entries(headers(false))) {
      request.setRequestHeader(name, value);
    }
    request.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) progress(event.loaded, event.total);
    });
    request.addEventListener("load", () => {
      let body = null;
      try { body = JSON.parse(request.responseText); } catch (_) { /* not JSON */ }
      if (request.status >= 200 && request.status < 300) return resolve(body);
      const message = body && body.error && body.error.message ||
        `The server answered ${request.status} ${request.statusText}.`;
      reject(new ApiError(request.status, message, null));
    });
    request.addEventListener("error", () => reject(new ApiError(0,
      "The server cannot be reached. Check your connection and try again.")));
    request.send(form);
  });
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
export async function* events(response) {
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

// ---- Errors ---------------------------------------------------------------------------------

// Where errors are shown: under the text, in the file panel, in each store's panel. Each has
// its own countdown.
export const errorBox = (box, message, retry) => ({ box, message, retry, countdown: null });
export const pageErrors = errorBox($("error"), $("error-message"), $("retry"));

export function handleError(err, where = pageErrors) {
  if (err.status === 401) {
    const hadKey = Boolean(apiKey());
    sessionStorage.removeItem(KEY_STORE);
    askForKey(hadKey ? "That key was not accepted. Try another." : err.message);
  }
  showError(err.message, err.status === 503 || err.status === 429 ? err.retryAfter : null,
    where);
}

export function showError(message, retryAfter = null, where = pageErrors) {
  clearError(where);
  where.message.textContent = message;
  where.box.hidden = false;
  if (retryAfter && where.retry) startCountdown(retryAfter, where);
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

export function clearError(where = pageErrors) {
  if (where.countdown) clearInterval(where.countdown);
  where.countdown = null;
  where.box.hidden = true;
  where.message.textContent = "";
  if (where.retry) {
    where.retry.hidden = true;
    where.retry.textContent = "";
  }
}

// ---- API key --------------------------------------------------------------------------------

export const keys = {
  button: $("key-button"), dialog: $("key-dialog"), input: $("key-input"), reason: $("key-reason"),
};
let keyWaiters = [];

export function askForKey(reason) {
  keys.reason.textContent = reason ||
    "This server needs an API key. It is kept only in this browser tab.";
  keys.input.value = "";
  if (!keys.dialog.open) keys.dialog.showModal();
  keys.input.focus();
  return new Promise((resolve) => keyWaiters.push(resolve));
}

export function keyDialogClosed() {
  const key = keys.input.value.trim();
  if (keys.dialog.returnValue === "save" && key) sessionStorage.setItem(KEY_STORE, key);
  keys.button.hidden = !state.config.api_key_required && !apiKey();
  const waiters = keyWaiters;
  keyWaiters = [];
  waiters.forEach((resolve) => resolve(apiKey()));
}

// ---- Words ----------------------------------------------------------------------------------

export function nameOf(code) {
  return state.names.get(code) || code;
}

export function formatBytes(bytes) {
  const units = ["bytes", "KB", "MB", "GB"];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value.toLocaleString(undefined, { maximumFractionDigits: 1 })} ${units[unit]}`;
}

export function extensionOf(name) {
  const dot = name.lastIndexOf(".");
  return dot > 0 ? name.slice(dot).toLowerCase() : ""; // ".profile" has none, as in Python
}

// At or above it, a translation that needs no review is shown as likely good.
const GOOD_ESTIMATE = 0.9;
export const QUALITY_TEXTS = {
  good: "The estimate is high: this translation is likely good.",
  fair: "The estimate is middling: probably fine, worth a glance where it matters.",
  review: "The estimate is low, or the checks found something: a person should review it.",
};
export const QUALITY_LABELS = { review: "Needs review", good: "Likely good", fair: "Probably fine" };
export const QUALITY_EXPLAINED = "The quality estimate (0 to 1) is the server's own guess, " +
  "from how sure the model was of each word, the quality checks, the length against the " +
  "language pair's and the detected language; 1.0 means a translation memory's exact match. " +
  "It is a guide for what to review, not a guarantee.";

// The band a translation's estimate and review verdict put it in (docs/quality.md).
export function qualityBand(estimate, needsReview) {
  return needsReview ? "review" : estimate >= GOOD_ESTIMATE ? "good" : "fair";
}

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

export function warningText(warning) {
  return typeof warning === "string" ? (WARNING_TEXTS[warning] || warning)
    : (warning.message || JSON.stringify(warning));
}

// How a text matched a memory, in words.
export function matchText(match) {
  return match.match === "exact" ? "Exact memory match" : `Memory match ${Math.round(match.score)}%`;
}
