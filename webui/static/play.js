// The play-and-solve page: a board to move by clicks and arrow keys, shuffles, pasted
// boards, and solve cards that compare algorithms side by side and replay their moves.
"use strict";

const $ = (id) => document.getElementById(id);
const state = {size: 3, goal: "blank-last", tiles: goalTiles(3, "blank-last"), moves: "",
               check: null, options: null, ready: false};

// --- the main board -------------------------------------------------------------------

function drawMain() {
  renderBoard($("board"), state.tiles, state.size, onCell);
  $("move-count").textContent = state.moves.length;
  $("move-log").textContent = state.moves;
  const solved = sameTiles(state.tiles, goalTiles(state.size, state.goal));
  $("board").classList.toggle("at-goal", solved);
  if (state.check && state.check.solvable) {
    $("board-status").textContent = solved ? "At the goal." : "Solvable.";
  }
}

function move(letter) {
  const next = applyMove(state.tiles, state.size, letter);
  if (!next) return;  // off the board: nothing happens
  state.tiles = next;
  state.moves += letter;
  drawMain();
  showH();
}

// The heuristic chosen for solving, as the solve request names it.
function chosenHeuristic() {
  return $("heuristic-text").value.trim() || $("heuristic").value;
}

// h of the board under the chosen heuristic, computed by the server's kernels.
async function showH() {
  const heuristic = chosenHeuristic(), tiles = state.tiles.slice();
  // a size switch asks for its options before it sets the new board: wait for the board
  if (!heuristic || tiles.length !== state.size * state.size) return;
  try {
    const answer = await postJson("/api/board", {tiles: tiles.join(" "), size: state.size, goal: state.goal, heuristic});
    if (!sameTiles(tiles, state.tiles) || heuristic !== chosenHeuristic()) return;  // moved on meanwhile
    const line = $("board-h");
    line.dataset.h = answer.h ?? "";
    line.textContent = answer.h === null ? `h (${heuristic}): ${answer.h_note}` : `h (${heuristic}) = ${answer.h}`;
  } catch (err) {
    $("board-h").textContent = "";
  }
}

// Until the server's kernels are warm: say so, and ask again.
async function watchServer() {
  try {
    const status = await api("/api/status");
    state.ready = status.ready;
  } catch (err) {
    state.ready = false;
  }
  const line = $("server-state");
  line.classList.toggle("ready", state.ready);
  line.dataset.ready = state.ready;
  if (state.ready) {
    line.textContent = "";
    showH();
    return;
  }
  line.textContent = "Warming up: the server is compiling the solver's kernels (the first start takes a minute or two; later starts load them in seconds). Solves wait for it.";
  setTimeout(watchServer, 500);
}

function onCell(cell) {
  const letter = moveTo(state.tiles, state.size, cell);
  if (letter) move(letter);  // a tile not next to the blank does not move
}

// Set a new board and ask the server whether it can reach the goal (parity, no search).
async function setBoard(tiles) {
  state.tiles = tiles;
  state.moves = "";
  state.check = null;
  $("board-error").textContent = "";
  $("board-reason").textContent = "";
  $("board-status").textContent = "checking…";
  drawMain();
  try {
    state.check = await postJson("/api/board", {tiles: tiles.join(" "), size: state.size, goal: state.goal});
    const status = $("board-status");
    status.classList.toggle("error", !state.check.solvable);
    status.textContent = state.check.solvable ? "Solvable." : "Unsolvable.";
    $("board-reason").textContent = state.check.solvable ? "" : `${capitalise(state.check.reason)}.`;
    drawMain();
    showH();
  } catch (err) {
    $("board-error").textContent = err.message;
  }
}

async function changeSize() {
  state.size = Number($("size").value);
  state.goal = $("goal").value;
  await loadOptions();
  await setBoard(goalTiles(state.size, state.goal));
}

async function shuffle(walk) {
  const query = new URLSearchParams({size: state.size, goal: state.goal});
  if (walk !== undefined) query.set("walk", walk);
  try {
    const answer = await api(`/api/shuffle?${query}`);
    await setBoard(answer.tiles);
  } catch (err) {
    $("board-error").textContent = err.message;
  }
}

async function pasteBoard(event) {
  event.preventDefault();
  const text = $("tiles-input").value;
  try {
    const answer = await postJson("/api/board", {tiles: text, goal: state.goal});
    if (answer.size !== state.size) {
      state.size = answer.size;
      $("size").value = String(answer.size);
      await loadOptions();
    }
    await setBoard(answer.tiles);
  } catch (err) {
    $("board-error").textContent = err.message;
  }
}

function onKey(event) {
  const tag = event.target.tagName;
  if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
  const letter = ARROWS[event.key];
  if (letter) {
    event.preventDefault();
    move(letter);
  }
}

// --- algorithms and heuristics ----------------------------------------------------------

async function loadOptions() {
  const query = new URLSearchParams({size: state.size, goal: state.goal});
  state.options = await api(`/api/options?${query}`);
  const algorithm = $("algorithm"), heuristic = $("heuristic");
  const keepA = algorithm.value, keepH = heuristic.value;
  algorithm.replaceChildren(...state.options.algorithms.map((a) => el("option", {value: a}, a)));
  heuristic.replaceChildren(...state.options.heuristics.map((h) =>
    el("option", {value: h.name, dataset: {available: h.available}},
       h.available ? h.name : `${h.name} (not built)`)));
  if (state.options.algorithms.includes(keepA)) algorithm.value = keepA;
  if (state.options.heuristics.some((h) => h.name === keepH)) heuristic.value = keepH;
  $("max-nodes").placeholder = fmtInt(state.options.max_nodes);
  $("max-nodes").max = state.options.max_nodes;
  $("time-limit").placeholder = state.options.time_limit;
  $("time-limit").max = $("cpu-time-limit").max = state.options.time_limit;
  $("caps").textContent = `Empty fields use this server's caps: ${fmtInt(state.options.max_nodes)} nodes and ` +
    `${state.options.time_limit} s per solve; lower values may be typed in (tilesweep ui --max-nodes and --time-limit ` +
    "set the caps). A CPU time limit, up to the same cap, counts only the solve's own CPU seconds, whatever the " +
    "machine's load, and replaces the time limit.";
  noteHeuristic();
}

const UNINFORMED = ["bfs", "dfs"];

function noteHeuristic() {
  const uninformed = UNINFORMED.includes($("algorithm").value);
  $("heuristic").disabled = $("heuristic-text").disabled = uninformed;
  const chosen = (state.options?.heuristics || []).find((h) => h.name === $("heuristic").value);
  $("heuristic-note").textContent = !uninformed && chosen && !chosen.available ? chosen.why : "";
  showH();
}

// What stopped a search, in words; the statuses themselves come from the library.
function statusText(r) {
  if (r.status === "budget_exceeded" && r.status_reason === "nodes") {
    const cap = state.options.max_nodes;
    return `stopped by the node budget (${fmtInt(r.max_nodes)} nodes); ` + (r.max_nodes < cap
      ? `the node budget above may go up to ${fmtInt(cap)}`
      : "this server's cap: start tilesweep ui with a larger --max-nodes");
  }
  if (r.status === "budget_exceeded" && r.status_reason === "memory") return "stopped by the memory budget";
  if (r.status === "timeout") {
    const limit = r.cpu_time_limit != null ? `CPU time limit (${r.cpu_time_limit} s of CPU)` : `time limit (${r.time_limit} s)`;
    return (r.status_reason === "late" ? "solved past the " : "stopped by the ") + limit;
  }
  return r.status.replaceAll("_", " ") + (r.status_reason ? ` (${r.status_reason})` : "");
}

function capitalise(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

// --- solve cards ------------------------------------------------------------------------

const ALGORITHM_NAMES = {astar: "A*", idastar: "IDA*", bfs: "BFS", dfs: "DFS"};

function solve() {
  const request = {tiles: state.tiles.join(" "), size: state.size, goal: state.goal,
                   algorithm: $("algorithm").value,
                   heuristic: chosenHeuristic(), ticket: `t${Date.now()}-${Math.random().toString(36).slice(2, 10)}`};
  if ($("max-nodes").value) request.max_nodes = Number($("max-nodes").value);
  if ($("time-limit").value) request.time_limit = Number($("time-limit").value);
  if ($("cpu-time-limit").value) request.cpu_time_limit = Number($("cpu-time-limit").value);
  if ($("conventions").value.trim()) request.conventions = $("conventions").value.trim();
  const card = new SolveCard(request, state.tiles.slice());
  $("results").prepend(card.node);
  if (state.check && !state.check.solvable) {
    card.unsolvable(state.check.reason);  // decided by parity: no search is run
  } else {
    card.run();
  }
}

class SolveCard {
  constructor(request, tiles) {
    this.request = request;
    this.start = tiles;
    this.controller = new AbortController();
    const title = UNINFORMED.includes(request.algorithm)
      ? ALGORITHM_NAMES[request.algorithm]
      : `${ALGORITHM_NAMES[request.algorithm]} · ${request.heuristic}`;
    this.optimal = state.options.optimal.includes(request.algorithm);
    this.status = el("p", {class: "card-status"}, state.ready ? "sent…" : "waiting for the kernels to compile…");
    this.cancel = el("button", {class: "cancel", onclick: () => this.controller.abort()}, "Cancel");
    this.body = el("div", {class: "card-body"});
    this.node = el("article", {class: "card running", dataset: {algorithm: request.algorithm,
                                                               heuristic: request.heuristic}},
      el("header", {}, el("h3", {}, title, this.optimal ? null : el("span", {class: "not-optimal"}, " · not optimal")),
         el("button", {class: "close", title: "Remove", onclick: () => this.remove()}, "×")),
      el("p", {class: "card-board"}, `${tiles.join(" ")} → ${request.goal}`),
      this.status, this.cancel, this.body);
  }

  remove() {
    this.controller.abort();
    clearTimeout(this.poll);
    clearInterval(this.timer);
    this.node.remove();
  }

  async run() {
    const started = performance.now();
    this.follow();
    try {
      this.show(await postJson("/api/solve", this.request, this.controller.signal));
    } catch (err) {
      const cancelled = err.name === "AbortError";
      this.finish(cancelled ? "cancelled" : "error",
                  cancelled ? `cancelled after ${((performance.now() - started) / 1000).toFixed(1)} s`
                            : err.message);
    }
  }

  // Where the solve stands on the server (waiting for the kernels, queued, solving) until it ends.
  async follow() {
    if (this.node.dataset.status) return;
    try {
      const answer = await api(`/api/status?${new URLSearchParams({ticket: this.request.ticket})}`);
      if (this.node.dataset.status) return;
      const text = {warming: "waiting for the kernels to compile (first start only)…",
                    queued: `queued: ${answer.ahead} waiting ahead, all ${answer.solvers} solvers busy…`,
                    solving: "solving…"}[answer.state];
      if (text) {
        this.node.dataset.state = answer.state;
        this.node.classList.toggle("queued", answer.state !== "solving");
        this.status.textContent = text;
      }
    } catch (err) { /* the solve's own answer reports errors */ }
    this.poll = setTimeout(() => this.follow(), 300);
  }

  finish(status, text) {
    clearTimeout(this.poll);
    this.node.classList.remove("running", "queued");
    this.node.dataset.status = status;
    this.status.textContent = text;
    this.status.classList.toggle("error", !["solved"].includes(status));
    this.cancel.remove();
  }

  unsolvable(reason) {
    this.finish("unsolvable", "unsolvable: no search was run");
    this.body.append(el("p", {class: "reason"}, `${capitalise(reason)}.`));
  }

  show(r) {
    if (r.status === "unsolvable") return this.unsolvable(r.reason);
    this.finish(r.status, statusText(r) + (r.status === "solved" && !this.optimal
      ? `: not optimal (${ALGORITHM_NAMES[r.algorithm]} returns the first path it finds, not a shortest)` : ""));
    Object.assign(this.node.dataset, {cost: r.cost ?? "", generated: r.nodes_generated});
    const rows = [["cost", fmtInt(r.cost), "cost"], ["nodes generated", fmtInt(r.nodes_generated), "generated"],
                  ["nodes expanded", fmtInt(r.nodes_expanded), "expanded"], ["EBF", fmtNum(r.ebf), "ebf"],
                  ["h0", fmtInt(r.h0), "h0"], ["search CPU time", fmtSeconds(r.cpu_seconds), "cpu-seconds"],
                  ["search wall time", fmtSeconds(r.seconds), "seconds"]]
      .filter(([label]) => label !== "h0" || !UNINFORMED.includes(r.algorithm));  // BFS and DFS read no heuristic
    if (r.max_depth !== null && r.max_depth !== undefined) rows.push(["max depth", fmtInt(r.max_depth), "max-depth"]);
    if (r.conventions && r.conventions !== "korf") rows.push(["conventions", r.conventions, "conventions"]);
    // a plugin heuristic: the sha256 of its source (the heuristic_version of a sweep's rows)
    if (r.heuristic_version) rows.push(["heuristic version", r.heuristic_version.slice(0, 12), "heuristic-version"]);
    this.body.append(el("table", {class: "figures"},
      rows.map(([label, value, key]) => el("tr", {}, el("th", {}, label), el("td", {class: `r-${key}`}, value)))));
    if (r.iterations && r.iterations.length) this.body.append(iterationTable(r.iterations));
    if (r.status === "solved") this.player(r.moves || "", r.h_path, r.heuristic);
  }

  // The solution replayed on the card's own board: play / pause / step / speed.
  player(moves, hPath, heuristic) {
    this.moves = moves;
    this.hPath = hPath;  // h of each board along the solution (informed searches)
    this.stepH = el("span", {class: "step-h"});
    this.step = 0;
    this.tiles = null;
    this.board = el("div", {class: "board small"});
    this.counter = el("span", {class: "counter"});
    this.play = el("button", {class: "play", onclick: () => this.toggle()}, "Play");
    const speed = el("input", {type: "range", min: "1", max: "200", value: "4", class: "speed",
                               title: "moves per second"});
    speed.addEventListener("input", () => { if (this.timer) { this.pause(); this.toggle(); } });
    this.speed = speed;
    this.body.append(
      el("p", {class: "moves solution"}, moves || "(already at the goal)"),
      this.board,
      el("div", {class: "player"},
         el("button", {class: "start", title: "back to the start", onclick: () => { this.pause(); this.seek(0); }}, "|◀"),
         el("button", {class: "back", title: "step back", onclick: () => { this.pause(); this.seek(this.step - 1); }}, "◀"),
         this.play,
         el("button", {class: "forward", title: "step forward", onclick: () => { this.pause(); this.seek(this.step + 1); }}, "▶"),
         el("button", {class: "end", title: "jump to the end", onclick: () => { this.pause(); this.seek(this.moves.length); }}, "▶|"),
         el("label", {}, "speed ", speed), this.counter), this.stepH);
    this.hName = heuristic;
    this.seek(0);
  }

  seek(step) {
    step = Math.max(0, Math.min(this.moves.length, step));
    if (step === this.step + 1 && this.tiles) {  // playing: one move, not a replay from the start
      this.tiles = applyMove(this.tiles, this.request.size, this.moves[this.step]);
    } else {
      this.tiles = this.start;
      for (const letter of this.moves.slice(0, step)) this.tiles = applyMove(this.tiles, this.request.size, letter);
    }
    this.step = step;
    renderBoard(this.board, this.tiles, this.request.size);
    this.board.classList.toggle("at-goal", this.step === this.moves.length);
    this.counter.textContent = `${this.step} / ${this.moves.length}`;
    const h = this.hPath ? this.hPath[this.step] : null;
    Object.assign(this.stepH.dataset, {g: this.step, h: h ?? "", f: h === null ? "" : this.step + h});
    this.stepH.textContent = h === null ? `g = ${this.step}`
      : `g = ${this.step} · h = ${h} · f = ${this.step + h} (${this.hName})`;
  }

  toggle() {
    if (this.timer) return this.pause();
    if (this.step >= this.moves.length) this.seek(0);
    this.play.textContent = "Pause";
    this.timer = setInterval(() => {
      this.seek(this.step + 1);
      if (this.step >= this.moves.length) this.pause();
    }, 1000 / Number(this.speed.value));
  }

  pause() {
    clearInterval(this.timer);
    this.timer = null;
    this.play.textContent = "Play";
  }
}

function iterationTable(iterations) {
  return el("details", {class: "iterations", open: iterations.length <= 12 ? "" : null},
    el("summary", {}, `${iterations.length} IDA* iterations`),
    el("table", {},
       el("tr", {}, el("th", {}, "#"), el("th", {}, "bound"), el("th", {}, "nodes generated")),
       iterations.map((it, i) => el("tr", {}, el("td", {}, i + 1), el("td", {}, it.bound),
                                    el("td", {class: "num"}, fmtInt(it.nodes_generated))))));
}

// --- wiring -----------------------------------------------------------------------------

window.addEventListener("DOMContentLoaded", async () => {
  $("size").addEventListener("change", changeSize);
  $("goal").addEventListener("change", changeSize);
  $("reset").addEventListener("click", () => setBoard(goalTiles(state.size, state.goal)));
  $("shuffle").addEventListener("click", () => shuffle());
  $("walk").addEventListener("click", () => shuffle($("walk-k").value));
  $("paste-form").addEventListener("submit", pasteBoard);
  $("algorithm").addEventListener("change", noteHeuristic);
  $("heuristic").addEventListener("change", noteHeuristic);
  $("heuristic-text").addEventListener("change", showH);
  $("solve").addEventListener("click", solve);
  $("clear").addEventListener("click", () => $("results").replaceChildren());
  document.addEventListener("keydown", onKey);
  await changeSize();
  watchServer();
  document.body.dataset.ready = "true";
});
