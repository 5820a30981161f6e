// Gloss page view: layers, tooltips, review of low-confidence words, faces, find, zoom and
// pan, a selectable text layer over the scan, text linked to boxes, keyboard navigation, the
// phone's menu and sheet. Plain script, no dependencies; reads everything from the page's markup.
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
    });
    svg.addEventListener("focusout", hideTip);
    svg.addEventListener("click", function (event) {
      var word = wordOf(event.target);
      var selection = window.getSelection();
      if (word && word.span && !moved && (!selection || selection.isCollapsed)) word.span.scrollIntoView({ block: "nearest" });
    });
    svg.addEventListener("keydown", function (event) {
      var word = wordOf(event.target);
      if (!word) return;
      var step = { ArrowRight: 1, ArrowDown: 1, ArrowLeft: -1, ArrowUp: -1 }[event.key];
      if (!step) return;
      event.preventDefault();
      event.stopPropagation();
      var next = words[Number(word.rect.getAttribute("data-i")) + step];
      if (next) focusWord(next);
    });
  }

  function focusWord(word) {
    words.forEach(function (other) { other.rect.setAttribute("tabindex", "-1"); });
    word.rect.setAttribute("tabindex", "0");
    word.rect.focus({ preventScroll: true });
    reveal(word);
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
    if (lowCount) lowCount.textContent = flagged.length === 1 ? "1 word" : flagged.length + " words";
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

  function review(direction) {
    if (!flagged.length) return;
    reviewAt = reviewAt < 0 ? (direction > 0 ? 0 : flagged.length - 1)
      : (reviewAt + direction + flagged.length) % flagged.length;
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

  // Scrolls the viewer so a word is in sight, and its text too.
  function reveal(word) {
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
