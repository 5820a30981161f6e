// Gloss page view: layers, tooltips, review of low-confidence words, proofreading, faces, find,
// zoom and pan, a selectable text layer over the scan, text linked to boxes, keyboard
// navigation, the phone's menu and sheet. Plain script, no dependencies; reads everything from the page's markup.
(function () {
  "use strict";

  var svg = document.getElementById("page-svg");
  var viewer = document.getElementById("viewer");
  var tip = document.getElementById("tip");
  var findInput = document.getElementById("find");
  var findCount = document.getElementById("find-count");
  var slider = document.getElementById("min-confidence");
  var sliderValue = document.getElementById("min-confidence-value");

  // One record per word: its box, its span in the text panel, its text and confidence.
  var words = [];
  var rects = svg ? svg.querySelectorAll(".words .word") : [];
  var pageWidth = svg ? svg.viewBox.baseVal.width : 0;
  var spans = document.querySelectorAll("#page-text .w");
  var spanByIndex = {};
  Array.prototype.forEach.call(spans, function (span) { spanByIndex[span.getAttribute("data-i")] = span; });
  Array.prototype.forEach.call(rects, function (rect) {
    var index = rect.getAttribute("data-i");
    var span = spanByIndex[index] || null;
    var text = span ? span.textContent : "";
    words.push({ rect: rect, span: span, text: text, key: fold(text), confidence: parseFloat(rect.getAttribute("data-c")) || 0 });
  });

  function fold(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }

  function wordOf(element) {
    if (!element || !element.getAttribute) return null;
    var index = element.getAttribute("data-i");
    return index === null ? null : words[Number(index)] || null;
  }

  // Layers ------------------------------------------------------------------------------
  var layerBoxes = document.querySelectorAll("[data-layer]");
  function applyLayer(box) {
    if (svg) svg.classList.toggle("hide-" + box.getAttribute("data-layer"), !box.checked);
  }
  Array.prototype.forEach.call(layerBoxes, function (box) {
    applyLayer(box);
    box.addEventListener("change", function () { applyLayer(box); });
  });
  function toggleLayer(name) {
    var box = document.querySelector('[data-layer="' + name + '"]');
    if (!box) return;
    box.checked = !box.checked;
    applyLayer(box);
  }

  // Tooltip and linking -------------------------------------------------------------------
  function showTip(element) {
    var word = wordOf(element);
    var label = word ? word.text : element.getAttribute("aria-label");
    if (!label) return;
    tip.textContent = label;
    if (word) {
      var confidence = document.createElement("span");
      confidence.className = "c";
      confidence.textContent = Math.round(word.confidence * 10) / 10 + "%";
      tip.appendChild(confidence);
    }
    tip.hidden = false;
    var box = element.getBoundingClientRect();
    var frame = viewer.getBoundingClientRect();
    var left = box.left - frame.left + viewer.scrollLeft;
    var top = box.bottom - frame.top + viewer.scrollTop + 6;
    var maxLeft = viewer.scrollLeft + viewer.clientWidth - tip.offsetWidth - 4;
    tip.style.left = Math.max(viewer.scrollLeft + 4, Math.min(left, maxLeft)) + "px";
    tip.style.top = top + "px";
  }
  function hideTip() { tip.hidden = true; }

  function link(word, on) {
    word.rect.classList.toggle("linked", on);
    if (word.span) word.span.classList.toggle("linked", on);
  }

  function tipTarget(element) {
    if (!element || !element.closest) return null;
    var target = element.closest(".word, .face, .tw");
    if (target && target.classList.contains("tw")) {
      var word = wordOf(target);
      return word ? word.rect : null;
    }
    return target;
  }

  if (svg) {
    svg.addEventListener("pointerover", function (event) {
      var target = tipTarget(event.target);
      if (!target) return;
      showTip(target);
      var word = wordOf(target);
      if (word) link(word, true);
    });
    svg.addEventListener("pointerout", function (event) {
      var target = tipTarget(event.target);
      if (!target) return;
      if (document.activeElement !== target) hideTip();
      var word = wordOf(target);
      if (word) link(word, false);
    });
    svg.addEventListener("focusin", function (event) {
      var target = tipTarget(event.target);
      if (target) showTip(target);
      var word = wordOf(event.target);
      if (word) lastWord = word;
    });
    svg.addEventListener("focusout", hideTip);
    svg.addEventListener("click", function (event) {
      var word = wordOf(event.target);
      var selection = window.getSelection();
      if (!word || moved || (selection && !selection.isCollapsed)) return;
      if (editing) {
        // Retyped where it is: nothing scrolls under the pointer.
        focusWord(word, true);
        openEditor(word);
      } else if (word.span) {
        word.span.scrollIntoView({ block: "nearest" });
      }
    });
    svg.addEventListener("keydown", function (event) {
      var word = wordOf(event.target);
      if (!word) return;
      if (editing && !event.altKey && !event.ctrlKey && !event.metaKey) {
        var action = { Enter: adding ? addAfter : openEditor, F2: openEditor, Delete: deleteWord, Backspace: deleteWord,
          j: joinWord }[event.key];
        if (action) {
          event.preventDefault();
          event.stopPropagation();
          action(word);
          return;
        }
      }
      var step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
      if (!step) return;
      event.preventDefault();
      event.stopPropagation();
      var next = words[Number(word.rect.getAttribute("data-i")) + step];
      if (next) focusWord(next);
    });
  }

  // `still`: focused where it is, without scrolling (a word clicked or just corrected).
  function focusWord(word, still) {
    words.forEach(function (other) { other.rect.setAttribute("tabindex", "-1"); });
    word.rect.setAttribute("tabindex", "0");
    word.rect.focus({ preventScroll: true });
    lastWord = word;
    if (!still) reveal(word);
  }

  var text = document.getElementById("page-text");
  if (text) {
    text.addEventListener("pointerover", function (event) {
      var word = wordOf(event.target);
      if (word) link(word, true);
    });
    text.addEventListener("pointerout", function (event) {
      var word = wordOf(event.target);
      if (word) link(word, false);
    });
    text.addEventListener("click", function (event) {
      var word = wordOf(event.target);
      var selection = window.getSelection();
      if (word && (!selection || selection.isCollapsed)) focusWord(word);
    });
  }

  // Selecting text in the panel marks the boxes of the selected words.
  var selected = [];
  document.addEventListener("selectionchange", function () {
    selected.forEach(function (word) { link(word, false); });
    selected = [];
    var selection = window.getSelection();
    if (!selection || selection.isCollapsed || !text || !text.contains(selection.anchorNode)) return;
    words.forEach(function (word) {
      if (word.span && selection.containsNode(word.span, true)) {
        link(word, true);
        selected.push(word);
      }
    });
  });

  // Review: words below the threshold are flagged (highlighted, for a reviewer to check),
  // faces below it are hidden, and ] and [ step through the flagged words ------------------
  var flagged = [];
  var reviewAt = -1;
  var faceShapes = svg ? svg.querySelectorAll(".faces .face") : [];
  var faceItems = document.querySelectorAll("#face-list .face-item");
  var lowCount = document.getElementById("low-count");
  var lowThreshold = document.getElementById("low-threshold");
  var faceCount = document.getElementById("face-count");

  function countFlagged() {
    if (lowCount) lowCount.textContent = flagged.length === 1 ? "1 word" : flagged.length + " words";
  }

  function applyConfidence() {
    var threshold = slider ? Number(slider.value) : 0;
    if (sliderValue) sliderValue.textContent = threshold + "%";
    flagged = [];
    reviewAt = -1;
    words.forEach(function (word) {
      var flag = word.confidence < threshold;
      word.rect.classList.toggle("flag", flag);
      if (word.span) word.span.classList.toggle("flag", flag);
      if (flag) flagged.push(word);
    });
    countFlagged();
    if (lowThreshold) lowThreshold.textContent = String(threshold);
    var shown = 0;
    Array.prototype.forEach.call(faceShapes, function (shape) {
      var out = parseFloat(shape.getAttribute("data-c")) < threshold;
      shape.classList.toggle("filtered", out);
      if (!out) shown += 1;
    });
    Array.prototype.forEach.call(faceItems, function (item) {
      item.hidden = parseFloat(item.getAttribute("data-c")) < threshold;
    });
    if (faceCount) faceCount.textContent = faceShapes.length ? "(" + shown + " of " + faceShapes.length + " shown)" : "";
  }
  if (slider) slider.addEventListener("input", applyConfidence);
  applyConfidence();

  // Steps from the word last focused, so that after a word is corrected (and is no longer
  // flagged) the next step goes on from where it was.
  function review(direction) {
    if (!flagged.length) return;
    var from = lastWord ? words.indexOf(lastWord) : -1;
    if (from < 0) {
      reviewAt = direction > 0 ? 0 : flagged.length - 1;
    } else if (direction > 0) {
      reviewAt = flagged.findIndex(function (word) { return words.indexOf(word) > from; });
      if (reviewAt < 0) reviewAt = 0;
    } else {
      reviewAt = -1;
      flagged.forEach(function (word, k) { if (words.indexOf(word) < from) reviewAt = k; });
      if (reviewAt < 0) reviewAt = flagged.length - 1;
    }
    focusWord(flagged[reviewAt]);
  }
  function onClick(id, handler) {
    var element = document.getElementById(id);
    if (element) element.addEventListener("click", handler);
  }
  onClick("low-next", function () { review(1); });
  onClick("low-prev", function () { review(-1); });

  // Faces: the list's buttons show their face on the page -----------------------------------
  function faceShape(index) { return document.getElementById("f" + index); }
  Array.prototype.forEach.call(document.querySelectorAll("#face-list .face-button"), function (button) {
    var shape = faceShape(button.getAttribute("data-f"));
    if (!shape) return;
    button.addEventListener("click", function () {
      var layer = document.querySelector('[data-layer="faces"]');
      if (layer && !layer.checked) toggleLayer("faces");
      shape.focus({ preventScroll: true });
      revealElement(shape);
    });
    button.addEventListener("pointerover", function () { shape.classList.add("linked"); });
    button.addEventListener("pointerout", function () { shape.classList.remove("linked"); });
    button.addEventListener("focus", function () { shape.classList.add("linked"); });
    button.addEventListener("blur", function () { shape.classList.remove("linked"); });
  });

  // Find ----------------------------------------------------------------------------------
  var hits = [];
  var current = -1;
  var findingQuery = false;  // the hits are a full-text query's, not words found inside words

  // Two ways to find. A full-text query (asQuery) is read like the batch index reads it, FTS5's
  // syntax with FTS5's tokenizer (window.glossQuery, from index.js): a word is a hit when its
  // tokens are where a phrase of the query occurs in the page's tokens (the words' tokens in
  // reading order), a phrase's words only where the whole phrase is, `qui*` on words starting
  // so; phrases on the right of a NOT are never marked. Otherwise, and for a query FTS5 would
  // refuse, each word typed is looked for inside the words, whatever the case and accents.
  function find(query, asQuery) {
    hits.forEach(function (word) { mark(word, false, false); });
    hits = [];
    current = -1;
    var found = asQuery ? queryHits(query) : null;
    var searching = found !== null;
    findingQuery = searching;
    if (found) {
      hits = found;
    } else {
      var terms = fold(query).split(/\s+/).filter(Boolean);
      searching = terms.length > 0;
      if (searching) {
        hits = words.filter(function (word) {
          return terms.some(function (term) { return word.key.indexOf(term) >= 0; });
        });
      }
    }
    hits.forEach(function (word) { mark(word, true, false); });
    if (hits.length) step(1); else showCount(searching);
  }

  // Typed into the find box, text with FTS5's operators is taken as a query; plain words are
  // found inside words as they are typed.
  function looksLikeQuery(query) {
    return /["*()^+]|\b(AND|OR|NOT)\b/.test(query);
  }

  // The page's tokens, and the word each comes from (built on the first query).
  var stream = null;
  var owners = null;

  // The words `query` hits, in page order; null when it is not a query this page can read.
  function queryHits(query) {
    var api = window.glossQuery;
    if (!api) return null;
    var parsed;
    try {
      parsed = api.parse(query);
    } catch (error) {
      if (error instanceof api.QueryError) return null;
      throw error;
    }
    if (!stream) {
      stream = [];
      owners = [];
      words.forEach(function (word, index) {
        api.tokenize(word.text).forEach(function (term) {
          stream.push(term);
          owners.push(index);
        });
      });
    }
    var hit = [];
    positivePhrases(parsed.root, []).forEach(function (node) {
      api.occurrences(node, stream).forEach(function (start) {
        for (var k = 0; k < node.tokens.length; k += 1) hit[owners[start + k]] = true;
      });
    });
    return words.filter(function (word, index) { return hit[index] === true; });
  }

  // The phrases a query looks for: all but those on the right of a NOT.
  function positivePhrases(node, into) {
    if (node.type === "phrase") into.push(node);
    else if (node.type === "not") positivePhrases(node.children[0], into);
    else node.children.forEach(function (child) { positivePhrases(child, into); });
    return into;
  }

  function mark(word, hit, isCurrent) {
    word.rect.classList.toggle("hit", hit);
    word.rect.classList.toggle("current", isCurrent);
    if (word.span) {
      word.span.classList.toggle("hit", hit);
      word.span.classList.toggle("current", isCurrent);
    }
  }

  function step(direction) {
    if (!hits.length) return;
    if (current >= 0) mark(hits[current], true, false);
    current = (current + direction + hits.length) % hits.length;
    mark(hits[current], true, true);
    reveal(hits[current]);
    showCount(true);
  }

  function showCount(searching) {
    findCount.textContent = !searching ? "" : hits.length ? (current + 1) + " of " + hits.length : "no matches";
  }

  // Scrolls the viewer so a word is in sight, and its text too. Its box has no size while the
  // words' layer is hidden, so the layer is shown first, as a face's is.
  function reveal(word) {
    var layer = document.querySelector('[data-layer="words"]');
    if (layer && !layer.checked) toggleLayer("words");
    revealElement(word.rect);
    if (word.span) word.span.scrollIntoView({ block: "nearest" });
  }

  function revealElement(element) {
    var box = element.getBoundingClientRect();
    var frame = viewer.getBoundingClientRect();
    var margin = 40;
    if (box.left < frame.left + margin || box.right > frame.right - margin) {
      viewer.scrollLeft += box.left - frame.left - frame.width / 2 + box.width / 2;
    }
    if (box.top < frame.top + margin || box.bottom > frame.bottom - margin) {
      viewer.scrollTop += box.top - frame.top - frame.height / 2 + box.height / 2;
    }
  }

  if (findInput) {
    findInput.addEventListener("input", function () { find(findInput.value, looksLikeQuery(findInput.value)); });
    findInput.addEventListener("keydown", function (event) {
      if (event.key === "Enter") {
        event.preventDefault();
        step(event.shiftKey ? -1 : 1);
      } else if (event.key === "Escape") {
        findInput.value = "";
        find("", false);
        findInput.blur();
      }
    });
    findInput.form.addEventListener("submit", function (event) { event.preventDefault(); });
    document.getElementById("find-next").addEventListener("click", function () { step(1); });
    document.getElementById("find-prev").addEventListener("click", function () { step(-1); });
  }

  // Zoom and pan --------------------------------------------------------------------------
  // `zoom` is the page's width as a share of the viewer's (1: fit width). The percentage shown
  // is screen pixels per page pixel. Outlines keep a width in screen pixels (non-scaling
  // strokes) that thins as the page gets smaller, so they never cover small text.
  var zoom = 1;
  var zoomValue = document.getElementById("zoom-value");
  function fitWidthPixels() {
    var style = getComputedStyle(viewer);
    return viewer.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  }
  function showZoom() {
    if (!svg || !pageWidth) return;
    var scale = svg.getBoundingClientRect().width / pageWidth;
    if (zoomValue) zoomValue.textContent = Math.round(scale * 100) + "%";
    svg.style.setProperty("--stroke", String(Math.max(0.3, Math.min(1, scale * 1.5))));
  }
  function setZoom(value, anchorX, anchorY) {
    if (!svg) return;
    var next = Math.min(8, Math.max(0.05, value));
    var frame = viewer.getBoundingClientRect();
    var x = anchorX === undefined ? frame.width / 2 : anchorX - frame.left;
    var y = anchorY === undefined ? frame.height / 2 : anchorY - frame.top;
    var ratio = next / zoom;
    var left = (viewer.scrollLeft + x) * ratio - x;
    var top = (viewer.scrollTop + y) * ratio - y;
    zoom = next;
    svg.style.width = (zoom * 100) + "%";
    viewer.scrollLeft = left;
    viewer.scrollTop = top;
    hideTip();
    showZoom();
  }
  // The whole page in sight: the smaller of fit width and fit height.
  function fitPage() {
    if (!svg || !pageWidth) return;
    var style = getComputedStyle(viewer);
    var height = viewer.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
    var pageHeight = svg.viewBox.baseVal.height;
    var width = fitWidthPixels();
    setZoom(Math.min(1, (height * pageWidth / pageHeight) / width));
    viewer.scrollLeft = 0;
    viewer.scrollTop = 0;
  }
  onClick("zoom-in", function () { setZoom(zoom * 1.25); });
  onClick("zoom-out", function () { setZoom(zoom / 1.25); });
  onClick("zoom-fit", function () { setZoom(1); });
  onClick("zoom-page", fitPage);
  window.addEventListener("resize", showZoom);
  showZoom();

  viewer.addEventListener("wheel", function (event) {
    if (!event.ctrlKey) return;
    event.preventDefault();
    setZoom(zoom * (event.deltaY < 0 ? 1.1 : 1 / 1.1), event.clientX, event.clientY);
  }, { passive: false });

  // A drag over the page selects its text. It pans instead with Space held, with the middle
  // button, or when it starts on the margin around the page; touch pans natively.
  var spaceHeld = false;
  var drag = null;
  var moved = false;
  function pans(event) {
    if (event.button === 1) return true;
    if (event.button !== 0) return false;
    return spaceHeld || !svg || !svg.contains(event.target);
  }
  viewer.addEventListener("mousedown", function (event) {
    if (pans(event)) event.preventDefault();  // no text selection while panning
  });
  viewer.addEventListener("pointerdown", function (event) {
    if (event.pointerType === "touch" || !pans(event)) return;
    drag = { x: event.clientX, y: event.clientY, left: viewer.scrollLeft, top: viewer.scrollTop, id: event.pointerId };
    moved = false;
  });
  viewer.addEventListener("pointermove", function (event) {
    if (!drag) return;
    var dx = event.clientX - drag.x;
    var dy = event.clientY - drag.y;
    if (!moved && Math.abs(dx) + Math.abs(dy) < 4) return;
    if (!moved) {
      moved = true;
      viewer.classList.add("panning");
      viewer.setPointerCapture(drag.id);
      hideTip();
    }
    viewer.scrollLeft = drag.left - dx;
    viewer.scrollTop = drag.top - dy;
  });
  function endDrag() {
    drag = null;
    viewer.classList.remove("panning");
    window.setTimeout(function () { moved = false; }, 0);
  }
  viewer.addEventListener("pointerup", endDrag);
  viewer.addEventListener("pointercancel", endDrag);
  function typing(target) {
    return target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "BUTTON"
      || target.tagName === "SELECT" || target.isContentEditable);
  }
  document.addEventListener("keydown", function (event) {
    if (event.key !== " " || typing(event.target)) return;
    event.preventDefault();
    if (!spaceHeld) {
      spaceHeld = true;
      viewer.classList.add("space-pan");
    }
  });
  document.addEventListener("keyup", function (event) {
    if (event.key !== " ") return;
    spaceHeld = false;
    viewer.classList.remove("space-pan");
  });
  window.addEventListener("blur", function () {
    spaceHeld = false;
    viewer.classList.remove("space-pan");
  });

  // Phones: the toolbar's menu and the panel's sheet ----------------------------------------
  function toggler(buttonId, target, className, openLabel, closedLabel) {
    var button = document.getElementById(buttonId);
    if (!button || !target) return;
    button.addEventListener("click", function () {
      var open = !target.classList.contains(className);
      target.classList.toggle(className, open);
      button.setAttribute("aria-expanded", String(open));
      if (openLabel) button.textContent = open ? openLabel : closedLabel;
    });
  }
  toggler("menu-toggle", document.querySelector(".toolbar"), "menu-open");
  toggler("sheet-toggle", document.getElementById("page-view"), "sheet-open", "Show the page", "Expand panel");

  // Previous and next page, from the batch's page order (data/pages.js) --------------------
  var pages = window.glossPages || [];
  var home = document.querySelector(".pager .home");
  var here = decodeURIComponent(location.pathname.split("/").pop());
  var position = -1;
  pages.forEach(function (page, index) {
    if (page[0].split("/").pop() === here) position = index;
  });
  function pageLink(selector, page) {
    var anchor = document.querySelector(selector);
    if (!anchor || !page || !home) return null;
    anchor.href = new URL(page[0], home.href).href;
    anchor.title = page[1];
    anchor.hidden = false;
    return anchor;
  }
  var previousLink = position > 0 ? pageLink(".pager .prev", pages[position - 1]) : null;
  var nextLink = position >= 0 ? pageLink(".pager .next", pages[position + 1]) : null;

  function go(anchor) {
    if (!anchor) return;
    var query = findInput && findInput.value.trim();
    location.href = anchor.href + (query ? (findingQuery ? "#q=" : "#find=") + encodeURIComponent(query) : "");
  }

  // Proofreading --------------------------------------------------------------------------
  // A reviewer retypes, deletes, joins, splits and adds words and marks the page reviewed. Each
  // change is a correction (docs/corrections.md): the words it takes as the page holds them
  // (text and box in page pixels), the words it gives, the reviewer and the time. Served by a
  // writable `gloss serve`, each is sent at once against the page's version; otherwise (file://
  // or a plain web server) they are kept in this browser, per page, until "Save corrections"
  // downloads them as one file for `gloss correct DIR FILE`.
  var pageId = document.body.getAttribute("data-page");
  var version = document.body.getAttribute("data-version");
  var proof = document.getElementById("proof");
  var proofStatus = document.getElementById("proof-status");
  var reviewerInput = document.getElementById("reviewer");
  var saveButton = document.getElementById("save-corrections");
  var addButton = document.getElementById("add-word");
  var editing = false;     // whether corrections can be made here
  var served = false;      // sent to gloss serve as they are made, or kept in this browser
  var blocked = false;     // a conflict: nothing more is sent until the page is loaded again
  var adding = false;      // the next drag over the page draws a missed word's box
  var lastWord = null;     // the word last focused, which the actions apply to
  var editor = null;       // the open word editor
  var afterName = null;    // what to do once the reviewer has typed their name
  var sending = Promise.resolve();
  var batchRoot = home ? new URL(".", home.href).href : new URL("..", location.href).href;
  var storeKey = "gloss.corrections " + batchRoot + " " + pageId;

  function storage(kind) {
    try { return window[kind]; } catch (error) { return null; }
  }
  var local = storage("localStorage");

  function say(message, kind) {
    if (!proofStatus) return;
    proofStatus.textContent = message;
    proofStatus.className = "proof-status" + (kind ? " " + kind : "");
  }

  function reviewer() {
    return (reviewerInput && reviewerInput.value.trim()) || "";
  }

  function now() { return new Date().toISOString().replace(/\.\d+Z$/, "Z"); }

  function boxOf(rect) {
    return { x: parseInt(rect.getAttribute("x"), 10), y: parseInt(rect.getAttribute("y"), 10),
      width: parseInt(rect.getAttribute("width"), 10), height: parseInt(rect.getAttribute("height"), 10) };
  }
  function sameBox(a, b) { return a.x === b.x && a.y === b.y && a.width === b.width && a.height === b.height; }
  function overlap(a, b) {
    var w = Math.min(a.x + a.width, b.x + b.width) - Math.max(a.x, b.x);
    var h = Math.min(a.y + a.height, b.y + b.height) - Math.max(a.y, b.y);
    if (w <= 0 || h <= 0) return 0;
    var shared = w * h;
    return shared / (a.width * a.height + b.width * b.height - shared);
  }
  function enclosing(a, b) {
    var x = Math.min(a.x, b.x), y = Math.min(a.y, b.y);
    return { x: x, y: y, width: Math.max(a.x + a.width, b.x + b.width) - x, height: Math.max(a.y + a.height, b.y + b.height) - y };
  }
  // The box cut left to right in proportion to the parts' letters, as `gloss correct` cuts it.
  function shares(box, parts) {
    var weights = parts.map(function (part) { return Math.max(1, Array.from(part).length); });
    var total = weights.reduce(function (a, b) { return a + b; }, 0);
    var used = 0;
    return weights.map(function (weight) {
      var left = box.x + Math.round(box.width * used / total);
      used += weight;
      var right = box.x + Math.round(box.width * used / total);
      return { x: left, y: box.y, width: Math.max(1, right - left), height: box.height };
    });
  }
  function wordValue(word) { return { text: word.text, box: boxOf(word.rect) }; }
  function indexOf(word) { return words.indexOf(word); }

  // The word a correction takes: at its index if the box is the same, else the one its box
  // overlaps most, by at least half of their union (CorrectionPolicy).
  function locate(old, hint) {
    if (hint !== undefined && hint !== null && words[hint] && sameBox(boxOf(words[hint].rect), old.box)) return hint;
    var best = -1, score = 0.5;
    words.forEach(function (word, index) {
      var value = overlap(boxOf(word.rect), old.box);
      if (value >= score) { best = index; score = value; }
    });
    return best;
  }

  // The page's markup for words ---------------------------------------------------------------
  var svgNS = "http://www.w3.org/2000/svg";
  var wordLayer = svg ? svg.querySelector(".layer.words") : null;
  var textLayer = svg ? svg.querySelector(".layer.text") : null;
  Array.prototype.forEach.call(svg ? svg.querySelectorAll(".tw") : [], function (tspan) {
    var word = wordOf(tspan);
    if (word) word.tspan = tspan;
  });

  function setText(word, text) {
    word.text = text;
    word.key = fold(text);
    stream = null; // the words a query finds are read again from the page's words
    word.confidence = 100;
    word.rect.setAttribute("data-c", "100");
    word.rect.setAttribute("aria-label", text + ", 100%");
    word.rect.classList.remove("low", "medium");
    word.rect.classList.add("high", "corrected");
    if (word.span) {
      word.span.textContent = text;
      word.span.classList.add("corrected");
    }
    if (word.tspan) word.tspan.textContent = text;
    // Corrected, the word is sure: it leaves the words to review, the count, and ] and [.
    var at = flagged.indexOf(word);
    if (at >= 0) {
      flagged.splice(at, 1);
      if (reviewAt >= at) reviewAt -= 1;
      word.rect.classList.remove("flag");
      if (word.span) word.span.classList.remove("flag");
      countFlagged();
    }
  }

  function setBox(word, box) {
    ["x", "y", "width", "height"].forEach(function (name) { word.rect.setAttribute(name, String(box[name])); });
    if (word.tspan) {
      var set = textLayerBox(box);
      word.tspan.setAttribute("x", String(set.x));
      word.tspan.setAttribute("textLength", String(Math.max(1, set.width)));
    }
  }

  // The text layer of a page read turned is set as the page was read, upright, and turned onto
  // the picture by its transform: a box of the picture is carried back onto it.
  function textLayerBox(box) {
    var turn = textLayer && textLayer.transform.baseVal.consolidate();
    if (!turn) return box;
    var back = turn.matrix.inverse();
    function at(x, y) { return { x: back.a * x + back.c * y + back.e, y: back.b * x + back.d * y + back.f }; }
    var a = at(box.x, box.y), b = at(box.x + box.width, box.y + box.height);
    return { x: Math.min(a.x, b.x), y: Math.min(a.y, b.y), width: Math.abs(b.x - a.x), height: Math.abs(b.y - a.y) };
  }

  // A new word's markup, placed after `before` (a word) or first.
  function makeWord(value, before) {
    var rect = document.createElementNS(svgNS, "rect");
    rect.setAttribute("class", "word high corrected");
    rect.setAttribute("tabindex", "-1");
    var word = { rect: rect, span: null, tspan: null, text: "", key: "", confidence: 100 };
    if (wordLayer) wordLayer.insertBefore(rect, before ? before.rect.nextSibling : wordLayer.firstChild);
    var span = document.createElement("span");
    span.className = "w corrected";
    if (text) {
      if (before && before.span) {
        before.span.after(" ", span);
      } else {
        var line = text.querySelector(".ln");
        if (!line) {
          text.textContent = "";
          var paragraph = document.createElement("p");
          line = document.createElement("span");
          line.className = "ln";
          line.dir = "auto";
          paragraph.appendChild(line);
          text.appendChild(paragraph);
        }
        line.prepend(span, " ");
      }
      word.span = span;
    }
    if (svg) {
      var tspan = document.createElementNS(svgNS, "tspan");
      var set = textLayerBox(value.box);
      tspan.setAttribute("class", "tw");
      tspan.setAttribute("y", String(set.y + set.height * 0.8));
      tspan.setAttribute("font-size", String(Math.max(1, set.height * 0.8)));
      tspan.setAttribute("lengthAdjust", "spacingAndGlyphs");
      if (before && before.tspan) {
        before.tspan.after(" ", tspan);
      } else if (textLayer) {
        var holder = document.createElementNS(svgNS, "text");
        holder.setAttribute("class", "tl");
        holder.appendChild(tspan);
        textLayer.appendChild(holder);
      }
      word.tspan = tspan;
    }
    setBox(word, value.box);
    setText(word, value.text);
    return word;
  }

  function removeWord(word) {
    word.rect.remove();
    [word.span, word.tspan].forEach(function (node) {
      if (!node) return;
      var space = node.previousSibling || node.nextSibling;
      if (space && space.nodeType === 3) space.remove();
      node.remove();
    });
  }

  // Indices follow the words' order again after words came or went.
  function renumber() {
    words.forEach(function (word, index) {
      var value = String(index);
      word.rect.setAttribute("data-i", value);
      word.rect.id = "w" + index;
      if (word.span) word.span.setAttribute("data-i", value);
      if (word.tspan) word.tspan.setAttribute("data-i", value);
    });
    stream = null;
    applyConfidence();
    // A word found before it was deleted or joined is no longer a hit: n and N pass it.
    var kept = hits.filter(function (word) { return word.rect.isConnected; });
    if (kept.length !== hits.length) {
      var at = current >= 0 ? hits[current] : null;
      hits = kept;
      // The current hit gone, n goes on to the one that took its place.
      current = at ? Math.min(hits.indexOf(at) >= 0 ? hits.indexOf(at) : current - 1, hits.length - 1) : -1;
      showCount(true);
    }
  }

  // Where an added word goes: after the last word of the line it sits on that is left of it,
  // else last.
  function placeOf(box) {
    var middle = box.y + box.height / 2, at = words.length;
    words.forEach(function (word, index) {
      var other = boxOf(word.rect);
      if (middle >= other.y && middle <= other.y + other.height && other.x < box.x) at = index + 1;
    });
    return at;
  }

  // Shows a correction on the page; false when its words are not there.
  function show(correction) {
    var at = correction.old.length ? locate(correction.old[0], correction.word) : -1;
    if (correction.old.length && at < 0) return false;
    switch (correction.kind) {
      case "retype":
        setText(words[at], correction.new[0].text);
        return words[at];
      case "delete":
        removeWord(words[at]);
        words.splice(at, 1);
        renumber();
        return words[Math.min(at, words.length - 1)] || null;
      case "join":
        var second = locate(correction.old[1], at + 1);
        if (second < 0) return false;
        removeWord(words[second]);
        var kept = words[at];
        words.splice(second, 1);
        setBox(kept, correction.new[0].box);
        setText(kept, correction.new[0].text);
        renumber();
        return kept;
      case "split":
        var first = words[at];
        setBox(first, correction.new[0].box);
        setText(first, correction.new[0].text);
        var previous = first;
        correction.new.slice(1).forEach(function (value, offset) {
          previous = makeWord(value, previous);
          words.splice(at + 1 + offset, 0, previous);
        });
        renumber();
        return first;
      case "add":
        var place = placeOf(correction.new[0].box);
        var added = makeWord(correction.new[0], words[place - 1] || null);
        words.splice(place, 0, added);
        renumber();
        return added;
      case "review":
        showReviewed(correction.by, correction.at);
        return lastWord;
    }
    return false;
  }

  function showReviewed(by, at) {
    var note = document.getElementById("reviewed");
    if (!note) {
      note = document.createElement("p");
      note.className = "reviewed";
      note.id = "reviewed";
      proof.parentNode.insertBefore(note, proof);
    }
    note.textContent = "Reviewed by " + by + ", " + at;
  }

  // Kept in this browser ------------------------------------------------------------------------
  function stored() {
    try { return JSON.parse(local.getItem(storeKey)) || null; } catch (error) { return null; }
  }
  function keep(entry) {
    try {
      if (entry && entry.corrections.length) local.setItem(storeKey, JSON.stringify(entry));
      else local.removeItem(storeKey);
    } catch (error) {
      say("This browser does not keep corrections (" + error.message + ").", "error");
    }
  }
  function batchEntries() {
    var found = [];
    if (!local) return found;
    for (var k = 0; k < local.length; k += 1) {
      var key = local.key(k);
      if (key.indexOf("gloss.corrections " + batchRoot + " ") !== 0) continue;
      try { found.push(JSON.parse(local.getItem(key))); } catch (error) { /* not ours */ }
    }
    return found.filter(function (entry) { return entry && entry.corrections && entry.corrections.length; });
  }
  // The corrections of an entry not yet in a saved file: those after the `sent` first (an
  // entry kept before `sent` was counted is sent whole or not at all).
  function unsent(entry) {
    var sent = typeof entry.sent === "number" ? entry.sent : (entry.exported ? entry.corrections.length : 0);
    return entry.corrections.slice(sent);
  }
  function showKept() {
    var entries = batchEntries();
    var count = entries.reduce(function (sum, entry) { return sum + unsent(entry).length; }, 0);
    var all = entries.reduce(function (sum, entry) { return sum + entry.corrections.length; }, 0);
    if (saveButton) saveButton.hidden = all === 0;
    if (all === 0) return;
    say(count ? count + (count === 1 ? " correction" : " corrections") + " kept in this browser, not yet saved: "
      + "Save corrections, then apply the file with gloss correct."
      : "Corrections saved; apply the file with gloss correct, then load the page again.");
  }

  // One file for the whole batch: {"corrections": [...], "versions": {"<page>": "<version>"}},
  // holding only corrections no file saved before holds: a file applied already would be
  // refused as changed since. A page whose first corrections went in an earlier file has no
  // version in this one, so its later ones apply by their boxes, whether or not that file was
  // applied first.
  function saveCorrections() {
    var entries = batchEntries().filter(function (entry) { return unsent(entry).length; });
    if (!entries.length) {
      say("Every correction kept here is in a file saved before: apply it with gloss correct.");
      return;
    }
    var file = { corrections: [], versions: {} };
    entries.forEach(function (entry) {
      var fresh = unsent(entry);
      file.corrections = file.corrections.concat(fresh);
      if (!entry.stale && fresh.length === entry.corrections.length) file.versions[entry.page] = entry.version;
    });
    var blob = new Blob([JSON.stringify(file, null, 1) + "\n"], { type: "application/json" });
    var anchor = document.createElement("a");
    anchor.href = URL.createObjectURL(blob);
    anchor.download = "corrections.json";
    document.body.appendChild(anchor);
    anchor.click();
    anchor.remove();
    window.setTimeout(function () { URL.revokeObjectURL(anchor.href); }, 10000);
    entries.forEach(function (entry) {
      entry.exported = true;
      entry.sent = entry.corrections.length;
      local.setItem("gloss.corrections " + batchRoot + " " + entry.page, JSON.stringify(entry));
    });
    showKept();
  }

  // Sent to gloss serve -------------------------------------------------------------------------
  function api(path) { return new URL("api/" + path, batchRoot).href; }
  function token() {
    var found = new URLSearchParams(location.search).get("token");
    if (found) {
      try { local.setItem("gloss.token", found); } catch (error) { /* kept for this page only */ }
      return found;
    }
    return (local && local.getItem("gloss.token")) || "";
  }
  var writeToken = "";

  function send(correction, word) {
    sending = sending.then(function () {
      if (blocked) return null;
      return fetch(api("corrections"), {
        method: "POST",
        headers: { "Content-Type": "application/json", "If-Match": '"' + version + '"', "X-Gloss-Token": writeToken },
        body: JSON.stringify({ corrections: [correction] })
      }).then(function (response) {
        return response.json().catch(function () { return {}; }).then(function (body) {
          if (response.ok) {
            version = body.version || version;
            document.body.setAttribute("data-version", version);
            if (word && word.rect) word.rect.classList.remove("unsaved");
            say("Saved (" + correction.kind + ").");
            return null;
          }
          if (word && word.rect) word.rect.classList.add("unsaved");
          blocked = response.status === 412 || response.status === 409;
          if (response.status === 412) {
            say("Not saved: this page was changed elsewhere since you loaded it. Load the page again to see its words now, then redo the change.", "conflict");
          } else if (response.status === 409) {
            say("Not saved: the word is no longer on the page (it was changed elsewhere). Load the page again.", "conflict");
          } else if (response.status === 401 || response.status === 403) {
            say("Not saved: this address has no write token. Open the batch from the address gloss serve printed.", "error");
          } else {
            say("Not saved: " + (body.error || response.status + " " + response.statusText), "error");
          }
          return null;
        });
      }).catch(function (error) {
        if (word && word.rect) word.rect.classList.add("unsaved");
        say("Not saved: the server did not answer (" + error.message + ").", "error");
      });
    });
  }

  // Making corrections ---------------------------------------------------------------------------
  // Asks for the reviewer's name once (kept in this browser), then does `then`.
  function withName(then) {
    if (reviewer()) return then();
    afterName = then;
    say("Type your name as the reviewer first (asked once), then Enter.");
    reviewerInput.focus({ preventScroll: true });
  }

  function commit(kind, index, old, given) {
    if (blocked) {
      say("This page was changed elsewhere: load it again before making more changes.", "conflict");
      return null;
    }
    var correction = { page: pageId, kind: kind };
    if (index !== null) correction.word = index;
    correction.old = old;
    correction["new"] = given;
    correction.by = reviewer();
    correction.at = now();
    var result = show(correction);
    if (result === false) return null;
    if (served) {
      send(correction, result);
    } else {
      var entry = stored();
      if (!entry || entry.version !== version || entry.stale) {
        entry = entry && entry.corrections.length && !entry.exported ? entry : { page: pageId, version: version, corrections: [] };
      }
      entry.corrections.push(correction);
      entry.exported = false;
      keep(entry);
      showKept();
    }
    return result;
  }

  function land(word) {
    if (word && word.rect && word.rect.isConnected) focusWord(word, true);
    else if (svg) svg.focus({ preventScroll: true });
  }

  function closeEditor(refocus) {
    if (!editor) return;
    var closing = editor;
    editor = null;
    closing.input.remove();
    if (closing.drawn) closing.drawn.remove();
    if (refocus) land(closing.word);
  }

  // The word's text in a box just under it; Enter keeps it (empty deletes it, a space splits it),
  // Escape leaves it as it was. For an added word, its drawn box.
  function openEditor(word, drawn) {
    if (!editing) return;
    withName(function () {
      settleEditor();
      var input = document.createElement("input");
      input.type = "text";
      input.className = "word-editor";
      input.setAttribute("aria-label", word ? "Correct the word " + word.text : "Type the missed word");
      input.value = word ? word.text : "";
      var target = word ? word.rect : drawn.rect;
      var box = target.getBoundingClientRect();
      var frame = viewer.getBoundingClientRect();
      input.style.left = (box.left - frame.left + viewer.scrollLeft) + "px";
      input.style.top = (box.bottom - frame.top + viewer.scrollTop + 4) + "px";
      input.style.width = Math.max(box.width + 16, 120) + "px";
      viewer.appendChild(input);
      editor = { input: input, word: word, drawn: drawn ? drawn.rect : null, box: drawn ? drawn.box : null };
      input.focus({ preventScroll: true });
      input.select();
      input.addEventListener("keydown", function (event) {
        event.stopPropagation();
        if (event.key === "Escape") {
          event.preventDefault();
          closeEditor(true);
        } else if (event.key === "Enter") {
          event.preventDefault();
          finishEdit(input.value);
        }
      });
      input.addEventListener("blur", function () {
        // Another window taking the focus (Alt-Tab) is not a click away: the editor stays open.
        window.setTimeout(function () { if (editor && editor.input === input && document.hasFocus()) settleEditor(); }, 0);
      });
    });
  }

  // The editor left open by a click elsewhere: what was typed is kept, as Enter keeps it (but
  // an emptied word stays: only Enter deletes); only Escape leaves the word as it was.
  function settleEditor() {
    if (!editor) return;
    var value = editor.input.value.trim();
    var changed = editor.word ? value !== "" && value !== editor.word.text : value !== "";
    if (changed) finishEdit(value, false); else closeEditor(false);
  }

  function finishEdit(value, refocus) {
    var open = editor;
    var parts = value.trim().split(/\s+/).filter(Boolean);
    var landed = open.word;
    if (!open.word) {
      if (parts.length) {
        var boxes = shares(open.box, parts);
        parts.forEach(function (part, k) {
          landed = commit("add", null, [], [{ text: part, box: boxes[k] }]) || landed;
        });
      }
    } else {
      var index = indexOf(open.word), old = wordValue(open.word);
      if (!parts.length) {
        landed = commit("delete", index, [old], []);
      } else if (parts.length > 1) {
        var cut = shares(old.box, parts);
        landed = commit("split", index, [old], parts.map(function (part, k) { return { text: part, box: cut[k] }; }));
      } else if (parts[0] !== open.word.text) {
        landed = commit("retype", index, [old], [{ text: parts[0], box: old.box }]);
      }
    }
    editor.word = landed || open.word;
    closeEditor(refocus !== false);
  }

  function deleteWord(word) {
    if (!word) return;
    withName(function () { land(commit("delete", indexOf(word), [wordValue(word)], [])); });
  }

  function joinWord(word) {
    var index = word ? indexOf(word) : -1;
    if (index < 0 || index + 1 >= words.length) return;
    withName(function () {
      var first = wordValue(word), second = wordValue(words[index + 1]);
      land(commit("join", index, [first, second], [{ text: first.text + second.text, box: enclosing(first.box, second.box) }]));
    });
  }

  function markReviewed() {
    withName(function () {
      commit("review", null, [], []);
      if (lastWord) land(lastWord);
    });
  }

  function setAdding(on) {
    adding = on && editing;
    if (addButton) addButton.setAttribute("aria-pressed", String(adding));
    if (svg) svg.classList.toggle("adding", adding);
    if (adding) say("Drag over the page where the word is, or press Enter to add it after the focused word; then type it.");
  }

  // From the keyboard, in add mode: a box as large as the focused word, just after it.
  function addAfter(word) {
    var box = boxOf(word.rect);
    box.x = Math.max(0, Math.min(box.x + box.width + Math.round(box.height * 0.3), pageWidth - box.width));
    var shape = document.createElementNS(svgNS, "rect");
    shape.setAttribute("class", "drawn");
    ["x", "y", "width", "height"].forEach(function (name) { shape.setAttribute(name, String(box[name])); });
    svg.appendChild(shape);
    setAdding(false);
    openEditor(null, { rect: shape, box: box });
    if (!editor && !afterName) shape.remove();
  }

  // Drawing a missed word's box: in add mode, or with Shift or Alt held.
  var drawing = null;
  function pagePoint(event) {
    var point = svg.createSVGPoint();
    point.x = event.clientX;
    point.y = event.clientY;
    return point.matrixTransform(svg.getScreenCTM().inverse());
  }
  function draws(event) {
    return editing && svg && event.button === 0 && (adding || event.shiftKey || event.altKey) && !spaceHeld;
  }

  function startProofreading(isServed) {
    editing = true;
    served = isServed;
    proof.hidden = false;
    if (reviewerInput) {
      reviewerInput.value = (local && local.getItem("gloss.reviewer")) || "";
      reviewerInput.addEventListener("change", function () {
        try { local.setItem("gloss.reviewer", reviewer()); } catch (error) { /* asked again next time */ }
      });
      reviewerInput.addEventListener("keydown", function (event) {
        if (event.key !== "Enter") return;
        event.preventDefault();
        try { local.setItem("gloss.reviewer", reviewer()); } catch (error) { /* asked again next time */ }
        var then = afterName;
        afterName = null;
        if (then && reviewer()) then();
        else if (lastWord) land(lastWord);
        else reviewerInput.blur();
      });
    }
    if (!served) {
      // Corrections made here before: shown again on the version they were made on. On another
      // version, saved ones are done with; unsaved ones wait to be saved, applied by their boxes.
      var entry = stored();
      if (entry && entry.version === version && !entry.stale) {
        var missing = entry.corrections.filter(function (correction) { return show(correction) === false; }).length;
        if (missing) say(missing + " kept corrections no longer match the page's words.", "error");
      } else if (entry && entry.exported) {
        keep(null);
      } else if (entry) {
        entry.stale = true;
        keep(entry);
      }
      showKept();
      if (saveButton) saveButton.addEventListener("click", saveCorrections);
    } else {
      say("Changes are saved to the batch as you make them.");
      // A view older than its page (kept by the browser, or the page corrected meanwhile) is
      // said at once, before a change is refused.
      fetch(api("pages/" + encodeURIComponent(pageId)), { cache: "no-store" }).then(function (response) {
        return response.ok ? response.json() : null;
      }).then(function (current) {
        if (current && current.version && current.version !== version) {
          blocked = true;
          say("This page was changed elsewhere since this view was made: load the page again before correcting it.", "conflict");
        }
      }, function () { /* the first change will tell */ });
    }
    onClick("edit-word", function () { if (lastWord) openEditor(lastWord); });
    onClick("delete-word", function () { deleteWord(lastWord); });
    onClick("join-word", function () { joinWord(lastWord); });
    onClick("add-word", function () { setAdding(!adding); });
    onClick("mark-reviewed", markReviewed);

    svg.addEventListener("mousedown", function (event) {
      if (draws(event)) event.preventDefault();
    });
    svg.addEventListener("pointerdown", function (event) {
      if (!draws(event)) return;
      event.preventDefault();
      event.stopPropagation();
      var start = pagePoint(event);
      var shape = document.createElementNS(svgNS, "rect");
      shape.setAttribute("class", "drawn");
      svg.appendChild(shape);
      drawing = { start: start, rect: shape, box: null, id: event.pointerId };
      svg.setPointerCapture(event.pointerId);
    });
    svg.addEventListener("pointermove", function (event) {
      if (!drawing) return;
      // The box stays on the page: the pointer, captured, goes on past its edge, and a box
      // that leaves the page is refused (served, or by `gloss correct` with the page's others).
      var point = pagePoint(event), start = drawing.start;
      var width = svg.viewBox.baseVal.width, height = svg.viewBox.baseVal.height;
      function within(value, limit) { return Math.min(Math.max(Math.round(value), 0), limit); }
      var box = { x: within(Math.min(start.x, point.x), width), y: within(Math.min(start.y, point.y), height) };
      box.width = within(Math.max(start.x, point.x), width) - box.x;
      box.height = within(Math.max(start.y, point.y), height) - box.y;
      drawing.box = box;
      ["x", "y", "width", "height"].forEach(function (name) { drawing.rect.setAttribute(name, String(box[name])); });
    });
    // A drag the browser took over (a touch turned into a scroll) draws nothing.
    svg.addEventListener("pointercancel", function () {
      if (!drawing) return;
      drawing.rect.remove();
      drawing = null;
      setAdding(false);
    });
    svg.addEventListener("pointerup", function () {
      if (!drawing) return;
      var done = drawing;
      drawing = null;
      setAdding(false);
      if (!done.box || done.box.width < 3 || done.box.height < 3) {
        done.rect.remove();
        return;
      }
      openEditor(null, done);
      if (!editor && !afterName) done.rect.remove();
    });
  }

  if (pageId && version && svg && proof) {
    if (location.protocol === "file:") {
      startProofreading(false);
    } else {
      fetch(api("status"), { cache: "no-store" }).then(function (response) {
        if (!response.ok) throw new Error(String(response.status));
        return response.json();
      }).then(function (status) {
        writeToken = token();
        if (status && status.writable) {
          if (new URLSearchParams(location.search).has("token")) {
            history.replaceState(null, "", location.pathname + location.hash);
          }
          startProofreading(true);
        }
      }, function () {
        startProofreading(false);  // a plain web server: kept in this browser, as offline
      });
    }
  }

  // Keyboard ------------------------------------------------------------------------------
  document.addEventListener("keydown", function (event) {
    if (event.defaultPrevented || event.altKey || event.ctrlKey || event.metaKey) return;
    var target = event.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.isContentEditable)) return;
    var handled = true;
    switch (event.key) {
      case "ArrowLeft": go(previousLink); break;
      case "ArrowRight": go(nextLink); break;
      case "/": findInput.focus(); findInput.select(); break;
      case "n": step(1); break;
      case "N": step(-1); break;
      case "+": case "=": setZoom(zoom * 1.25); break;
      case "-": setZoom(zoom / 1.25); break;
      case "0": setZoom(1); break;
      case "9": fitPage(); break;
      case "]": review(1); break;
      case "[": review(-1); break;
      case "w": toggleLayer("words"); break;
      case "l": toggleLayer("lines"); break;
      case "b": toggleLayer("blocks"); break;
      case "f": toggleLayer("faces"); break;
      case "a": if (editing) setAdding(!adding); else handled = false; break;
      case "Escape": if (adding) setAdding(false); else handled = false; break;
      default: handled = false;
    }
    if (handled) event.preventDefault();
  });

  // A search handed over by the index or by the previous page: #q=query, a full-text query, or
  // #find=words, words to find inside words.
  var match = /^#(q|find)=(.*)$/.exec(location.hash);
  if (match && findInput) {
    try {
      findInput.value = decodeURIComponent(match[2]);
    } catch (error) {
      findInput.value = "";
    }
    find(findInput.value, match[1] === "q");
  }
})();
