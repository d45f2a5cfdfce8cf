/* The preview page's stand-in for what Anki's clients give an image occlusion card:
   anki.imageOcclusion.setup(), which the card's template calls, and the CSS that lays
   the picture's canvas over it. It draws the shapes the card's cloze filter wrote as
   <div class="cloze|cloze-inactive|cloze-highlight" data-shape=...> (positions are
   fractions of the picture) with the colours and borders the note type's CSS sets on
   #image-occlusion-canvas: on the front the card's own masks in the active colour, the
   others only with "hide all" (data-occludeinactive) in the inactive colour (or their
   own fill); on the back the card's own in the highlight colour (transparent, a border);
   labels on every side. The back's Toggle Masks button (and the M key) hides and shows
   the masks, as on the clients. Unlike a client's, the picture may be as tall as it is
   (the card's frame grows with it). deckbuilder/preview/page.py puts this script before
   each side of an image occlusion card; Anki's own script is never shipped. */
(function () {
  "use strict";
  /* The picture lays the card out by itself (Anki's clients size its box from the
     picture's proportions with a script instead): the preview's frames are measured
     before a script of theirs may run. */
  var CSS = "#image-occlusion-container{position:relative;margin:0 auto}" +
    "#image-occlusion-container img{display:block;width:100%;height:auto;" +
    "max-width:none;max-height:none}" +
    "#image-occlusion-canvas{position:absolute;top:0;left:0;width:100%;height:100%}" +
    /* The note type's CSS paints the card white on black; at night Anki desktop's
       reviewer.css paints it in its night colours, as here. */
    "body.nightMode{background-color:#2c2c2c;color:#fcfcfc}";
  var MASK = "#ffeba2";  /* a mask's own fill when it has none of its own */
  var hidden = false;

  function number(value, otherwise) {
    var n = parseFloat(value);
    return isNaN(n) ? otherwise : n;
  }
  function variable(style, name, otherwise) {
    return style.getPropertyValue(name).trim() || otherwise;
  }
  function border(style, name, otherwise) {
    var parts = variable(style, name, otherwise).split(/\s+/);
    return { width: number(parts[0], 1), color: parts[1] || "#212121" };
  }
  function shapesOf(selector) {
    return Array.prototype.map.call(document.querySelectorAll(selector), function (div) {
      return div.dataset;
    });
  }

  function outline(ctx, d, w, h) {
    var left = number(d.left, 0) * w;
    var top = number(d.top, 0) * h;
    ctx.beginPath();
    if (d.shape === "rect") {
      ctx.rect(left, top, number(d.width, 0) * w, number(d.height, 0) * h);
    } else if (d.shape === "ellipse") {
      var rx = number(d.rx, 0) * w;
      var ry = number(d.ry, 0) * h;
      ctx.ellipse(left + rx, top + ry, rx, ry, 0, 0, 2 * Math.PI);
    } else if (d.shape === "polygon") {
      var points = (d.points || "").split(" ").map(function (pair) {
        var xy = pair.split(",");
        return [number(xy[0], 0) * w, number(xy[1], 0) * h];
      });
      if (!points.length) { return false; }
      /* The polygon is drawn with its box's corner at (left, top). */
      var dx = left - Math.min.apply(null, points.map(function (p) { return p[0]; }));
      var dy = top - Math.min.apply(null, points.map(function (p) { return p[1]; }));
      points.forEach(function (p, i) {
        if (i) { ctx.lineTo(p[0] + dx, p[1] + dy); } else { ctx.moveTo(p[0] + dx, p[1] + dy); }
      });
      ctx.closePath();
    } else {
      return false;
    }
    return true;
  }

  function turned(ctx, d, w, h) {
    /* An angle is stored in ten-thousandths of a turn, about the shape's (left, top). */
    var turn = number(d.angle, 0) / 10000;
    if (!turn || d.shape === "polygon") { return; }
    var x = number(d.left, 0) * w;
    var y = number(d.top, 0) * h;
    ctx.translate(x, y);
    ctx.rotate(turn * 2 * Math.PI);
    ctx.translate(-x, -y);
  }

  function mask(ctx, d, w, h, fill, line) {
    ctx.save();
    turned(ctx, d, w, h);
    if (outline(ctx, d, w, h)) {
      ctx.fillStyle = fill;
      ctx.fill();
      if (line.width) {
        ctx.strokeStyle = line.color;
        ctx.lineWidth = line.width;
        ctx.stroke();
      }
    }
    ctx.restore();
  }

  function label(ctx, d, w, h) {
    var size = number(d.fontSize, 0) * h || 40;
    var scale = number(d.scale, 1);
    var lines = (d.text || "").split("\n");
    ctx.save();
    ctx.font = size + "px Arial";
    ctx.textBaseline = "top";
    ctx.scale(scale, scale);
    var x = number(d.left, 0) * w / scale;
    var y = number(d.top, 0) * h / scale;
    var m = ctx.measureText("M");
    var step = 1.5 * (m.actualBoundingBoxAscent + m.actualBoundingBoxDescent);
    var widest = Math.max.apply(null, lines.map(function (t) { return ctx.measureText(t).width; }));
    turned(ctx, { angle: d.angle, left: x / w, top: y / h, shape: "text" }, w, h);
    ctx.fillStyle = "#ffffff";
    ctx.fillRect(x, y, widest + 5, step * lines.length + 5);
    ctx.fillStyle = d.fill || "#000000";
    lines.forEach(function (t, i) { ctx.fillText(t, x, y + i * step); });
    ctx.restore();
  }

  function draw(canvas) {
    var ctx = canvas.getContext("2d");
    var w = canvas.width;
    var h = canvas.height;
    var style = getComputedStyle(canvas);
    ctx.clearRect(0, 0, w, h);
    var labels = [];
    function masks(selector, fill, line, which) {
      shapesOf(selector).forEach(function (d) {
        if (d.shape === "text") { labels.push(d); return; }
        if (hidden || !which(d)) { return; }
        mask(ctx, d, w, h, fill(d), line);
      });
    }
    masks(".cloze", function () { return variable(style, "--active-shape-color", "#ff8e8e"); },
      border(style, "--active-shape-border", "1px #212121"), function () { return true; });
    masks(".cloze-inactive", function (d) {
      return d.fill && d.fill !== MASK ? d.fill : variable(style, "--inactive-shape-color", MASK);
    }, border(style, "--inactive-shape-border", "1px #212121"), function (d) {
      return d.occludeinactive === "1";
    });
    masks(".cloze-highlight", function () {
      return variable(style, "--highlight-shape-color", "#ff8e8e00");
    }, border(style, "--highlight-shape-border", "1px #ff8e8e"), function () { return true; });
    labels.forEach(function (d) { label(ctx, d, w, h); });
  }

  function setup() {
    var canvas = document.getElementById("image-occlusion-canvas");
    var container = document.getElementById("image-occlusion-container");
    var image = container && container.querySelector("img");
    if (!canvas || !image) {
      if (container) { container.textContent = "No image to show."; }
      return;
    }
    function show() {
      wire();
      if (!image.naturalWidth || !canvas.clientWidth) { return; }  /* not laid out yet */
      var ratio = window.devicePixelRatio || 1;
      canvas.width = Math.round(canvas.clientWidth * ratio);
      canvas.height = Math.round(canvas.clientHeight * ratio);
      draw(canvas);
    }
    /* The back's button comes after the template's script: it is wired once there. */
    var wired = false;
    function wire() {
      var toggle = document.getElementById("toggle");
      if (wired || !toggle) { return; }
      wired = true;
      if (!document.querySelector('[data-occludeinactive="1"]')) {
        toggle.style.display = "none";
        return;
      }
      function flip() { hidden = !hidden; draw(canvas); }
      toggle.addEventListener("click", flip);
      window.addEventListener("keydown", function (event) { if (event.key === "M") { flip(); } });
    }
    /* Drawn when the picture is in, and again whenever the canvas changes size (a frame
       out of sight is laid out only once it comes into view). */
    image.addEventListener("load", show);
    document.addEventListener("DOMContentLoaded", show);
    if (window.ResizeObserver) { new ResizeObserver(show).observe(canvas); }
    window.addEventListener("resize", show);
    if (image.complete) { show(); }
  }

  var style = document.createElement("style");
  style.textContent = CSS;
  document.head.appendChild(style);
  window.anki = window.anki || {};
  window.anki.imageOcclusion = { setup: setup };
}());
