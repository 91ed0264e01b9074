// Translation memories on the page (/memories): imported from TMX, XLIFF, PO or CSV/TSV files,
// exported as TMX, their entries searched and edited one at a time.

import { ui as translator } from "./translate.js";

const id = (item) => encodeURIComponent(item);

// A file that does not say its languages (CSV without a header of tags, a PO header without
// its source) takes the translator's: its "From" (unless detected) and "To".
function importFields(form) {
  if (translator.source.value !== "auto") form.append("source_lang", translator.source.value);
  form.append("target_lang", translator.target.value);
}

export const MEMORIES = {
  key: "memories",
  path: "memories",
  title: "Translation memories",
  noun: "memory",
  Noun: "Memory",
  choiceField: "memory",
  label: (memory) => `${memory.name} (${memory.entries.toLocaleString()} ` +
    `${memory.entries === 1 ? "entry" : "entries"})`,
  importAccept: ".tmx,.xlf,.xliff,.po,.pot,.mo,.csv,.tsv",
  importHint: "TMX, XLIFF, PO or MO, CSV or TSV. A file that does not say its languages " +
    "takes the translator's From and To.",
  importPath: (memory) => `memories/${id(memory)}/import`,
  importFields,
  exportPath: (memory) => `memories/${id(memory.id)}/export`,
  exportName: (memory) => `${memory.name}.tmx`,
  entriesPath: (memory) => `memories/${id(memory)}/entries`,
};
