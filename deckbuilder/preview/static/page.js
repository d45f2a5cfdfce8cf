/* The preview page's script: shows the cards a page at a time, finds them, and switches
   night mode and phone width. The cards are data (#pv-data, written by
   deckbuilder/preview/page.py): notes [id, kind, note type, tags, lint warnings, search
   text] and cards [note, ordinal, label, front parts, back parts], each side's parts
   text, a number into the shared strings, or -1 for the card's front.

   Each side is a document of its own in a frame with sandbox="allow-scripts" (an opaque
   origin: the card's scripts cannot reach this page, nor this page into the card) and its
   own Content-Security-Policy. The page and a side talk only through the messages that
   card-frame.js, the side's first script, describes. */
(function () {
  "use strict";
  var FRONT = -1;
  var MIN_HEIGHT = 60;  /* CSS pixels: a side's frame, at least and at most */
  var MAX_HEIGHT = 30000;
  var STORE_LIMIT = 100000;  /* characters a card may keep in its stand-in sessionStorage */
  /* ms after its load a side that never says it is ready counts as ready (a side waits
     up to 2 s for its size, card-frame.js) */
  var READY_WAIT = 3000;
  var DATA = JSON.parse(document.getElementById("pv-data").textContent);
  var notes = DATA.notes;
  var cards = DATA.cards;
  var size = DATA.pageSize;
  var list = document.getElementById("card-list");
  var found = document.getElementById("found");
  var pagers = Array.prototype.slice.call(document.querySelectorAll("nav.pager"));
  var findText = document.getElementById("find-text");
  var findType = document.getElementById("find-type");
  var findTag = document.getElementById("find-tag");
  var findLint = document.getElementById("find-lint");
  var gotoId = document.getElementById("goto-id");
  var nightButton = document.getElementById("night");
  var phoneButton = document.getElementById("phone");
  var searchText = notes.map(function (note) { return note[5].toLowerCase(); });
  var everyCard = cards.map(function (card, i) { return i; });
  var matching = everyCard;
  var page = 0;
  var sides = [];  /* the sides shown: see sideFrame */
  var written = 0;  /* side documents written so far: each gets the next number */
  var night = document.body.classList.contains("night");  /* night.js: the system's */
  var chosen = false;  /* the reader pressed Night mode: the system no longer decides */

  /* -- a side as the document a client shows -------------------------------------- */
  function content(card, side) {
    return card[side].map(function (part) {
      if (part === FRONT) { return content(card, 3); }
      return typeof part === "number" ? DATA.shared[part] : part;
    }).join("");
  }
  function attribute(text) {
    return text.replace(/&/g, "&amp;").replace(/"/g, "&quot;");
  }
  /* ``settings``: what card-frame.js reads from its data-pv attribute. */
  function sideDocument(card, side, settings) {
    var css = DATA.shared[DATA.types[notes[card[0]][2]][1]];
    return "<!doctype html>\n<html lang=\"und\"" + (night ? " class=\"night-mode\"" : "") + ">\n" +
      "<head>\n<meta charset=\"utf-8\">\n" +
      "<meta http-equiv=\"Content-Security-Policy\" content=\"" + DATA.frameCsp + "\">\n" +
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n" +
      "<script data-pv=\"" + attribute(JSON.stringify(settings)) + "\">\n" + DATA.shim + "<\/script>\n" +
      "<style>\n" + DATA.frame + "</style>\n<style>\n" + css + "\n</style>\n</head>\n" +
      "<body class=\"card card" + (card[1] + 1) + (night ? " nightMode night_mode" : "") + "\">\n" +
      "<div id=\"qa\">\n" + content(card, side) + "\n</div>\n</body>\n</html>\n";
  }

  /* -- frames ---------------------------------------------------------------------- */
  /* The card jumped to stays in view while the cards above it grow to their sides'
     heights, until the reader scrolls. */
  var pinned = null;
  ["wheel", "touchstart", "keydown", "mousedown"].forEach(function (name) {
    window.addEventListener(name, function () { pinned = null; }, { passive: true });
  });
  function fit(side, height) {
    side.frame.style.height = Math.max(MIN_HEIGHT, Math.min(MAX_HEIGHT, Math.ceil(height))) + "px";
    if (pinned && pinned.isConnected) { pinned.scrollIntoView({ block: "start" }); }
  }
  function tell(side, message) {
    var target = side.frame.contentWindow;
    if (target) { target.postMessage(message, "*"); }
  }
  /* Each side measures itself again once its new width reaches it (one out of sight
     would only when it came into view). */
  function resized() {
    sides.forEach(function (side) { tell(side, { type: "width", width: side.frame.clientWidth }); });
  }
  function ready(side) {
    if (side.ready) { return; }
    side.ready = true;
    clearTimeout(side.timer);
    side.frame.setAttribute("data-loaded", "true");
    tell(side, { type: "night", on: night });  /* switched while the side was loading */
    if (side.then) { side.then(); }
  }
  /* A card's sessionStorage as its sides changed it: kept while the card is shown, and
     written into each side's document. Only text, and no more than STORE_LIMIT. */
  function Store() { this.clear(); }
  Store.prototype.clear = function () {
    this.items = Object.create(null);
    this.size = 0;
  };
  Store.prototype.change = function (key, value) {
    if (typeof key !== "string" || (typeof value !== "string" && value !== null)) { return; }
    var held = Object.prototype.hasOwnProperty.call(this.items, key);
    var size = this.size - (held ? key.length + this.items[key].length : 0);
    if (value === null) {
      delete this.items[key];
    } else if (size + key.length + value.length <= STORE_LIMIT) {
      this.items[key] = value;
      size += key.length + value.length;
    } else {
      return;
    }
    this.size = size;
  };
  /* A side's frame, made when the side is shown: each frame is a document of its own,
     and making twenty at once held the page up for a long moment. ``side.then`` is
     called when a document written into it is ready, ``side.answer`` when a front asks
     for its answer. */
  function sideFrame(section, which, card, store) {
    var frame = document.createElement("iframe");
    frame.setAttribute("sandbox", "allow-scripts");
    frame.title = section.getAttribute("data-note") + ": " + which;
    section.querySelector(".side." + which).appendChild(frame);
    var side = {
      frame: frame, which: which, card: card, store: store,
      number: 0, ready: false, timer: null, then: null, answer: null
    };
    frame.addEventListener("load", function () {
      var number = side.number;
      clearTimeout(side.timer);
      side.timer = setTimeout(function () { if (side.number === number) { ready(side); } }, READY_WAIT);
    });
    sides.push(side);
    return side;
  }
  function write(side) {
    written += 1;
    side.number = written;
    side.ready = false;
    clearTimeout(side.timer);
    side.frame.removeAttribute("data-loaded");
    side.frame.srcdoc = sideDocument(side.card, side.which === "front" ? 3 : 4, {
      pv: written, side: side.which, store: side.store.items, limit: STORE_LIMIT
    });
  }
  /* The messages of the sides (see card-frame.js): each from a frame of this page, about
     that frame's current document; anything else is ignored. */
  window.addEventListener("message", function (event) {
    var data = event.data;
    if (event.source === null || !data || typeof data !== "object") { return; }
    var side = null;
    for (var i = 0; i < sides.length && side === null; i += 1) {
      if (sides[i].frame.contentWindow === event.source) { side = sides[i]; }
    }
    if (side === null || data.pv !== side.number) { return; }
    if (data.type === "height" && typeof data.value === "number" && isFinite(data.value)) {
      fit(side, data.value);
    } else if (data.type === "ready") {
      ready(side);
    } else if (data.type === "store") {
      side.store.change(data.key, data.value);
    } else if (data.type === "clear") {
      side.store.clear();
    } else if (data.type === "answer" && side.which === "front" && side.answer) {
      side.answer();
    }
  });

  /* -- a card ---------------------------------------------------------------------- */
  function element(tag, className, text) {
    var e = document.createElement(tag);
    if (className) { e.className = className; }
    if (text !== undefined) { e.textContent = text; }
    return e;
  }
  function button(className, text, title) {
    var b = element("button", className, text);
    b.type = "button";
    b.title = title;
    return b;
  }
  function side(card, which, label) {
    var figure = element("figure", "side " + which);
    figure.appendChild(element("figcaption", "", label));
    return figure;
  }
  function cardElement(index) {
    var card = cards[index];
    var note = notes[card[0]];
    var section = element("section", "pv-card");
    section.id = "card-" + note[0] + "-" + (card[1] + 1);
    section.setAttribute("data-note", note[0]);
    section.setAttribute("data-kind", note[1]);
    section.setAttribute("data-ord", String(card[1]));
    section.tabIndex = -1;
    var header = element("header");
    header.appendChild(element("span", "note-id", note[0]));
    header.appendChild(element("span", "kind", DATA.kinds[note[1]]));
    header.appendChild(element("span", "which", card[2]));
    note[3].forEach(function (tag) { header.appendChild(element("span", "tag", DATA.tags[tag])); });
    var buttons = element("span", "buttons");
    if (DATA.played.indexOf(note[1]) >= 0) {
      buttons.appendChild(button("flip", "Flip", "Show the answer to your pick"));
      buttons.appendChild(button("again", "Again", "Start this card again"));
    }
    header.appendChild(buttons);
    section.appendChild(header);
    if (note[4].length) {
      var lint = element("ul", "lint");
      lint.setAttribute("aria-label", "Lint warnings");
      note[4].forEach(function (warning) {
        var item = element("li");
        item.appendChild(element("code", "", DATA.codes[warning[0]]));
        item.appendChild(document.createTextNode(" " + warning[1]));
        lint.appendChild(item);
      });
      section.appendChild(lint);
    }
    var sides = element("div", "sides");
    sides.appendChild(side(card, "front", "Front"));
    sides.appendChild(side(card, "back", "Back"));
    section.appendChild(sides);
    return section;
  }
  /* The back after the front, as in a review: a multiple-choice back finds the order the
     front stored (in the card's Store). A card's front asks for its answer as it asks
     AnkiDroid's card page, with showAnswer() (a typed-answer card on Enter): here that is
     the Flip button. ``shown`` is called once the front is ready, ``loaded`` once the back
     is. */
  function play(section, index, shown, loaded) {
    var card = cards[index];
    var store = new Store();
    var front = sideFrame(section, "front", card, store);
    var back = null;
    function showBack() {
      if (back === null) {
        back = sideFrame(section, "back", card, store);
        back.then = function () { back.then = null; loaded(); };
      }
      write(back);
    }
    front.then = function () { front.then = null; showBack(); shown(); };
    front.answer = showBack;
    var flip = section.querySelector("button.flip");
    var again = section.querySelector("button.again");
    if (flip) { flip.addEventListener("click", showBack); }
    if (again) { again.addEventListener("click", function () { store.clear(); write(front); }); }
    write(front);
  }

  /* -- pages ----------------------------------------------------------------------- */
  function pages() { return Math.max(1, Math.ceil(matching.length / size)); }
  function number(n) { return n.toLocaleString("en"); }
  function status() {
    if (!matching.length) { return "No card matches."; }
    var first = page * size + 1;
    var last = Math.min(matching.length, first + size - 1);
    var text = "Cards " + number(first) + "\u2013" + number(last) + " of " + number(matching.length);
    return matching.length < cards.length ? text + " matching (" + number(cards.length) + " in all)" : text;
  }
  function pagerButton(text, target, label) {
    var b = button("", text, label);
    b.setAttribute("aria-label", label);
    b.disabled = target === page || target < 0 || target >= pages();
    b.addEventListener("click", function () { show(target); });
    return b;
  }
  function drawPager(nav) {
    nav.textContent = "";
    var last = pages() - 1;
    nav.appendChild(pagerButton("\u00ab", 0, "First page"));
    nav.appendChild(pagerButton("\u2039 Previous", page - 1, "Previous page"));
    var label = element("label", "page-of");
    label.appendChild(document.createTextNode("Page "));
    var input = element("input");
    input.type = "number";
    input.min = "1";
    input.max = String(last + 1);
    input.value = String(page + 1);
    input.setAttribute("aria-label", "Page");
    /* The box's number as the box reads it ("1e2" is 100), within the pages; no number
       ("abc", which the box holds as empty) stays on the page. Either way the box then
       says the page shown, never the text typed under another page's cards. */
    input.addEventListener("change", function () {
      var wanted = Math.floor(input.valueAsNumber) - 1;
      wanted = isFinite(wanted) ? Math.max(0, Math.min(wanted, last)) : page;
      if (wanted !== page) { show(wanted); } else { input.value = String(page + 1); }
    });
    label.appendChild(input);
    label.appendChild(document.createTextNode(" of " + number(last + 1)));
    nav.appendChild(label);
    nav.appendChild(pagerButton("Next \u203a", page + 1, "Next page"));
    nav.appendChild(pagerButton("\u00bb", last, "Last page"));
  }
  /* Both pagers drawn anew. The control that had the keyboard's focus takes it back (the
     page box, when the control is disabled now: Next on the last page); it fell to the
     page's start, and a keyboard reader had to Tab back through the page to go on. */
  function drawPagers() {
    var focused = document.activeElement;
    var at = focused && focused.closest ? pagers.indexOf(focused.closest("nav.pager")) : -1;
    var label = at >= 0 ? focused.getAttribute("aria-label") : null;
    pagers.forEach(drawPager);
    if (at < 0) { return; }
    var again = pagers[at].querySelector('[aria-label="' + label + '"]');
    if (!again || again.disabled) { again = pagers[at].querySelector("input"); }
    again.focus({ preventScroll: true });
  }
  /* Show page ``wanted`` of the matching cards. Their sides load in order, a card's
     front shortly after the one before it, so the first card shows at once and the
     page stays responsive; the root says data-cards-loaded when every side has. */
  function show(wanted) {
    page = Math.max(0, Math.min(wanted, pages() - 1));
    list.textContent = "";
    sides = [];
    var root = document.documentElement;
    var shown = matching.slice(page * size, (page + 1) * size);
    var sections = shown.map(cardElement);
    sections.forEach(function (section) { list.appendChild(section); });
    var pending = sections.length;
    var next = 0;
    root.setAttribute("data-cards-loaded", pending ? "false" : "true");
    function start() {
      if (next >= sections.length || !sections[next].isConnected) { return; }
      var i = next;
      next += 1;
      play(sections[i], shown[i], start, function () {
        pending -= 1;
        if (pending === 0 && sections[i].isConnected) {
          root.setAttribute("data-cards-loaded", "true");
        }
      });
    }
    /* Two cards at a time, from the next task on: paging on in a hurry makes no frames. */
    setTimeout(function () { start(); start(); }, 0);
    found.textContent = status();
    drawPagers();
    return sections;
  }

  /* -- finding --------------------------------------------------------------------- */
  function filtered() {
    var words = findText.value.toLowerCase().split(/\s+/).filter(Boolean);
    var type = findType.value;
    var tag = DATA.tags.indexOf(findTag.value);
    var lint = findLint.value;
    var code = DATA.codes.indexOf(lint);
    if (!words.length && !type && tag < 0 && !lint) { return everyCard; }
    return everyCard.filter(function (i) {
      var note = notes[cards[i][0]];
      if (type && DATA.types[note[2]][0] !== type) { return false; }
      if (tag >= 0 && note[3].indexOf(tag) < 0) { return false; }
      if (lint === "*" && !note[4].length) { return false; }
      if (code >= 0 && !note[4].some(function (w) { return w[0] === code; })) { return false; }
      var text = searchText[cards[i][0]];
      return words.every(function (word) { return text.indexOf(word) >= 0; });
    });
  }
  function refilter() {
    matching = filtered();
    show(0);
  }
  var typing = null;
  findText.addEventListener("input", function () {
    clearTimeout(typing);
    typing = setTimeout(refilter, 150);
  });
  [findType, findTag, findLint].forEach(function (select) {
    select.addEventListener("change", refilter);
  });
  /* Jump to a note: its first card, on the page that holds it (every card, when the
     filters hide it). Whether the note was found. */
  function goTo(id) {
    var target = -1;
    for (var i = 0; i < cards.length && target < 0; i += 1) {
      if (notes[cards[i][0]][0] === id) { target = i; }
    }
    if (target < 0) {
      found.textContent = "No note has the id \u201c" + id + "\u201d.";
      return false;
    }
    var at = matching.indexOf(target);
    if (at < 0) {
      findText.value = "";
      findType.value = findTag.value = findLint.value = "";
      matching = everyCard;
      at = target;
    }
    var sections = show(Math.floor(at / size));
    var section = sections[at % size];
    section.classList.add("target");
    section.scrollIntoView({ block: "start" });
    section.focus({ preventScroll: true });
    pinned = section;
    return true;
  }
  document.getElementById("finder").addEventListener("submit", function (event) {
    event.preventDefault();
    /* Note ids are lower case: one typed in capitals ("B4997") is still found. */
    var id = gotoId.value.trim().toLowerCase();
    if (id) { goTo(id); }
  });
  function fromAddress() {
    var hash = window.location.hash.slice(1);
    /* An address typed by hand may hold a "%" that starts no escape ("#note-100%"):
       decoding it throws, which stopped the page before it showed a card. */
    try { hash = decodeURIComponent(hash); } catch (error) { /* kept as written */ }
    return hash.indexOf("note-") === 0 && goTo(hash.slice(5));
  }
  window.addEventListener("hashchange", fromAddress);

  /* -- tables that scroll sideways ------------------------------------------------- */
  var scrolling = [];
  function cue(box) {
    var more = box.scrollLeft + box.clientWidth < box.scrollWidth - 1;
    box.parentElement.setAttribute("data-more", more ? "true" : "false");
    box.setAttribute("data-scrolls", box.scrollWidth > box.clientWidth + 1 ? "true" : "false");
  }
  function watchScrolling() {
    scrolling = Array.prototype.slice.call(document.querySelectorAll(".scroll"));
    scrolling.forEach(function (box) {
      box.addEventListener("scroll", function () { cue(box); }, { passive: true });
      cue(box);
    });
    document.querySelectorAll("details").forEach(function (details) {
      details.addEventListener("toggle", function () { scrolling.forEach(cue); });
    });
  }
  watchScrolling();

  /* -- night mode and phone width --------------------------------------------------- */
  function setNight(on) {
    night = on;
    nightButton.setAttribute("aria-pressed", String(night));
    document.body.classList.toggle("night", night);
    sides.forEach(function (side) { tell(side, { type: "night", on: night }); });
  }
  nightButton.addEventListener("click", function () {
    chosen = true;
    setNight(!night);
  });
  var scheme = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  if (scheme && scheme.addEventListener) {
    scheme.addEventListener("change", function (event) { if (!chosen) { setNight(event.matches); } });
  }
  setNight(night);
  phoneButton.addEventListener("click", function () {
    var on = !document.body.classList.contains("phone");
    phoneButton.setAttribute("aria-pressed", String(on));
    document.body.classList.toggle("phone", on);
    resized();
    scrolling.forEach(cue);
  });
  window.addEventListener("resize", function () {
    resized();
    scrolling.forEach(cue);
  });

  /* -- a live page (watch --serve: live.js hands over each new build) -------------- */
  /* The new build ``doc`` drawn in place: its overview, forecast and data; the cards of
     notes ``changed`` (null: every card shown) redrawn where they stand, the reader's
     place kept, and the first changed card brought into view. */
  function cardKey(index) { return "card-" + notes[cards[index][0]][0] + "-" + (cards[index][1] + 1); }
  function replaceFrom(doc, selector) {
    var old = document.querySelector(selector);
    var fresh = doc.querySelector(selector);
    if (old && fresh) { old.replaceWith(document.importNode(fresh, true)); }
  }
  function redrawCard(old, index) {
    var fresh = cardElement(index);
    fresh.style.minHeight = old.offsetHeight + "px";  /* no jump while its frames load */
    old.replaceWith(fresh);
    play(fresh, index, function () {}, function () { fresh.style.minHeight = ""; });
    return fresh;
  }
  window.pvUpdate = function (doc, changed) {
    ["h1", "header.top .meta", "section.overview", "#removed-notes", "section.forecast-section"]
      .forEach(function (selector) { replaceFrom(doc, selector); });
    var description = document.querySelector("header.top .description");
    var described = doc.querySelector("header.top .description");
    if (description) { description.remove(); }
    if (described) { document.querySelector("header.top .meta").after(document.importNode(described, true)); }
    [findType, findTag, findLint].forEach(function (select) {
      var chosenValue = select.value;
      var fresh = doc.getElementById(select.id);
      select.innerHTML = fresh.innerHTML;
      select.disabled = fresh.disabled;
      select.value = chosenValue;
      if (select.value !== chosenValue) { select.value = ""; }
    });
    watchScrolling();
    DATA = JSON.parse(doc.getElementById("pv-data").textContent);
    notes = DATA.notes;
    cards = DATA.cards;
    searchText = notes.map(function (note) { return note[5].toLowerCase(); });
    everyCard = cards.map(function (card, i) { return i; });
    matching = filtered();
    sides = sides.filter(function (side) { return side.frame.isConnected; });
    var wanted = {};  /* the changed notes' ids (a whole deck's, after a big edit) */
    (changed || []).forEach(function (id) { wanted["#" + id] = true; });
    function isChanged(id) { return !changed || wanted["#" + id] === true; }
    var first = -1;
    for (var i = 0; changed && i < cards.length && first < 0; i += 1) {
      if (isChanged(notes[cards[i][0]][0])) { first = i; }
    }
    var shown = matching.slice(page * size, (page + 1) * size);
    var sections = Array.prototype.slice.call(list.children);
    var same = sections.length === shown.length && shown.every(function (index, at) {
      return sections[at].id === cardKey(index);
    });
    if (same) {
      sections = sections.map(function (section, at) {
        return isChanged(section.getAttribute("data-note")) ? redrawCard(section, shown[at]) : section;
      });
      found.textContent = status();
      drawPagers();
    } else {
      var y = window.scrollY;
      sections = show(page);
      window.scrollTo(0, y);
    }
    if (first < 0) { return; }
    var at = shown.indexOf(first);
    if (at < 0) { goTo(notes[cards[first][0]][0]); return; }
    var target = sections[at];
    var box = target.getBoundingClientRect();
    if (box.bottom < 40 || box.top > window.innerHeight - 40) { target.scrollIntoView({ block: "start" }); }
    list.querySelectorAll(".pv-card.target").forEach(function (s) { s.classList.remove("target"); });
    target.classList.add("target");
  };

  if (!fromAddress()) {
    var said = found.textContent;  /* an address naming no note says so */
    show(0);
    if (said) { found.textContent = said + " " + found.textContent; }
  }
})();
