// Gloss batch index: full-text search across every page. The text is loaded only when someone
// searches, through <script> elements (fetch() of local files is refused under file://); each
// shard calls glossSearchShard(index, count, pages). The first shard says how many there are and
// the others are then requested at once, so the browser reads and parses them side by side;
// they may arrive in any order, and results are listed in page order whatever the order.
(function () {
  "use strict";

  var input = document.getElementById("search");
  var status = document.getElementById("search-status");
  var results = document.getElementById("results");
  var list = document.getElementById("result-list");
  var dataPath = document.body.getAttribute("data-search") || "data/";
  var pageSize = 100;

  var shards = [];         // by shard index: [[htmlPath, title, text, folded text], ...]
  var shardCount = 0;      // known once the first shard has arrived
  var loaded = 0;          // shards arrived
  var requested = false;
  var missing = -1;        // the first shard that could not be loaded
  var scheduled = false;
  var shown = pageSize;

  function fold(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }

  function shardName(index) {
    var digits = String(index);
    while (digits.length < 4) digits = "0" + digits;
    return dataPath + "search-" + digits + ".js";
  }

  function load(index) {
    var script = document.createElement("script");
    script.src = shardName(index);
    script.onerror = function () {
      if (missing < 0) missing = index;
      script.remove();
      schedule();
    };
    document.head.appendChild(script);
  }

  window.glossSearchShard = function (index, count, entries) {
    if (shards[index]) return;
    if (!shardCount) {
      shardCount = count;
      for (var next = 1; next < count; next += 1) load(next);
    }
    shards[index] = entries.map(function (entry) { return [entry[0], entry[1], entry[2], fold(entry[2])]; });
    loaded += 1;
    schedule();
  };

  // Shards that arrive together are searched and listed once.
  function schedule() {
    if (scheduled) return;
    scheduled = true;
    setTimeout(function () {
      scheduled = false;
      render();
    }, 0);
  }

  function terms() {
    return fold(input.value).split(/\s+/).filter(Boolean);
  }

  function escapeRegExp(text) {
    return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  }

  // The text around the first match, with every term marked; built as DOM nodes, never as markup.
  function snippet(text, words) {
    var folded = fold(text);
    var at = folded.indexOf(words[0]);
    var start = Math.max(0, at - 60);
    var end = Math.min(text.length, at + words[0].length + 100);
    var piece = (start > 0 ? "…" : "") + text.slice(start, end).replace(/\s+/g, " ") + (end < text.length ? "…" : "");
    var pattern = new RegExp(words.map(escapeRegExp).join("|"), "giu");
    var span = document.createElement("span");
    span.className = "snippet";
    var last = 0;
    var found;
    while ((found = pattern.exec(piece)) !== null) {
      if (found[0].length === 0) { pattern.lastIndex += 1; continue; }
      span.appendChild(document.createTextNode(piece.slice(last, found.index)));
      var mark = document.createElement("mark");
      mark.textContent = found[0];
      span.appendChild(mark);
      last = found.index + found[0].length;
    }
    span.appendChild(document.createTextNode(piece.slice(last)));
    return span;
  }

  function render() {
    var words = terms();
    list.textContent = "";
    if (!words.length) {
      results.hidden = true;
      status.textContent = "";
      return;
    }
    results.hidden = false;
    var matches = [];
    shards.forEach(function (shard) {
      shard.forEach(function (page) {
        if (words.every(function (term) { return page[3].indexOf(term) >= 0; })) matches.push(page);
      });
    });
    var query = encodeURIComponent(input.value.trim());
    matches.slice(0, shown).forEach(function (page) {
      var item = document.createElement("li");
      var anchor = document.createElement("a");
      anchor.href = page[0] + "#q=" + query;
      anchor.textContent = page[1];
      item.appendChild(anchor);
      item.appendChild(snippet(page[2], words));
      list.appendChild(item);
    });
    if (matches.length > shown) {
      var more = document.createElement("li");
      var button = document.createElement("button");
      button.type = "button";
      button.textContent = "Show " + Math.min(pageSize, matches.length - shown) + " more of " + (matches.length - shown);
      button.addEventListener("click", function () { shown += pageSize; render(); });
      more.appendChild(button);
      list.appendChild(more);
    }
    var summary = matches.length === 1 ? "1 page" : matches.length + " pages";
    if (missing >= 0) {
      status.textContent = "Search data not found (" + shardName(missing) + "); it is written when the batch finishes.";
    } else if (loaded < shardCount || shardCount === 0) {
      status.textContent = summary + " so far, searching… (" + loaded + " of " + (shardCount || "?") + ")";
    } else {
      status.textContent = summary;
    }
  }

  var timer = 0;
  input.addEventListener("input", function () {
    shown = pageSize;
    if (!requested) {
      requested = true;
      load(0);
    }
    clearTimeout(timer);
    timer = setTimeout(render, 120);
  });
  input.addEventListener("keydown", function (event) {
    if (event.key === "Enter") {
      event.preventDefault();
      var first = list.querySelector("a");
      if (first) location.href = first.href;
    } else if (event.key === "ArrowDown") {
      var link = list.querySelector("a");
      if (link) { event.preventDefault(); link.focus(); }
    } else if (event.key === "Escape") {
      input.value = "";
      render();
    }
  });
  input.form.addEventListener("submit", function (event) { event.preventDefault(); });

  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (event.key !== "/" || event.altKey || event.ctrlKey || event.metaKey) return;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
    event.preventDefault();
    input.focus();
  });
})();
