// The sliding-tile board in the page: moves named by the blank's direction (U, L, R, D),
// the same rules as tilesweep's solver; rendering as a grid of tiles.
"use strict";

const DELTAS = {U: [-1, 0], L: [0, -1], R: [0, 1], D: [1, 0]};
const ARROWS = {ArrowUp: "U", ArrowLeft: "L", ArrowRight: "R", ArrowDown: "D"};

// The cell the blank reaches by `move`, or -1 when it would leave the board.
function target(tiles, size, move) {
  const blank = tiles.indexOf(0);
  const [dr, dc] = DELTAS[move];
  const row = Math.floor(blank / size) + dr, col = (blank % size) + dc;
  return row < 0 || row >= size || col < 0 || col >= size ? -1 : row * size + col;
}

// The tiles after `move`, or null when the move is illegal.
function applyMove(tiles, size, move) {
  const cell = target(tiles, size, move);
  if (cell < 0) return null;
  const next = tiles.slice();
  next[tiles.indexOf(0)] = next[cell];
  next[cell] = 0;
  return next;
}

// The move that brings the blank onto `cell`, or null when `cell` is not next to it.
function moveTo(tiles, size, cell) {
  for (const move of Object.keys(DELTAS)) if (target(tiles, size, move) === cell) return move;
  return null;
}

function goalTiles(size, goal) {
  const n = size * size;
  const tiles = Array.from({length: n}, (_, i) => i);
  return goal === "blank-first" ? tiles : tiles.slice(1).concat([0]);
}

function sameTiles(a, b) {
  return a.length === b.length && a.every((t, i) => t === b[i]);
}

// Draw `tiles` into `container`; `onCell(cell)` is called when a tile is clicked.
function renderBoard(container, tiles, size, onCell) {
  container.replaceChildren();
  container.style.setProperty("--n", size);
  container.dataset.tiles = tiles.join(" ");
  tiles.forEach((tile, cell) => {
    const node = el("div", {class: tile === 0 ? "tile blank" : "tile",
                            dataset: {cell, tile}}, tile === 0 ? "" : tile);
    if (onCell) node.addEventListener("click", () => onCell(cell));
    container.append(node);
  });
}
