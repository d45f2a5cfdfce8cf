(function () {
  "use strict";
  var night = false;
  function cardDocument(frame) {
    try { return frame.contentDocument; } catch (e) { return null; }
  }
  function fit(frame) {
    var doc = cardDocument(frame);
    if (!doc || !doc.documentElement) { return; }
    /* The root element's own height (not scrollHeight, which never drops below the
       frame's current height): the card's content and the body's margins. */
    var h = doc.documentElement.getBoundingClientRect().height;
    frame.style.height = Math.max(60, Math.ceil(h)) + "px";
  }
  function applyMode(frame) {
    var doc = cardDocument(frame);
    if (!doc || !doc.body) { return; }
    doc.body.classList.toggle("nightMode", night);
    doc.body.classList.toggle("night_mode", night);
    doc.documentElement.classList.toggle("night-mode", night);
  }
  function prepare(frame) {
    applyMode(frame);
    fit(frame);
    var doc = cardDocument(frame);
    if (doc && doc.body && window.ResizeObserver) {
      new ResizeObserver(function () { fit(frame); }).observe(doc.body);
    }
    Array.prototype.forEach.call(doc ? doc.images : [], function (img) {
      img.addEventListener("load", function () { fit(frame); });
    });
  }
  /* Each side's document is joined from its parts (see _Sides in deckbuilder/page.py). */
  var DATA = JSON.parse(document.getElementById("pv-sides").textContent);
  function sideDocument(frame) {
    return DATA.sides[Number(frame.getAttribute("data-side"))].map(function (part) {
      return typeof part === "number" ? DATA.shared[part] : part;
    }).join("");
  }
  function load(frame) { frame.srcdoc = sideDocument(frame); }
  var frames = Array.prototype.slice.call(document.querySelectorAll(".pv-card iframe"));
  var pending = frames.length;
  frames.forEach(function (frame) {
    var first = true;
    frame.addEventListener("load", function () {
      prepare(frame);
      if (first) {
        first = false;
        pending -= 1;
        if (pending === 0) { document.documentElement.setAttribute("data-cards-loaded", "true"); }
      }
    });
  });
  /* The back after the front, as in a review: a multiple-choice back finds the order
     the front stored. */
  document.querySelectorAll(".pv-card").forEach(function (card) {
    var front = card.querySelector(".front iframe");
    var back = card.querySelector(".back iframe");
    var started = false;
    front.addEventListener("load", function () {
      if (!started) { started = true; load(back); }
    });
    /* A card's front asks for its answer as it asks AnkiDroid's card page, with
       showAnswer() (a typed-answer card on Enter): here that is the Flip button. */
    front.addEventListener("load", function () {
      try { front.contentWindow.showAnswer = function () { load(back); }; } catch (e) { /* none */ }
    });
    load(front);
    var flip = card.querySelector("button.flip");
    var again = card.querySelector("button.again");
    if (flip) { flip.addEventListener("click", function () { load(back); }); }
    if (again) { again.addEventListener("click", function () { load(front); }); }
  });
  var nightButton = document.getElementById("night");
  nightButton.addEventListener("click", function () {
    night = !night;
    nightButton.setAttribute("aria-pressed", String(night));
    document.body.classList.toggle("night", night);
    frames.forEach(applyMode);
  });
  var phoneButton = document.getElementById("phone");
  phoneButton.addEventListener("click", function () {
    var on = !document.body.classList.contains("phone");
    phoneButton.setAttribute("aria-pressed", String(on));
    document.body.classList.toggle("phone", on);
    frames.forEach(fit);
  });
  window.addEventListener("resize", function () { frames.forEach(fit); });
})();
