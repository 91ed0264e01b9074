// Stored glossaries on the page (/glossaries): a dictionary imported from a TBX file and
// exported as one, their entries searched and edited one at a time.

import { ui as translator } from "./translate.js";

const id = (item) => encodeURIComponent(item);

// A TBX file's terms go into the dictionary of the translator's "From" and "To" (English
// where the source is detected).
function pair() {
  const source = translator.source.value === "auto" ? "en" : translator.source.value;
  return [source, translator.target.value];
}

function importFields(form) {
  const [source, target] = pair();
  form.append("source_lang", source);
  form.append("target_lang", target);
}

function entryCount(glossary) {
  return glossary.dictionaries.reduce((sum, found) => sum + found.entry_count, 0);
}

// Its only dictionary, else the translator's pair's.
function exportPath(glossary) {
  const path = `glossaries/${id(glossary.id)}/tbx`;
  if (glossary.dictionaries.length <= 1) return path;
  const [source, target] = pair();
  return `${path}?source_lang=${id(source)}&target_lang=${id(target)}`;
}

export const GLOSSARIES = {
  key: "glossaries",
  path: "glossaries",
  title: "Glossaries",
  noun: "glossary",
  Noun: "Glossary",
  choiceField: "glossary_id",
  label: (glossary) => {
    const n = entryCount(glossary);
    return `${glossary.name} (${n.toLocaleString()} ${n === 1 ? "term" : "terms"})`;
  },
  importAccept: ".tbx,.xml",
  importHint: "TBX: its terms go into the dictionary of the translator's From (English where " +
    "detected) and To.",
  importPath: (glossary) => `glossaries/${id(glossary)}/tbx`,
  importFields,
  exportPath,
  exportName: (glossary) => `${glossary.name}.tbx`,
  entriesPath: (glossary) => `glossaries/${id(glossary)}/entries`,
};
