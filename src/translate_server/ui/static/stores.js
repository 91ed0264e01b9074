// A panel that manages one kind of store, translation memories or glossaries (memories.js and
// glossaries.js say how each is reached): made, renamed, deleted; a file imported with its
// upload's progress (a refusal shows the server's message, which names the line); its
// entries searched and paged, one edited in place or deleted; exported. Keyboard first:
// Enter saves and Escape cancels in every form and row. With an API key, the server lists
// only that key's stores, so each key sees only its own.

import {
  $, api, clearError, errorBox, handleError, json, showError, upload,
} from "./shared.js";
import { loadResources } from "./translate.js";

const PAGE = 20;

export class StorePanel {
  // `kind`: { key, title, noun, list(), label(item), importPath(id), importAccept,
  //   importFields(form, panel), exportPath(item), exportName(item), entriesPath(id),
  //   entryLangs(entry), choose(id) } (see memories.js).
  constructor(kind) {
    this.kind = kind;
    const root = $("store-panel").content.firstElementChild.cloneNode(true);
    root.id = `${kind.key}-panel`;
    root.dataset.kind = kind.key;
    this.root = root;
    this.el = (name) => root.querySelector(`.${name}`);
    const heading = this.el("store-heading");
    heading.id = `${kind.key}-heading`;
    heading.textContent = kind.title;
    root.setAttribute("aria-labelledby", heading.id);
    this.pick = this.el("store-pick");
    this.pick.id = `${kind.key}-pick`;
    this.el("store-pick-label").htmlFor = this.pick.id;
    this.el("store-pick-label").textContent = kind.noun[0].toUpperCase() + kind.noun.slice(1);
    this.file = this.el("store-file");
    this.file.id = `${kind.key}-file`;
    this.file.accept = kind.importAccept;
    this.el("store-file-label").htmlFor = this.file.id;
    this.el("store-import-types").textContent = kind.importHint;
    this.search = this.el("store-search-text");
    this.search.id = `${kind.key}-search`;
    this.el("store-search-label").htmlFor = this.search.id;
    this.nameInput = this.el("store-name-input");
    this.nameInput.id = `${kind.key}-name`;
    this.el("store-name-label").htmlFor = this.nameInput.id;
    this.errors = errorBox(this.el("error"), this.el("error-message"), null);
    this.items = [];
    this.offset = 0;
    this.query = "";
    this.naming = null; // "create" or "rename" while the name form is open
    this.afterCreate = null; // a select of the translator to choose the new store in
    this.wire();
  }

  wire() {
    this.pick.addEventListener("change", () => this.chosen());
    this.el("store-new").addEventListener("click", () => this.openName("create"));
    this.el("store-rename").addEventListener("click", () => this.openName("rename"));
    this.el("store-delete").addEventListener("click", () => this.remove());
    this.el("store-export").addEventListener("click", () => this.exportFile());
    this.el("store-name").addEventListener("submit", (event) => {
      event.preventDefault();
      this.saveName();
    });
    this.el("store-name-cancel").addEventListener("click", () => this.closeName());
    this.el("store-name").addEventListener("keydown", (event) => {
      if (event.key === "Escape") { event.preventDefault(); this.closeName(); }
    });
    this.file.addEventListener("change", () => this.importFile());
    this.el("store-search").addEventListener("submit", (event) => {
      event.preventDefault();
      this.query = this.search.value.trim();
      this.offset = 0;
      this.showEntries();
    });
    this.el("store-prev").addEventListener("click", () => this.page(-1));
    this.el("store-next").addEventListener("click", () => this.page(1));
  }

  current() {
    return this.items.find((item) => item.id === this.pick.value) || null;
  }

  // The caller's stores into the list, `choose` chosen (else the one chosen before).
  async load(choose) {
    let listed;
    try {
      listed = await json(this.kind.path);
    } catch (err) {
      this.root.hidden = true; // not served here, or refused: nothing to manage
      return;
    }
    this.root.hidden = false;
    this.items = listed.data || [];
    const keep = choose || this.pick.value;
    this.pick.replaceChildren(...this.items.map((item) => new Option(this.kind.label(item), item.id)));
    if (!this.items.length) this.pick.append(new Option(`No ${this.kind.noun} yet`, ""));
    if (this.items.some((item) => item.id === keep)) this.pick.value = keep;
    await this.chosen();
  }

  // The stores' labels (their entry counts) as they are now, the entries shown left alone.
  async relabel() {
    try {
      this.items = (await json(this.kind.path)).data || [];
    } catch (_) {
      return;
    }
    for (const option of this.pick.options) {
      const item = this.items.find((found) => found.id === option.value);
      if (item) option.textContent = this.kind.label(item);
    }
    await loadResources();
  }

  async chosen() {
    const item = this.current();
    for (const name of ["store-rename", "store-delete", "store-export"]) {
      this.el(name).disabled = !item;
    }
    this.file.disabled = !item;
    this.el("store-search-text").disabled = !item;
    this.offset = 0;
    this.query = "";
    this.search.value = "";
    this.el("store-import-status").textContent = "";
    await this.showEntries();
  }

  // ---- Making, renaming, deleting ---------------------------------------------------------

  openName(mode, afterCreate = null) {
    const item = this.current();
    if (mode === "rename" && !item) return;
    this.naming = mode;
    this.afterCreate = afterCreate;
    this.el("store-name-label").textContent = mode === "create"
      ? `Name of the new ${this.kind.noun}` : `New name of \u201c${item.name}\u201d`;
    this.el("store-name-save").textContent = mode === "create" ? "Create" : "Rename";
    this.nameInput.value = mode === "rename" ? item.name : "";
    this.el("store-name").hidden = false;
    this.nameInput.focus();
  }

  closeName(focus = true) {
    const mode = this.naming;
    this.naming = null;
    this.el("store-name").hidden = true;
    if (focus) this.el(mode === "rename" ? "store-rename" : "store-new").focus();
  }

  async saveName() {
    const name = this.nameInput.value.trim();
    if (!name) {
      showError(`Give the ${this.kind.noun} a name.`, null, this.errors);
      this.nameInput.focus();
      return;
    }
    clearError(this.errors);
    try {
      if (this.naming === "create") {
        const made = await json(this.kind.path, { body: { name } });
        this.announce(`${this.kind.Noun} \u201c${made.name}\u201d created.`);
        const select = this.afterCreate;
        this.closeName(false);
        await this.load(made.id);
        await loadResources({ [this.kind.choiceField]: made.id });
        // Where focus was left in the closed form (not moved on meanwhile): the next step.
        if (document.activeElement === document.body) (select || this.file).focus();
      } else {
        const item = this.current();
        await json(`${this.kind.path}/${encodeURIComponent(item.id)}`,
          { method: "PATCH", body: { name } });
        this.announce(`Renamed to \u201c${name}\u201d.`);
        this.closeName();
        await this.relabel();
      }
    } catch (err) {
      handleError(err, this.errors);
    }
  }

  async remove() {
    const item = this.current();
    if (!item) return;
    if (!window.confirm(`Delete the ${this.kind.noun} \u201c${item.name}\u201d and all its ` +
      "entries? This cannot be undone.")) return;
    try {
      await api(`${this.kind.path}/${encodeURIComponent(item.id)}`, { method: "DELETE" });
      this.announce(`${this.kind.Noun} \u201c${item.name}\u201d deleted.`);
      await this.load();
      await loadResources();
      this.el("store-new").focus();
    } catch (err) {
      handleError(err, this.errors);
    }
  }

  // ---- Files ------------------------------------------------------------------------------

  async importFile() {
    const item = this.current();
    const file = this.file.files[0];
    if (!item || !file) return;
    clearError(this.errors);
    const progress = this.el("store-progress");
    const status = this.el("store-import-status");
    const form = new FormData();
    form.append("file", file, file.name);
    this.kind.importFields(form);
    progress.hidden = false;
    progress.removeAttribute("value");
    status.textContent = `Importing ${file.name}\u2026`;
    try {
      const answer = await upload(this.kind.importPath(item.id), form, (sent, total) => {
        progress.max = total;
        progress.value = sent; // once all is sent, the server reads it: indeterminate again
        if (sent >= total) progress.removeAttribute("value");
      });
      const said = `${file.name}: ${answer.read.toLocaleString()} read, ` +
        `${answer.added.toLocaleString()} added, ${answer.replaced.toLocaleString()} replaced.`;
      await this.load(item.id);
      await loadResources();
      status.textContent = said; // after the reload, which clears it
    } catch (err) {
      status.textContent = "";
      handleError(err, this.errors);
    } finally {
      progress.hidden = true;
      this.file.value = "";
    }
  }

  async exportFile() {
    const item = this.current();
    if (!item) return;
    try {
      // Fetched with the API key, then offered from memory: a plain link could not send it.
      const blob = await (await api(this.kind.exportPath(item))).blob();
      const link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = this.kind.exportName(item);
      document.body.append(link);
      link.click();
      link.remove();
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000);
      this.announce(`Exported as ${link.download}.`);
    } catch (err) {
      handleError(err, this.errors);
    }
  }

  // ---- Entries ----------------------------------------------------------------------------

  async page(step) {
    this.offset = Math.max(0, this.offset + step * PAGE);
    await this.showEntries();
  }

  async showEntries() {
    const item = this.current();
    const rows = this.el("store-entries");
    const table = this.el("store-table");
    table.hidden = !item;
    this.el("store-pager").hidden = !item;
    if (!item) {
      rows.replaceChildren();
      return;
    }
    const params = new URLSearchParams({ limit: PAGE, offset: this.offset });
    if (this.query) params.set("q", this.query);
    let found;
    try {
      found = await json(`${this.kind.entriesPath(item.id)}?${params}`);
    } catch (err) {
      handleError(err, this.errors);
      return;
    }
    rows.replaceChildren(...found.data.map((entry) => this.row(item, entry)));
    const last = this.offset + found.data.length;
    const total = found.total;
    this.el("store-count").textContent = total === 0
      ? (this.query ? `No entry holds \u201c${this.query}\u201d.` : "No entries yet.")
      : `${(this.offset + 1).toLocaleString()}\u2013${last.toLocaleString()} of ` +
        `${total.toLocaleString()} ${total === 1 ? "entry" : "entries"}` +
        (this.query ? ` holding \u201c${this.query}\u201d` : "");
    this.el("store-prev").disabled = this.offset === 0;
    this.el("store-next").disabled = last >= total;
  }

  row(item, entry) {
    const row = $("store-entry").content.firstElementChild.cloneNode(true);
    row.dataset.id = entry.id;
    const cell = (name) => row.querySelector(`.${name}`);
    cell("entry-source").textContent = entry.source;
    cell("entry-target").textContent = entry.target;
    cell("entry-langs").textContent = `${entry.source_lang} \u2192 ${entry.target_lang}`;
    cell("entry-edit").setAttribute("aria-label", `Edit \u201c${entry.source}\u201d`);
    cell("entry-delete").setAttribute("aria-label", `Delete \u201c${entry.source}\u201d`);
    cell("entry-edit").addEventListener("click", () => this.editRow(item, entry, row));
    cell("entry-delete").addEventListener("click", () => this.deleteEntry(item, entry, row));
    return row;
  }

  // The row's texts become fields: Enter saves, Escape cancels.
  editRow(item, entry, row) {
    const fields = [["entry-source", entry.source, "Source"],
      ["entry-target", entry.target, "Translation"]].map(([name, value, label]) => {
      const input = document.createElement("input");
      input.type = "text";
      input.value = value;
      input.className = "entry-field";
      input.setAttribute("aria-label", label);
      row.querySelector(`.${name}`).replaceChildren(input);
      return input;
    });
    const cancel = () => {
      row.replaceWith(this.row(item, entry));
      this.findRow(entry.id);
    };
    const save = async () => {
      const [source, target] = fields.map((input) => input.value.trim());
      if (!source || !target) {
        showError("An entry needs its source and its translation.", null, this.errors);
        return;
      }
      try {
        const changed = await json(`${this.kind.entriesPath(item.id)}/` +
          encodeURIComponent(entry.id), { method: "PATCH", body: { source, target } });
        clearError(this.errors);
        row.replaceWith(this.row(item, changed));
        this.findRow(changed.id);
        this.announce(`Entry \u201c${changed.source}\u201d saved.`);
        await this.relabel();
      } catch (err) {
        handleError(err, this.errors);
      }
    };
    for (const input of fields) {
      input.addEventListener("keydown", (event) => {
        if (event.key === "Enter") { event.preventDefault(); save(); }
        if (event.key === "Escape") { event.preventDefault(); cancel(); }
      });
    }
    fields[1].focus();
    fields[1].select();
  }

  findRow(id) {
    const rows = [...this.el("store-entries").rows];
    const index = rows.findIndex((row) => row.dataset.id === String(id));
    const row = rows[index] || rows[0];
    if (row) row.querySelector(".entry-edit").focus();
  }

  async deleteEntry(item, entry, row) {
    try {
      await api(`${this.kind.entriesPath(item.id)}/${encodeURIComponent(entry.id)}`,
        { method: "DELETE" });
      this.announce(`Entry \u201c${entry.source}\u201d deleted.`);
      const index = [...this.el("store-entries").rows].indexOf(row);
      if (this.offset > 0 && this.el("store-entries").rows.length === 1) this.offset -= PAGE;
      await this.showEntries(); // the page filled again from the next one
      const rows = this.el("store-entries").rows;
      const next = rows[Math.min(index, rows.length - 1)];
      if (next) next.querySelector(".entry-delete").focus();
      else this.search.focus();
      await this.relabel();
    } catch (err) {
      handleError(err, this.errors);
    }
  }

  announce(message) {
    this.el("store-announce").textContent = message;
  }
}

// The memory and glossary panels, and the translator's "New memory…" and "New glossary…",
// which open their panel's create form.
export function setUpStores(kinds) {
  const panels = new Map(kinds.map((kind) => [kind.key, new StorePanel(kind)]));
  const box = $("stores");
  for (const panel of panels.values()) box.append(panel.root);
  document.addEventListener("stores:create", (event) => {
    const panel = panels.get(event.detail.kind);
    if (!panel) return;
    $("stores").open = true;
    panel.root.scrollIntoView({ block: "nearest" });
    panel.openName("create", event.detail.select);
  });
  return async () => {
    await Promise.all([...panels.values()].map((panel) => panel.load()));
  };
}
