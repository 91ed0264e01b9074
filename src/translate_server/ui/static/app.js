// The translator page: plain DOM code over the service's own API, in ES modules served as they
// are (no build step). This one starts the page; each part is a module of its own:
// translate.js (the text and the choices), corrections.js (a translation corrected into a
// memory), files.js (a file translated), review.js (a translated file's segments reviewed),
// memories.js and glossaries.js (their panels, made by stores.js), shared.js (the API,
// errors, the API key).

import { setUpDocuments } from "./files.js";
import { GLOSSARIES } from "./glossaries.js";
import { MEMORIES } from "./memories.js";
import { setUpReview } from "./review.js";
import {
  KEY_STORE, NEED_KEY, api, apiKey, askForKey, clearError, handleError, keyDialogClosed, keys,
  showError,
  state,
} from "./shared.js";
import { setUpStores } from "./stores.js";
import { loadLanguages, loadResources, setUpTranslate } from "./translate.js";

let loadStores = async () => {};

async function start() {
  setUpTranslate();
  setUpReview();
  keys.button.addEventListener("click", async () => {
    if ((await askForKey()) && !state.names.size) await loadLanguagesWithKey();
  });
  keys.dialog.addEventListener("close", keyDialogClosed);

  try {
    const response = await api("ui/config.json");
    state.config = { ...state.config, ...(await response.json()) };
  } catch (err) {
    handleError(err);
  }
  setUpDocuments();
  loadStores = setUpStores([MEMORIES, GLOSSARIES]);
  keys.button.hidden = !state.config.api_key_required;
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
      await Promise.all([loadResources(), loadStores()]);
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
