// Shared helpers of the tilesweep pages: JSON requests, element building, number formats.
"use strict";

// fetch() a JSON endpoint; a non-2xx answer throws its one-line message ("error: ...").
async function api(path, options = {}) {
  const response = await fetch(path, options);
  if (!response.ok) {
    const text = (await response.text()).trim();
    throw new Error(text || `HTTP ${response.status}`);
  }
  return response.json();
}

// The extra header marks the request as the page's own: another site's page cannot send it
// (nor this content type) without a CORS preflight, which this server never approves.
function postJson(path, body, signal) {
  return api(path, {method: "POST", headers: {"Content-Type": "application/json", "X-Tilesweep-Page": "1"},
                    body: JSON.stringify(body), signal});
}

// el("td", {class: "num", dataset: {value: 3}}, "3") builds an element.
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null) continue;
    if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value);
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function fmtInt(value) {
  return value === null || value === undefined ? "–" : Number(value).toLocaleString("en-US");
}

function fmtNum(value, digits = 4) {
  if (value === null || value === undefined || Number.isNaN(value)) return "–";
  // as `tilesweep summary` prints: 4 significant digits below 10,000, whole numbers above
  if (Math.abs(value) >= 1e4) return Math.round(value).toLocaleString("en-US");
  return Number(value.toPrecision(digits)).toLocaleString("en-US", {maximumFractionDigits: 20});
}

function fmtSeconds(value) {
  if (value === null || value === undefined) return "–";
  return value < 1 ? `${(value * 1000).toPrecision(3)} ms` : `${value.toPrecision(3)} s`;
}

function fmtTime(epochSeconds) {
  return epochSeconds ? new Date(epochSeconds * 1000).toLocaleString() : "–";
}

// A sweep's state as `tilesweep status` says it, with when its last part was written.
const RUN_BADGES = {finished: "complete", running: "running", interrupted: "stopped", cancelled: "stopped",
                    planned: "running", damaged: "problem"};

function runBadge(sweep, withTime = false) {
  const when = withTime && sweep.run !== "finished" ? ` (updated ${fmtTime(sweep.updated)})` : "";
  return el("span", {class: `badge ${RUN_BADGES[sweep.run] || "running"}`, title: sweep.problem || "",
                     dataset: {run: sweep.run}}, sweep.run + when);
}
