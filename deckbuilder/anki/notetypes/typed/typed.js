/* deckbuilder typed answer, inlined into both sides of the template.

   Where it runs (as mcq.js): Anki desktop keeps one page and re-runs each side's scripts,
   so everything lives in this function, declared with var; AnkiDroid loads the back as a
   new document, so what was typed crosses over in sessionStorage only. Without storage
   the back shows the accepted answers and "not answered".

   Only the back holds the accepted answers: the front's HTML is what Anki's browser
   shows as the card's question, and what a learner could read in the page source.

   Judging: the typed text and each accepted text are compared after Unicode NFC, with
   runs of white space as one space and the ends trimmed, and (unless the note matches
   case) upper and lower case alike. A number answer takes the typed text as a number
   (NFKC first, so full-width digits count; "-" or U+2212 for minus; a comma is read as
   the decimal mark when there is no point, "3,14"; no thousands separators) and accepts
   it inside the answer's closed range, widened by a billionth of its size so that
   decimal bounds written in the card file are not lost to binary rounding. */
(function () {
  "use strict";
  var script = document.currentScript;
  var root = script && script.closest ? script.closest(".db-typed") : null;
  if (!root) { /* eval'd by a client without currentScript: the side just inserted */
    var all = document.querySelectorAll(".db-typed");
    root = all[all.length - 1];
  }
  if (!root || root.getAttribute("data-db-ready")) { return; }
  root.setAttribute("data-db-ready", "true");

  var side = root.getAttribute("data-db-side");
  var question = root.querySelector(".db-question");
  var accepts = Array.prototype.slice.call(root.querySelectorAll(".db-accept"));
  var matchCase = /^\s*(yes|true|1|on)\s*$/i.test(root.getAttribute("data-db-case") || "");

  var LABELS = {
    en: { placeholder: "Type your answer", typed: "Your answer", accepted: "Accepted answers",
          correct: "Correct", incorrect: "Incorrect", unanswered: "Not answered",
          explanation: "Explanation", nothing: "(nothing typed)" },
    ko: { placeholder: "답을 입력하세요", typed: "내 답", accepted: "정답",
          correct: "정답입니다", incorrect: "오답입니다", unanswered: "답하지 않음",
          explanation: "해설", nothing: "(입력 없음)" }
  };
  /* The labels' language, found as mcq.js finds it: data-db-lang in the fields, else
     Hangul in the question means Korean. */
  var marked = root.querySelector("[data-db-lang]");
  var lang = ((marked ? marked.getAttribute("data-db-lang") : "") || "").trim().toLowerCase().split("-")[0];
  if (lang && !Object.prototype.hasOwnProperty.call(LABELS, lang)) {
    lang = "en";
  } else if (!lang) {
    lang = /[\u1100-\u11ff\u3131-\u318e\uac00-\ud7a3]/.test(question ? question.textContent : "") ? "ko" : "en";
  }
  var L = LABELS[lang];
  function say(el, text) {
    el.textContent = text;
    el.setAttribute("lang", lang);
    return el;
  }

  function hash(s) { /* FNV-1a */
    var h = 0x811c9dc5;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return h.toString(36);
  }
  /* Made from what both sides show, the question, before the DOM is touched: the front
     and the back of the same card find the same entry. Another card with the same
     question shares it, which does no harm: a front starts its entry afresh. */
  var key = "deckbuilder-typed:" + hash(question ? question.innerHTML : "");
  function load() {
    try { var raw = window.sessionStorage.getItem(key); return raw ? JSON.parse(raw) : null; }
    catch (e) { return null; }
  }
  function save(typed) {
    try { window.sessionStorage.setItem(key, JSON.stringify({ typed: typed })); } catch (e) { /* none */ }
  }

  function normal(text) {
    var s = String(text);
    if (s.normalize) { s = s.normalize("NFC"); }
    s = s.replace(/\s+/g, " ").trim();
    /* Upper then lower: folds what lower case alone keeps apart (ß and SS). */
    return matchCase ? s : s.toUpperCase().toLowerCase();
  }
  function number(text) {
    var s = String(text);
    if (s.normalize) { s = s.normalize("NFKC"); }
    s = s.trim().replace(/\u2212/g, "-");
    if (s.indexOf(",") >= 0) {
      if (s.indexOf(".") >= 0 || s.indexOf(",") !== s.lastIndexOf(",")) { return NaN; }
      s = s.replace(",", ".");
    }
    return /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(s) ? Number(s) : NaN;
  }
  function judge(typed) {
    var text = normal(typed);
    if (!text) { return "unanswered"; }
    var value = number(typed);
    for (var i = 0; i < accepts.length; i++) {
      var el = accepts[i];
      if (el.hasAttribute("data-min")) {
        var low = Number(el.getAttribute("data-min"));
        var high = Number(el.getAttribute("data-max"));
        var slack = 1e-9 * Math.max(1, Math.abs(low), Math.abs(high));
        if (value >= low - slack && value <= high + slack) { return "correct"; }
      } else if (normal(el.textContent) === text) {
        return "correct";
      }
    }
    return "incorrect";
  }

  var explanation = root.querySelector("[data-db-label=explanation]");
  if (explanation) { say(explanation, L.explanation); }

  if (side === "front") {
    var input = root.querySelector("input[data-typed]");
    if (!input) { return; }
    save("");
    input.setAttribute("placeholder", L.placeholder);
    input.setAttribute("aria-label", L.placeholder);
    input.addEventListener("input", function () { save(input.value); });
    input.addEventListener("keydown", function (e) {
      if (e.key !== "Enter" || e.isComposing) { return; }
      e.preventDefault();
      e.stopPropagation();
      save(input.value);
      /* Show the answer as the client's own type-in box does: Anki desktop's reviewer
         sends "ans" over its bridge, AnkiDroid's card page has showAnswer(). */
      if (typeof window.bridgeCommand === "function") { window.bridgeCommand("ans"); }
      else if (typeof window.pycmd === "function") { window.pycmd("ans"); }
      else if (typeof window.showAnswer === "function") { window.showAnswer(); }
    });
    /* On a phone, focusing would pop the keyboard up over the card before it is read. */
    if (!document.documentElement.classList.contains("mobile")) {
      try { input.focus({ preventScroll: true }); } catch (e) { /* not focusable here */ }
    }
  } else {
    var saved = load();
    var typed = saved && typeof saved.typed === "string" ? saved.typed : "";
    var verdict = judge(typed);
    var given = root.querySelector("[data-typed-text]");
    if (given) {
      if (normal(typed)) {
        given.textContent = typed;
      } else {
        say(given, L.nothing).classList.add("db-typed-nothing");
      }
      given.setAttribute("data-verdict-of", verdict);
    }
    var typedLabel = root.querySelector("[data-db-label=typed]");
    if (typedLabel) { say(typedLabel, L.typed); }
    var acceptedLabel = root.querySelector("[data-db-label=accepted]");
    if (acceptedLabel) { say(acceptedLabel, L.accepted); }
    var v = root.querySelector("[data-verdict]");
    if (v) {
      v.setAttribute("data-verdict", verdict);
      v.setAttribute("role", "status");
      say(v, L[verdict]);
    }
  }
})();
