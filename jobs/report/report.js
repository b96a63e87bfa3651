// The report's tables over columnar data (sort, filter, pages): every run, with a board
// replay, and a comparison's changed pairs. Moves name the direction the blank travels
// (U, D, L, R); g, h and f are shown for the heuristics cheap to compute here (manhattan,
// misplaced, linear-conflict).
(function () {
  "use strict";

  // Seconds as the summary prints them: three significant digits in us, ms or s
  function duration(v) {
    for (const [unit, scale] of [["us", 1e-6], ["ms", 1e-3]])
      if (v < 999.5 * scale) return `${+(v / scale).toPrecision(3)}${unit}`;
    return `${+v.toPrecision(3)}s`;
  }
  const fmt = (col, v) => v === null || v === undefined ? "–" :
    typeof v === "number" ? (col === "seconds" ? duration(v) : col === "ebf" ? v.toFixed(4) : v.toLocaleString("en")) : v;

  // A table of the columns `shown` of `data` ({columns, data, lookups}: text columns as codes
  // into lookups) in the element ids of `ids` (table, filter, prev, next, info), `pageSize`
  // rows a page; `onRow(row, tr)` runs when a row is clicked. Returns the cell reader.
  function dataTable(data, shown, ids, pageSize, onRow) {
    const COL = Object.fromEntries(data.columns.map((c, i) => [c, i]));
    for (const [col, values] of Object.entries(data.lookups))  // codes back to their text
      data.data[COL[col]] = data.data[COL[col]].map((k) => values[k]);
    const N = data.data.length ? data.data[0].length : 0;
    const value = (row, col) => data.data[COL[col]][row];
    const element = (name) => document.getElementById(ids[name]);
    let order = Array.from({length: N}, (_, i) => i), view = order, page = 0, sortCol = null, sortDir = 1;
    // What the filter searches: each shown cell as the table shows it, and numbers as plain digits too
    const texts = [];
    const text = (row) => texts[row] ??= shown.map((c) => {
      const v = value(row, c);
      return typeof v === "number" ? `${fmt(c, v)} ${v}` : String(fmt(c, v));
    }).join(" ").toLowerCase();

    function header() {
      const tr = document.createElement("tr");
      for (const col of shown) {
        const th = document.createElement("th");
        th.textContent = data.headers?.[col] ?? col; th.dataset.col = col;
        if (col === sortCol) th.className = sortDir > 0 ? "sorted-asc" : "sorted-desc";
        th.addEventListener("click", () => sortBy(col));
        tr.appendChild(th);
      }
      element("table").querySelector("thead").replaceChildren(tr);
    }

    function body() {
      const pages = Math.max(1, Math.ceil(view.length / pageSize));
      page = Math.min(page, pages - 1);
      const rows = view.slice(page * pageSize, (page + 1) * pageSize).map((r) => {
        const tr = document.createElement("tr");
        tr.dataset.row = r;
        for (const col of shown) {
          const td = document.createElement("td"), v = value(r, col);
          td.textContent = fmt(col, v);
          if (typeof v === "string") td.className = "text";
          tr.appendChild(td);
        }
        if (onRow) tr.addEventListener("click", () => onRow(r, tr));
        return tr;
      });
      element("table").querySelector("tbody").replaceChildren(...rows);
      element("info").textContent =
        `page ${page + 1} of ${pages} · ${view.length.toLocaleString("en")} of ${N.toLocaleString("en")} rows`;
    }

    function sortBy(col) {
      sortDir = sortCol === col ? -sortDir : 1;
      sortCol = col;
      const c = data.data[COL[col]];
      const key = (v) => (v === null ? Infinity : v);
      order = order.slice().sort((a, b) => {
        const x = key(c[a]), y = key(c[b]);
        return (x < y ? -1 : x > y ? 1 : a - b) * sortDir;
      });
      applyFilter();
    }

    // A word matches when the row's text holds it; "col=value" matches one column exactly.
    function matcher(word) {
      const [col, want] = word.split("=", 2);
      if (want !== undefined && col in COL) return (r) => String(value(r, col)).toLowerCase() === want;
      return (r) => text(r).includes(word);
    }

    function applyFilter() {
      const tests = element("filter").value.toLowerCase().split(/\s+/).filter(Boolean).map(matcher);
      view = tests.length ? order.filter((r) => tests.every((t) => t(r))) : order;
      header(); body();
    }

    element("filter").addEventListener("input", () => { page = 0; applyFilter(); });
    element("prev").addEventListener("click", () => { page = Math.max(0, page - 1); body(); });
    element("next").addEventListener("click", () => { page += 1; body(); });
    applyFilter();
    return value;
  }

  const DATA = JSON.parse(document.getElementById("instance-data").textContent);
  const SHOWN = ["sweep", "instance", "algorithm", "heuristic", "status", "reason", "cost", "nodes", "ebf", "seconds", "h0"];
  const value = dataTable(DATA, SHOWN, {table: "instances", filter: "instance-filter", prev: "page-prev",
                                        next: "page-next", info: "page-info"}, 25, openReplay);
  const changes = document.getElementById("changes-data");
  if (changes) {
    const CHANGES = JSON.parse(changes.textContent);
    dataTable(CHANGES, CHANGES.columns, {table: "compare-changes", filter: "changes-filter", prev: "changes-prev",
                                         next: "changes-next", info: "changes-info"}, 100, null);
  }

  // --- replay -------------------------------------------------------------------------
  const STEP = {U: [-1, 0], D: [1, 0], L: [0, -1], R: [0, 1]};
  let replay = null, timer = null;

  function goalPlaces(goal) {
    const at = {};
    goal.forEach((t, i) => { at[t] = i; });
    return at;
  }

  function manhattan(tiles, n, at) {
    let h = 0;
    tiles.forEach((t, i) => { if (t) h += Math.abs(Math.floor(i / n) - Math.floor(at[t] / n)) + Math.abs(i % n - at[t] % n); });
    return h;
  }

  function misplaced(tiles, n, at) {
    return tiles.reduce((h, t, i) => h + (t && at[t] !== i ? 1 : 0), 0);
  }

  function lis(seq) {  // length of the longest strictly increasing subsequence
    const tails = [];
    for (const x of seq) {
      let lo = 0, hi = tails.length;
      while (lo < hi) { const mid = (lo + hi) >> 1; if (tails[mid] < x) lo = mid + 1; else hi = mid; }
      tails[lo] = x;
    }
    return tails.length;
  }

  function linearConflict(tiles, n, at) {
    let extra = 0;
    for (let line = 0; line < n; line++) {
      const row = [], col = [];
      for (let k = 0; k < n; k++) {
        const tr = tiles[line * n + k], tc = tiles[k * n + line];
        if (tr && Math.floor(at[tr] / n) === line) row.push(at[tr] % n);
        if (tc && at[tc] % n === line) col.push(Math.floor(at[tc] / n));
      }
      extra += 2 * (row.length - lis(row)) + 2 * (col.length - lis(col));
    }
    return manhattan(tiles, n, at) + extra;
  }

  const HEURISTICS = {manhattan: manhattan, misplaced: misplaced, "linear-conflict": linearConflict};

  function boardAt(step) {
    const tiles = replay.start.slice(), n = replay.n;
    let blank = tiles.indexOf(0);
    for (let k = 0; k < step; k++) {
      const [dr, dc] = STEP[replay.moves[k]];
      const next = blank + dr * n + dc;
      tiles[blank] = tiles[next]; tiles[next] = 0; blank = next;
    }
    return tiles;
  }

  function draw() {
    const {n, step, moves, h} = replay;
    const tiles = boardAt(step);
    const board = document.getElementById("replay-board");
    board.style.gridTemplateColumns = `repeat(${n}, 44px)`;
    board.replaceChildren(...tiles.map((t) => {
      const d = document.createElement("div");
      d.className = t ? "tile" : "tile blank";
      d.textContent = t ? t : "";
      return d;
    }));
    const atGoal = tiles.every((t, i) => t === replay.goal[i]);
    board.classList.toggle("goal", atGoal);
    board.dataset.tiles = tiles.join(" ");
    const parts = [`move ${step} of ${moves.length}`, step ? `last move ${moves[step - 1]}` : "start", `g = ${step}`];
    if (h) { const hv = h(tiles, n, replay.at); parts.push(`h = ${hv}`, `f = ${step + hv}`); }
    else parts.push(`h of ${replay.heuristic} is not computed in the page`);
    if (atGoal) parts.push("goal reached");
    const state = document.getElementById("replay-state");
    state.textContent = parts.join(" · ");
    state.dataset.step = step; state.dataset.goal = atGoal ? "yes" : "no";
  }

  function go(step) {
    replay.step = Math.max(0, Math.min(replay.moves.length, step));
    draw();
  }

  function stop() { if (timer) { clearInterval(timer); timer = null; } document.getElementById("replay-play").textContent = "play"; }

  function play() {
    if (timer) return stop();
    if (replay.step >= replay.moves.length) go(0);
    document.getElementById("replay-play").textContent = "pause";
    timer = setInterval(() => { go(replay.step + 1); if (replay.step >= replay.moves.length) stop(); }, 250);
  }

  function selectIteration(r) {  // show this instance in the IDA* iteration plot, when it is listed
    if (value(r, "algorithm") !== "idastar" || !window.Bokeh || !Bokeh.documents.length) return;
    const select = Bokeh.documents[0].get_model_by_name("iteration-instance");
    const key = `${value(r, "sweep")}:${value(r, "instance")}`;
    if (select && select.options.includes(key)) select.value = key;
  }

  function openReplay(r, tr) {
    stop();
    document.querySelectorAll("#instances tr.selected").forEach((x) => x.classList.remove("selected"));
    if (tr) tr.classList.add("selected");
    const goal = DATA.goals[value(r, "goal")], n = value(r, "size"), heuristic = value(r, "heuristic");
    replay = {row: r, n: n, goal: goal, at: goalPlaces(goal), heuristic: heuristic, h: HEURISTICS[heuristic] || null,
              start: DATA.boards[value(r, "board")].split(" ").map(Number), moves: value(r, "moves") || "", step: 0};
    document.getElementById("replay").hidden = false;
    document.getElementById("replay-title").textContent =
      `${value(r, "sweep")} · instance ${value(r, "instance")} · ${value(r, "algorithm")} ${heuristic} · ` +
      `${value(r, "status")}` + (value(r, "cost") === null ? "" : ` · cost ${value(r, "cost")}`) +
      (value(r, "h0") === null ? "" : ` · recorded h0 ${value(r, "h0")}`);
    const still = !replay.moves.length;  // a run that did not solve has no moves to play
    for (const id of ["replay-first", "replay-back", "replay-play", "replay-forward", "replay-last"])
      document.getElementById(id).disabled = still;
    draw();
    if (still) document.getElementById("replay-state").textContent =
      `no moves to replay: the run ended ${value(r, "status")}`;
    document.getElementById("replay").scrollIntoView({block: "nearest"});
    selectIteration(r);
  }

  document.getElementById("replay-first").addEventListener("click", () => { stop(); go(0); });
  document.getElementById("replay-back").addEventListener("click", () => { stop(); go(replay.step - 1); });
  document.getElementById("replay-forward").addEventListener("click", () => { stop(); go(replay.step + 1); });
  document.getElementById("replay-last").addEventListener("click", () => { stop(); go(replay.moves.length); });
  document.getElementById("replay-play").addEventListener("click", play);
})();
