/* A live preview page (deckbuilder watch --serve, deckbuilder/app/serving.py): asks the
   server for the next build of this deck (a long poll of /_changes), then draws the new
   page in place with page.js's pvUpdate: no reload, the reader's place kept. A build
   that failed leaves the page as it was and shows its problems in a banner. */
(function () {
  "use strict";
  var key = decodeURIComponent(window.location.pathname.replace(/^\/deck\/|\.html$/g, ""));
  var seen = Number(document.querySelector('meta[name="deckbuilder-live"]').content);
  var banner = document.createElement("div");
  banner.className = "live-banner";
  banner.setAttribute("role", "alert");
  banner.hidden = true;
  document.body.insertBefore(banner, document.body.firstChild);

  function tell(title, lines) {
    banner.textContent = "";
    banner.hidden = !title;
    if (!title) { return; }
    var heading = document.createElement("strong");
    heading.textContent = title;
    banner.appendChild(heading);
    if (lines.length) {
      var list = document.createElement("ul");
      lines.forEach(function (line) {
        var item = document.createElement("li");
        item.textContent = line;
        list.appendChild(item);
      });
      banner.appendChild(list);
    }
  }
  function ok(response) {
    if (!response.ok) { throw new Error(response.status + " " + response.statusText); }
    return response;
  }
  /* The deck's new page, read and drawn; ``changed``: its notes that changed, or null
     when a build was missed (every card shown is drawn again). */
  function redraw(changed) {
    return fetch(window.location.pathname, { cache: "no-store" }).then(ok)
      .then(function (response) { return response.text(); })
      .then(function (text) {
        window.pvUpdate(new DOMParser().parseFromString(text, "text/html"), changed);
      });
  }
  function ask() {
    fetch("/_changes?after=" + seen, { cache: "no-store" }).then(ok)
      .then(function (response) { return response.json(); })
      .then(function (state) {
        var deck = state.decks[key];
        var missed = deck && deck.since > seen;
        seen = state.version;
        if (!deck) { return null; }
        if (deck.problems.length) {
          tell("The last save has problems; this page shows the last good build.", deck.problems);
          return null;
        }
        tell("", []);
        return redraw(missed ? null : deck.changed);
      })
      .then(ask, function () {
        tell("The watch cannot be reached (stopped?); this page shows its last build.", []);
        setTimeout(ask, 2000);
      });
  }
  ask();
})();
