/* deckbuilder multiple choice. Runs on Anki desktop (one long-lived page; scripts re-run
   for every side, so no top-level let/const and nothing that must survive in window),
   AnkiDroid (each side is a fresh page: only sessionStorage carries the pick from front
   to back) and AnkiWeb. No network, no globals other than one keyboard flag. */
(function () {
  "use strict";
  var script = document.currentScript;
  var root = script && script.closest ? script.closest(".db-mcq") : null;
  if (!root) {
    var all = document.querySelectorAll(".db-mcq");
    root = all[all.length - 1];
  }
  if (!root) { return; }
  var side = root.getAttribute("data-db-side");
  var box = root.querySelector(".db-choices");
  var items = Array.prototype.slice.call(box.querySelectorAll("[data-choice]"));
  var answer = (root.getAttribute("data-db-answer") || "").toUpperCase().match(/[A-Z]/g) || [];
  var multi = answer.length > 1;
  var shuffle = !/^(no|false|0)$/i.test((root.getAttribute("data-db-shuffle") || "").trim());
  var question = root.querySelector(".db-question");
  var lang = (root.getAttribute("data-db-lang") || "").trim() ||
    (/[\u3131-\u318e\uac00-\ud7a3]/.test(question ? question.textContent : "") ? "ko" : "en");
  var LABELS = {
    en: { multi: "Choose all that apply", correct: "Correct", incorrect: "Incorrect",
          unanswered: "Not answered", explanation: "Explanation" },
    ko: { multi: "해당하는 것을 모두 고르세요", correct: "정답", incorrect: "오답",
          unanswered: "답하지 않음", explanation: "해설" }
  };
  var L = LABELS[lang] || LABELS.en;

  function hash(s) { /* FNV-1a, to key this card's state */
    var h = 0x811c9dc5;
    for (var i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193) >>> 0; }
    return h.toString(36);
  }
  var key = "deckbuilder-mcq:" + hash((question ? question.innerHTML : "") + "\u0000" + box.innerHTML);
  function load() {
    try { var raw = window.sessionStorage.getItem(key); return raw ? JSON.parse(raw) : null; }
    catch (e) { return null; }
  }
  function save(state) {
    try { window.sessionStorage.setItem(key, JSON.stringify(state)); } catch (e) { /* no storage */ }
  }
  var letters = items.map(function (el) { return el.getAttribute("data-choice"); });
  function validOrder(order) {
    return order && order.length === letters.length &&
      order.slice().sort().join() === letters.slice().sort().join();
  }
  function arrange(order) {
    order.forEach(function (l, i) {
      var el = items[letters.indexOf(l)];
      el.setAttribute("data-db-key", String(i + 1));
      box.appendChild(el);
    });
  }

  if (multi) { root.classList.add("db-multi"); }
  var hint = root.querySelector(".db-hint");
  if (hint && multi) { hint.textContent = L.multi; hint.hidden = false; }
  box.setAttribute("role", multi ? "group" : "radiogroup");
  var label = root.querySelector("[data-db-label=explanation]");
  if (label) { label.textContent = L.explanation; }

  if (side === "front") {
    var order = letters.slice();
    if (shuffle) {
      for (var i = order.length - 1; i > 0; i--) {
        var j = Math.floor(Math.random() * (i + 1));
        var t = order[i]; order[i] = order[j]; order[j] = t;
      }
    }
    var state = { order: order, picks: [] };
    arrange(order);
    save(state);
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
      el.addEventListener("click", function () { toggle(el.getAttribute("data-choice")); });
      el.addEventListener("keydown", function (e) {
        if (e.key === " " || e.key === "Enter") {
          e.preventDefault(); e.stopPropagation(); toggle(el.getAttribute("data-choice"));
        }
      });
    });
    render();
    if (!window.__deckbuilderMcqKeys) {
      window.__deckbuilderMcqKeys = true;
      document.addEventListener("keydown", function (e) {
        if (e.ctrlKey || e.metaKey || e.altKey || !/^[1-9]$/.test(e.key)) { return; }
        var fronts = document.querySelectorAll('.db-mcq[data-db-side="front"]');
        if (fronts.length !== 1) { return; }
        var el = fronts[0].querySelector('.db-choice[data-db-key="' + e.key + '"]');
        if (el) { e.preventDefault(); el.click(); }
      }, true);
    }
  } else {
    var saved = load();
    var picks = [];
    if (saved && validOrder(saved.order)) {
      arrange(saved.order);
      picks = (saved.picks || []).filter(function (l) { return letters.indexOf(l) >= 0; });
    } else {
      arrange(letters.slice());
    }
    items.forEach(function (el) {
      var l = el.getAttribute("data-choice");
      var right = answer.indexOf(l) >= 0;
      var picked = picks.indexOf(l) >= 0;
      el.setAttribute("data-correct", right ? "true" : "false");
      el.setAttribute("data-picked", picked ? "true" : "false");
      var mark = document.createElement("span");
      mark.className = "db-mark";
      mark.setAttribute("aria-hidden", "true");
      mark.textContent = right ? "\u2713" : (picked ? "\u2717" : "");
      el.insertBefore(mark, el.firstChild);
    });
    var verdict = "unanswered";
    if (picks.length) {
      verdict = picks.slice().sort().join() === answer.slice().sort().join() ? "correct" : "incorrect";
    }
    var v = root.querySelector("[data-verdict]");
    if (v) { v.setAttribute("data-verdict", verdict); v.textContent = L[verdict]; }
  }
})();
