/* deckbuilder typed answer, inlined into both sides of the template.

   The learner types into Anki's own type-answer box, {{type:Answers}}, the one box every
   client gives a keyboard: Anki desktop puts an <input id="typeans"> in the card;
   AnkiDroid shows its native answer box under the card (or, with "Type answer into the
   card" on, an <input id="typeans"> in it), because a plain <input> of the card's own gets
   no keyboard while reviewing there. On the back each client replaces {{type:Answers}}
   with Anki's comparison of what was typed with the field's text, a <code id="typeans">
   made by the backend's compare_answer: nothing typed, the field's text alone; typed
   equal to it, one span.typeGood; otherwise the typed line (span.typeGood and
   span.typeBad hold what was typed, span.typeMissed a dash per missing character), a
   <br>, span#typearrow, a <br>, and the expected line.

   That comparison is made against all the accepted answers run together, so the back
   hides it and judges for itself. What was typed comes from, in order:
   1. the card's own input, where the front had one (desktop, AnkiDroid's in-card box, the
      preview page), read here as it changes and kept in sessionStorage: the client's
      hand-over may alter it (AnkiDroid's in-card box sends it through a URL, which turns
      "+" into a space);
   2. the typed line of the client's comparison (AnkiDroid's native box; any client when
      storage is refused);
   3. nothing: the back shows the client's own comparison, if any, and the accepted
      answers, with the verdict "unjudged", never a guess.

   Where it runs (as mcq.js): Anki desktop keeps one page and re-runs each side's scripts,
   so everything lives in this function, declared with var; AnkiDroid loads the back as a
   new document, so only sessionStorage crosses over. The script never looks up #qa or
   #content and loads nothing.

   Only the back holds the accepted answers: the front's HTML is what Anki's browser
   shows as the card's question, and what a learner could read in the page source.

   Judging: the typed text and each accepted text are compared after Unicode NFC, with
   runs of white space as one space and the ends trimmed, and (unless the note matches
   case) upper and lower case alike. A number answer takes the typed text as a number
   (NFKC first, so full-width digits count; "-" or U+2212 for minus; a comma is read as
   the decimal mark when there is no point, "3,14"; no thousands separators) and accepts
   it inside the answer's closed range, widened by a billionth of its size so that
   decimal bounds written in the card file are not lost to binary rounding. A number
   answer with a unit (data-unit) takes the number with that unit after it too ("500 mg",
   "500mg"); one without says, when the learner typed a number in its range with a word
   after it, that only the number counts. */
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
          unjudged: "Compare your answer with the accepted answers",
          explanation: "Explanation", nothing: "(nothing typed)",
          numberOnly: "Only the number counts here: type it without a unit" },
    ko: { placeholder: "답을 입력하세요", typed: "내 답", accepted: "정답",
          correct: "정답입니다", incorrect: "오답입니다", unanswered: "답하지 않음",
          unjudged: "내 답을 정답과 비교해 보세요",
          explanation: "해설", nothing: "(입력 없음)",
          numberOnly: "이 문제는 숫자만 맞힙니다: 단위 없이 입력하세요" }
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
  /* typed: the text in the card's own input, or null when the front had none (AnkiDroid's
     native box): the back then reads the client's comparison. */
  function save(typed) {
    try { window.sessionStorage.setItem(key, JSON.stringify({ typed: typed })); } catch (e) { /* none */ }
  }

  /* The client's type-answer element in this side, found inside this card only. */
  function typeans() {
    var found = root.querySelector("#typeans");
    return found && found.closest(".db-typed") === root ? found : null;
  }

  /* The backend puts a no-break space before a span that starts with a combining mark
     (rslib typeanswer.rs, isolate_leading_mark); it is not part of what was typed. */
  var leadingMark;
  try { leadingMark = new RegExp("^\u00a0(?=\\p{M})", "u"); }
  catch (e) { leadingMark = /^\u00a0(?=[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f])/; }
  function spanText(el) { return el.textContent.replace(leadingMark, ""); }
  function hasClass(el, name) { return el.nodeType === 1 && (" " + el.className + " ").indexOf(" " + name + " ") >= 0; }

  /* What the learner typed, read back from the client's comparison; null when there is
     none, or when it is not in the shape described at the top (nothing is guessed). */
  function fromComparison() {
    var code = typeans();
    if (!code || code.tagName === "INPUT") { return null; }
    var arrow = code.querySelector("#typearrow");
    var node, parts = [];
    if (!arrow) {
      /* One line: the expected text alone (nothing typed; old AnkiDroid wraps it in
         span.typeMissed), or one span.typeGood when what was typed equals it (old
         AnkiDroid adds span#typecheckmark). */
      var good = [];
      for (node = code.firstChild; node; node = node.nextSibling) {
        if (hasClass(node, "typeGood")) { good.push(node); }
        else if (node.nodeType !== 3 && !hasClass(node, "typeMissed") && node.id !== "typecheckmark") { return null; }
      }
      if (good.length > 1) { return null; }
      return good.length ? spanText(good[0]) : "";
    }
    for (node = code.firstChild; node && node.nodeName !== "BR"; node = node.nextSibling) {
      if (node.nodeType === 3 && !node.nodeValue.trim()) { continue; }
      if (hasClass(node, "typeGood") || hasClass(node, "typeBad")) { parts.push(spanText(node)); }
      else if (!hasClass(node, "typeMissed")) { return null; }
    }
    var next = node ? node.nextSibling : null;
    while (next && next.nodeType === 3 && !next.nodeValue.trim()) { next = next.nextSibling; }
    return next === arrow ? parts.join("") : null;
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
  /* What was typed less a number answer's unit after the number ("500 mg", "500mg"),
     the unit compared as texts are; the text as it was when it does not end so. */
  function withoutUnit(typed, unit) {
    var s = normal(typed), u = normal(unit);
    if (u && s.length > u.length && s.slice(-u.length) === u) {
      return s.slice(0, -u.length);
    }
    return s;
  }
  function within(value, el) {
    var low = Number(el.getAttribute("data-min"));
    var high = Number(el.getAttribute("data-max"));
    var slack = 1e-9 * Math.max(1, Math.abs(low), Math.abs(high));
    return value >= low - slack && value <= high + slack;
  }
  /* A number followed by more text: what a learner types with a unit. */
  var NUMBER_FIRST = /^\s*([+\u2212-]?(?:\d+[.,]?\d*|[.,]\d+)(?:e[+-]?\d+)?)\s*[^\d\s.,]/i;
  var numberOnly = false; /* a number answer without a unit was typed with one */
  function judge(typed) {
    var text = normal(typed);
    if (!text) { return "unanswered"; }
    var value = number(typed);
    var lead = NUMBER_FIRST.exec(String(typed));
    for (var i = 0; i < accepts.length; i++) {
      var el = accepts[i];
      if (el.hasAttribute("data-min")) {
        var unit = el.getAttribute("data-unit");
        if (within(unit ? number(withoutUnit(typed, unit)) : value, el)) { return "correct"; }
        if (!unit && lead && within(number(lead[1]), el)) { numberOnly = true; }
      } else if (normal(el.textContent) === text) {
        return "correct";
      }
    }
    return "incorrect";
  }

  var explanation = root.querySelector("[data-db-label=explanation]");
  if (explanation) { say(explanation, L.explanation); }

  if (side === "front") {
    var box = typeans();
    var input = box && box.tagName === "INPUT" ? box : null;
    save(input ? input.value : null);
    if (!input) { return; }
    if (!input.hasAttribute("placeholder")) { input.setAttribute("placeholder", L.placeholder); }
    input.setAttribute("aria-label", L.placeholder);
    input.setAttribute("autocomplete", "off");
    input.setAttribute("autocapitalize", "off");
    input.setAttribute("spellcheck", "false");
    input.addEventListener("input", function () { save(input.value); });
  } else {
    var saved = load();
    var typed = saved && typeof saved.typed === "string" ? saved.typed : fromComparison();
    var verdict = typed === null ? "unjudged" : judge(typed);
    var compare = root.querySelector(".db-typed-compare");
    var given = root.querySelector(".db-typed-given");
    var givenText = root.querySelector("[data-typed-text]");
    if (typed !== null) {
      if (compare) { compare.hidden = true; }
      if (given) { given.hidden = false; }
      if (givenText) {
        if (normal(typed)) {
          givenText.textContent = typed;
        } else {
          say(givenText, L.nothing).classList.add("db-typed-nothing");
        }
        givenText.setAttribute("data-verdict-of", verdict);
      }
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
      if (numberOnly && verdict === "incorrect") {
        var hint = say(document.createElement("div"), L.numberOnly);
        hint.className = "db-typed-hint";
        v.parentNode.insertBefore(hint, v.nextSibling);
      }
    }
  }
})();
