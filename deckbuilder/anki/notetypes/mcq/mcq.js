/* deckbuilder multiple choice, inlined into both sides of the template.

   Where it runs, and what that rules out:
   - Anki desktop keeps one page for the whole session and re-creates each side's scripts
     inside #qa: a top-level let/const would throw on the second card, so everything lives
     in this function, declared with var.
   - AnkiDroid loads every side as a new document (the side inside #content, not #qa):
     window globals are gone on the back, only sessionStorage carries the pick across.
   - Previews may refuse storage: the back then shows the right answers and "not answered".
   The script never looks up #qa or #content, never loads anything from the network, and
   leaves one window flag (so the 1-9 key listener is added once per page). */
(function () {
  "use strict";
  var script = document.currentScript;
  var root = script && script.closest ? script.closest(".db-mcq") : null;
  if (!root) { /* eval'd by a client without currentScript: the side just inserted */
    var all = document.querySelectorAll(".db-mcq");
    root = all[all.length - 1];
  }
  if (!root || root.getAttribute("data-db-ready")) { return; }
  root.setAttribute("data-db-ready", "true");

  var side = root.getAttribute("data-db-side");
  var box = root.querySelector(".db-choices");
  var question = root.querySelector(".db-question");
  if (!box) { return; }
  var items = Array.prototype.slice.call(box.querySelectorAll("[data-choice]"));
  var letters = items.map(function (el) { return el.getAttribute("data-choice"); });
  var answer = (root.getAttribute("data-db-answer") || "").toUpperCase().match(/[A-Z]/g) || [];
  answer = answer.filter(function (l) { return letters.indexOf(l) >= 0; }).sort();
  var multi = answer.length > 1;
  var shuffle = !/^\s*(no|false|0|off)\s*$/i.test(root.getAttribute("data-db-shuffle") || "");

  var LABELS = {
    en: { multi: "Choose all that apply", correct: "Correct", incorrect: "Incorrect",
          unanswered: "Not answered", explanation: "Explanation", picked: "Your answer",
          right: "Right answer", wrong: "Wrong answer" },
    ko: { multi: "해당하는 것을 모두 고르세요", correct: "정답입니다", incorrect: "오답입니다",
          unanswered: "답하지 않음", explanation: "해설", picked: "내 답",
          right: "정답", wrong: "오답" }
  };
  /* The labels' language: data-db-lang on the root, else the one deckbuilder puts in the
     fields (see render.py): on the Question field of a deck built with languages:, on
     every choice of a deck without, where it is chosen once for the whole deck so that
     all its cards say the same words. */
  var tagged = root.getAttribute("data-db-lang");
  if (!tagged) {
    var marked = root.querySelector("[data-db-lang]");
    tagged = marked ? marked.getAttribute("data-db-lang") : "";
  }
  var lang = (tagged || "").trim().toLowerCase().split("-")[0];
  if (lang && !Object.prototype.hasOwnProperty.call(LABELS, lang)) {
    lang = "en"; /* a language without labels of its own */
  } else if (!lang) {
    /* A card that names no language (not built by deckbuilder): Hangul in the question
       or the choices means Korean. */
    lang = /[\u1100-\u11ff\u3131-\u318e\uac00-\ud7a3]/.test(
      (question ? question.textContent : "") + box.textContent) ? "ko" : "en";
  }
  var L = LABELS[lang];

  /* The pick is stored under a key made from this card's content, computed before the
     DOM is touched, so the front and the back of the same card find the same entry. */
  function hash(s) { /* FNV-1a */
    var h = 0x811c9dc5;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return h.toString(36);
  }
  var key = "deckbuilder-mcq:" + hash((question ? question.innerHTML : "") + "\u0000" +
    box.innerHTML + "\u0000" + answer.join(","));
  function load() {
    try { var raw = window.sessionStorage.getItem(key); return raw ? JSON.parse(raw) : null; }
    catch (e) { return null; }
  }
  function save(state) {
    try { window.sessionStorage.setItem(key, JSON.stringify(state)); } catch (e) { /* none */ }
  }
  function isOrder(order) {
    return Object.prototype.toString.call(order) === "[object Array]" &&
      order.length === letters.length &&
      order.slice().sort().join("\u0000") === letters.slice().sort().join("\u0000");
  }
  function span(cls, text) {
    var s = document.createElement("span");
    s.className = cls;
    if (text) { s.textContent = text; }
    return s;
  }
  /* The template's own words carry their language; the card's text keeps its own (the
     labels of an English card in a Korean-labelled deck are Korean, its text is not). */
  function say(el, text) {
    el.textContent = text;
    el.setAttribute("lang", lang);
    return el;
  }

  /* A choice's feedback (in the Choices field, after its text) is taken out before
     anything else: the front never shows it, the back shows it under the picked and the
     right choices. */
  var feedback = items.map(function (el) {
    return Array.prototype.filter.call(el.children, function (child) {
      return child.classList.contains("db-choice-feedback");
    }).map(function (child) { return el.removeChild(child); });
  });

  /* Each choice becomes [number badge][text]; the badge is also the 1-9 key hint. */
  items.forEach(function (el) {
    var text = span("db-choice-text");
    while (el.firstChild) { text.appendChild(el.firstChild); }
    var badge = span("db-choice-key");
    badge.setAttribute("aria-hidden", "true");
    el.appendChild(badge);
    el.appendChild(text);
  });
  function arrange(order) {
    order.forEach(function (l, i) {
      var el = items[letters.indexOf(l)];
      el.setAttribute("data-db-key", String(i + 1));
      el.querySelector(".db-choice-key").textContent = String(i + 1);
      box.appendChild(el);
    });
  }

  if (multi) { root.classList.add("db-multi"); }
  var hint = root.querySelector(".db-hint");
  if (hint && multi) { say(hint, L.multi).hidden = false; }
  var label = root.querySelector("[data-db-label=explanation]");
  if (label) { say(label, L.explanation); }

  if (side === "front") {
    var order = letters.slice();
    if (shuffle) {
      /* A pinned choice ("None of the above") keeps its place; the others shuffle among
         the remaining places. */
      var free = [];
      items.forEach(function (el, at) {
        if (el.getAttribute("data-db-pin") !== "true") { free.push(at); }
      });
      for (var i = free.length - 1; i > 0; i--) {
        var j = Math.floor(Math.random() * (i + 1));
        var t = order[free[i]]; order[free[i]] = order[free[j]]; order[free[j]] = t;
      }
    }
    var state = { order: order, picks: [] };
    arrange(order);
    save(state);
    box.setAttribute("role", multi ? "group" : "radiogroup");
    if (question && question.id === "") { question.id = "db-q-" + key.slice(-8); }
    if (question) { box.setAttribute("aria-labelledby", question.id); }
    var render = function () {
      items.forEach(function (el) {
        var on = state.picks.indexOf(el.getAttribute("data-choice")) >= 0;
        el.setAttribute("data-picked", on ? "true" : "false");
        el.setAttribute("aria-checked", on ? "true" : "false");
      });
    };
    var toggle = function (l) {
      var at = state.picks.indexOf(l);
      if (at >= 0) { state.picks.splice(at, 1); }
      else if (multi) { state.picks.push(l); }
      else { state.picks = [l]; }
      state.picks.sort();
      save(state);
      render();
    };
    items.forEach(function (el) {
      el.setAttribute("role", multi ? "checkbox" : "radio");
      el.setAttribute("tabindex", "0");
      el.addEventListener("click", function (e) {
        if (e.target && e.target.closest && e.target.closest("a[href]")) { return; }
        toggle(el.getAttribute("data-choice"));
      });
      el.addEventListener("keydown", function (e) {
        if (e.key === " " || e.key === "Enter") {
          e.preventDefault(); e.stopPropagation(); toggle(el.getAttribute("data-choice"));
        }
      });
    });
    render();
    if (!window.__deckbuilderMcqKeys) {
      /* Added once per page; on desktop it outlives this card and acts on whichever
         multiple-choice front is showing when a key is pressed. */
      window.__deckbuilderMcqKeys = true;
      document.addEventListener("keydown", function (e) {
        if (e.ctrlKey || e.metaKey || e.altKey || e.repeat || !/^[1-9]$/.test(e.key)) { return; }
        var target = e.target;
        if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
          return;
        }
        var fronts = document.querySelectorAll('.db-mcq[data-db-side="front"]');
        if (fronts.length !== 1) { return; }
        var el = fronts[0].querySelector('[data-choice][data-db-key="' + e.key + '"]');
        if (el) { e.preventDefault(); el.click(); }
      }, true);
    }
  } else {
    var saved = load();
    var picks = [];
    if (saved && isOrder(saved.order)) {
      arrange(saved.order);
      picks = (Object.prototype.toString.call(saved.picks) === "[object Array]" ? saved.picks : [])
        .filter(function (l) { return letters.indexOf(l) >= 0; });
    } else {
      arrange(letters.slice());
    }
    items.forEach(function (el, i) {
      var l = el.getAttribute("data-choice");
      var right = answer.indexOf(l) >= 0;
      var picked = picks.indexOf(l) >= 0;
      var text = el.querySelector(".db-choice-text");
      el.setAttribute("data-correct", right ? "true" : "false");
      el.setAttribute("data-picked", picked ? "true" : "false");
      if (picked) { text.appendChild(say(span("db-choice-note"), L.picked)); }
      if (right || picked) {
        feedback[i].forEach(function (said) { text.appendChild(said); });
      }
      var mark = el.appendChild(span("db-choice-mark"));
      if (right || picked) {
        mark.appendChild(span("", right ? "\u2713" : "\u2717")).setAttribute("aria-hidden", "true");
        mark.appendChild(say(span("db-sr"), right ? L.right : L.wrong));
      }
    });
    var verdict = "unanswered";
    if (picks.length) {
      verdict = picks.slice().sort().join() === answer.join() ? "correct" : "incorrect";
    }
    var v = root.querySelector("[data-verdict]");
    if (v) {
      v.setAttribute("data-verdict", verdict);
      v.setAttribute("role", "status");
      say(v, L[verdict]);
    }
  }
})();
