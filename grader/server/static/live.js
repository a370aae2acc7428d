// Live updates, only added: a page marks the parts that change with data-live="SECONDS"; this script fetches
// the same page again and swaps those parts in place. Without JavaScript the page is whole as served and a
// reload updates it; no page reloads itself (a timed reload is one a screen reader cannot finish, WCAG 2.2.1).
(function () {
  "use strict";
  const marked = () => Array.from(document.querySelectorAll("[data-live][id]"));
  if (!marked().length) return;

  const every = () => Math.max(1, Math.min(...marked().map(part => Number(part.dataset.live) || 10)));
  const schedule = () => setTimeout(refresh, every() * 1000);

  async function refresh() {
    let fresh;
    try {
      const reply = await fetch(location.href, {credentials: "same-origin", headers: {"Accept": "text/html"}});
      if (!reply.ok) return schedule();
      fresh = new DOMParser().parseFromString(await reply.text(), "text/html");
    } catch (error) {
      return schedule();  // the server restarting, or the network gone for a moment: try again later
    }
    for (const part of marked()) {
      const next = fresh.getElementById(part.id);
      // Never pull a part from under the reader's focus: it waits for the next round.
      if (!next || part.contains(document.activeElement)) continue;
      part.replaceWith(document.importNode(next, true));
    }
    if (fresh.title) document.title = fresh.title;
    if (marked().length) schedule();  // a part no longer marked (graded now) has stopped changing
  }

  schedule();
})();
