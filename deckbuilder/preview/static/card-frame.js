/* The first script of every card side on the preview page (page.js writes it into each
   side's document, before the card's own content). The side is shown in a frame with
   sandbox="allow-scripts": its origin is opaque, so the card's scripts can read nothing
   of the page around it, and the side's Content-Security-Policy forbids every request.
   What crosses between the two is this small protocol of messages, each carrying the
   number the page gave this document (``pv``), so that a message from a side the page has
   since replaced is ignored:

   to the page   {type: "height", value}   the document's height, whenever it changes
                 {type: "ready"}           the document has loaded (its scripts have run)
                 {type: "store", key, value}   sessionStorage.setItem (value null:
                 {type: "clear"}               removeItem) and clear, kept for this card
                 {type: "answer"}          showAnswer(), on a front: show the back
   from the page {type: "night", on}       night mode, set as Anki desktop and AnkiDroid
                                           set it: .nightMode .night_mode on the body,
                                           .night-mode on the root
                 {type: "width", width}    the frame is now this wide: measure again

   The page accepts a message only from one of its own frames, about that frame alone.

   sessionStorage throws in an opaque origin, and deckbuilder's note types carry the
   learner's pick from front to back in it (AnkiDroid loads the back as a new page): here
   it is a stand-in held in memory, seeded with what the card's sides stored before (the
   page writes it into ``data-pv``), each change told to the page. localStorage is a
   stand-in too, kept by this document alone. The WebRTC constructors are removed: CSP
   does not govern WebRTC in Chromium, and a peer connection reaches any address. */
(function () {
  "use strict";
  var up = window.parent;
  var post = up.postMessage.bind(up);
  var config = JSON.parse(document.currentScript.getAttribute("data-pv"));
  var number = config.pv;
  function tell(message) {
    message.pv = number;
    post(message, "*");
  }

  /* -- storage ---------------------------------------------------------------------- */
  function StandIn(seed, told) {
    var items = Object.create(null);
    var size = 0;  /* characters of keys and values, as browsers count their quota */
    Object.keys(seed).forEach(function (key) {
      if (typeof seed[key] === "string") {
        items[key] = seed[key];
        size += key.length + seed[key].length;
      }
    });
    function held(key) { return Object.prototype.hasOwnProperty.call(items, key); }
    this.getItem = function (key) {
      key = String(key);
      return held(key) ? items[key] : null;
    };
    this.setItem = function (key, value) {
      key = String(key);
      value = String(value);
      var grown = size + key.length + value.length - (held(key) ? key.length + items[key].length : 0);
      if (grown > config.limit) {
        throw new DOMException("The stand-in for storage is full.", "QuotaExceededError");
      }
      items[key] = value;
      size = grown;
      if (told) { tell({ type: "store", key: key, value: value }); }
    };
    this.removeItem = function (key) {
      key = String(key);
      if (!held(key)) { return; }
      size -= key.length + items[key].length;
      delete items[key];
      if (told) { tell({ type: "store", key: key, value: null }); }
    };
    this.clear = function () {
      items = Object.create(null);
      size = 0;
      if (told) { tell({ type: "clear" }); }
    };
    this.key = function (index) {
      var keys = Object.keys(items);
      return index >= 0 && index < keys.length ? keys[index] : null;
    };
    Object.defineProperty(this, "length", { get: function () { return Object.keys(items).length; } });
  }
  function standIn(name, store) {
    Object.defineProperty(window, name, { value: store, configurable: true, enumerable: true });
  }
  standIn("sessionStorage", new StandIn(config.store, true));
  standIn("localStorage", new StandIn({}, false));

  ["RTCPeerConnection", "webkitRTCPeerConnection"].forEach(function (name) {
    try { delete window[name]; } catch (e) { /* not configurable: nothing else to do */ }
  });

  /* -- height ----------------------------------------------------------------------- */
  var height = -1;
  function measure() {
    if (!window.innerWidth) { return; }  /* the frame's size has not reached it yet */
    /* The root element's own height (not scrollHeight, which never drops below the
       frame's current height): the card's content and the body's margins; 0 while the
       side has not been laid out (see settle). */
    var now = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (now > 0 && now !== height) {
      height = now;
      tell({ type: "height", value: now });
    }
  }
  /* Measure once this frame is ``width`` wide (any width: once it has one) and laid out,
     then call ``then``. Chromium may load a side before its size reaches it and before
     it lays the side out at all (its root is then 0 high; the body's margins make it
     more once laid out), and draws a frame of another origin that is out of sight only
     when it comes into view (no ResizeObserver, no resize event until then): so the side
     looks for itself, every 25 ms, for at most 2 s. */
  function settle(width, then) {
    var tries = 0;
    (function again() {
      var now = window.innerWidth;
      var wide = width === null ? now > 0 : Math.abs(now - width) <= 1;
      if ((wide && document.documentElement.getBoundingClientRect().height > 0) || tries >= 80) {
        measure();
        if (then) { then(); }
      } else {
        tries += 1;
        setTimeout(again, 25);
      }
    })();
  }
  if (window.ResizeObserver) { new ResizeObserver(measure).observe(document.documentElement); }
  document.addEventListener("load", measure, true);  /* an image (load does not bubble) */
  window.addEventListener("load", function () {
    settle(null, function () { tell({ type: "ready" }); });
  });

  /* -- night mode, a new width, and the answer ---------------------------------------- */
  window.addEventListener("message", function (event) {
    var data = event.data;
    if (event.source !== up || !data) { return; }
    if (data.type === "night" && typeof data.on === "boolean") {
      if (document.body) {
        document.body.classList.toggle("nightMode", data.on);
        document.body.classList.toggle("night_mode", data.on);
      }
      document.documentElement.classList.toggle("night-mode", data.on);
    } else if (data.type === "width" && typeof data.width === "number") {
      settle(data.width, null);
    }
  });
  if (config.side === "front") {
    /* AnkiDroid's card page has showAnswer(); templates call it to turn the card over
       (a typed answer on Enter). */
    window.showAnswer = function () { tell({ type: "answer" }); };
  }
})();
