// The page to work in, made livelier: the textarea becomes an editor (CodeMirror 5, vendored), the work is
// saved a moment after typing pauses and when the editor or the page is left, and "Run the visible tests"
// shows its report in place. Without script the same form does all of it, a page at a time. A save names the
// revision it was edited from: when another page saved meanwhile the server refuses it and this page says so,
// and offers the saved version; it never writes over it unasked.
(function () {
  "use strict";
  const form = document.getElementById("work");
  if (!form || !window.CodeMirror) return;
  const area = document.getElementById("code");
  const status = document.getElementById("saved");
  const conflict = document.getElementById("conflict");
  const csrf = form.elements.namedItem("csrf").value;
  const baseField = form.elements.namedItem("base");
  const PAUSE = 2000;  // ms of no typing before a save

  // Tab moves on, as everywhere on the page (no keyboard trap, WCAG 2.1.2): `false` leaves a key to the
  // browser. Ctrl+M makes Tab indent until Ctrl+M or Esc.
  const toggle = on => () => {
    if (on === tabIndents) return CodeMirror.Pass;
    tabIndents = on;
    editor.setOption("extraKeys", on ? indenting : moving);
    say(on ? "Tab indents now (Ctrl+M or Esc: Tab moves on)." : "Tab moves to the next control.");
  };
  let tabIndents = false;
  const moving = {"Tab": false, "Shift-Tab": false, "Ctrl-M": toggle(true)};
  const indenting = {
    "Tab": cm => cm.execCommand(cm.somethingSelected() ? "indentMore" : "insertSoftTab"),
    "Shift-Tab": cm => cm.execCommand("indentLess"),
    "Ctrl-M": toggle(false), "Esc": toggle(false),
  };
  const editor = CodeMirror.fromTextArea(area, {
    mode: form.dataset.mode === "python" ? "python" : null, lineNumbers: true, indentUnit: 4, tabSize: 4,
    // contenteditable: a screen reader reads the code itself, not a hidden one-line textarea
    inputStyle: "contenteditable", screenReaderLabel: "Your code", viewportMargin: Infinity, extraKeys: moving,
  });
  const input = editor.getInputField();
  input.setAttribute("role", "textbox");
  input.setAttribute("aria-multiline", "true");
  input.setAttribute("aria-describedby", "keys");
  input.id = "editor";

  // ------------------------------------------------------------ saving
  let base = Number(baseField.value) || 0;
  // The text the server holds as revision `base` (or the starter code); null when the page came back from a
  // form with text of its own (a run, a refused hand-in), which is saved at once.
  let saved = form.hasAttribute("data-unsaved") ? null : editor.getValue();
  let timer = null, inFlight = null, stale = null;

  function say(text) { status.textContent = text; }
  function time(iso) { return iso ? iso.replace("T", " ").replace("Z", " UTC") : ""; }

  async function save(leaving) {
    clearTimeout(timer);
    const code = editor.getValue();
    if (code === saved || stale) return;
    if (inFlight) { await inFlight; return save(leaving); }
    const body = new URLSearchParams({csrf: csrf, code: code, base: String(base)});
    // keepalive: a save made as the page is left still reaches the server; its receipt is read if the page
    // lives on (a tab hidden, then shown again), so the next save names the revision this one made.
    const sending = fetch(form.dataset.draft, {method: "POST", body: body, credentials: "same-origin",
                                               headers: {"Accept": "application/json"}, keepalive: !!leaving});
    inFlight = (async () => {
      say("Saving…");
      try {
        const reply = await sending;
        const data = await reply.json();
        if (reply.ok) {
          base = data.receipt.revision;
          baseField.value = String(base);
          saved = code;
          say(`Saved: revision ${base}, at ${time(data.receipt.saved_at)}.` + (editor.getValue() !== saved ? " More changes since." : ""));
        } else if (reply.status === 409) {
          showStale(data.current);
        } else {
          say(`Not saved: ${data.error || reply.status}.`);
        }
      } catch (error) {
        say("Not saved: the server cannot be reached now; trying again in a few seconds.");
        timer = setTimeout(save, 5 * PAUSE);
      }
    })();
    try { await inFlight; } finally { inFlight = null; }
    if (!stale && editor.getValue() !== saved) schedule();
  }

  function schedule() { clearTimeout(timer); timer = setTimeout(save, PAUSE); }

  function showStale(current) {
    stale = current;
    document.getElementById("conflict-text").textContent =
      `Another page saved this exercise meanwhile (revision ${current.revision}${current.saved_at ? ", at " + time(current.saved_at) : ""}). ` +
      "What you typed here is not saved: load the saved version, or keep yours and save it over that one.";
    conflict.hidden = false;
    say("Not saved: another page saved meanwhile.");
  }

  function settle(text, revision) {
    base = revision;
    baseField.value = String(base);
    stale = null;
    conflict.hidden = true;
    if (text !== null) { saved = text; editor.setValue(text); }
    editor.focus();
  }

  document.getElementById("load-saved").addEventListener("click", () => {
    settle(stale.code === null ? "" : stale.code, stale.revision);
    say(`Loaded the saved version: revision ${base}.`);
  });
  document.getElementById("keep-mine").addEventListener("click", () => {
    settle(null, stale.revision);
    save();
  });

  if (saved === null) schedule();
  editor.on("change", () => { if (!stale) { say("Not saved yet: changed since the last save."); schedule(); } });
  editor.on("blur", () => save());
  window.addEventListener("pagehide", () => save(true));
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "hidden") save(true); });
  // Back to a page kept by the browser: what it shows may be older than what was saved since.
  window.addEventListener("pageshow", event => { if (event.persisted) location.reload(); });

  // ------------------------------------------------------------ running the visible tests
  const result = document.getElementById("run-result");
  const runButton = document.getElementById("run");
  form.addEventListener("submit", async event => {
    if (event.submitter && event.submitter.id === "save") {  // saved here, with its receipt
      event.preventDefault();
      save();
      return;
    }
    if (event.submitter !== runButton) {  // a hand-in: the form goes as it is
      clearTimeout(timer);
      stale = stale || {};  // this page is being left: no save behind the form's back
      return;
    }
    event.preventDefault();
    editor.save();
    runButton.disabled = true;
    result.innerHTML = '<p role="status">Running the visible tests…</p>';
    try {
      const reply = await fetch(form.dataset.run, {method: "POST", body: new URLSearchParams(new FormData(form)),
                                                   credentials: "same-origin", headers: {"Accept": "text/html"}});
      const page = new DOMParser().parseFromString(await reply.text(), "text/html");
      const fresh = page.getElementById("run-result");
      const refused = page.getElementById("work-error");
      result.innerHTML = "";
      if (refused) {
        const note = document.createElement("p");
        note.className = "error";
        note.id = "run-heading";
        note.tabIndex = -1;
        note.textContent = refused.textContent;
        result.appendChild(note);
      } else if (fresh) {
        for (const child of Array.from(fresh.childNodes)) result.appendChild(document.importNode(child, true));
      }
    } catch (error) {
      result.innerHTML = '<p class="error" id="run-heading" tabindex="-1">The server cannot be reached now: try again.</p>';
    } finally {
      runButton.disabled = false;
    }
    const heading = document.getElementById("run-heading");
    if (heading) heading.focus();
  });
})();
