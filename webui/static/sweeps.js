// The sweeps page: every sweep under --out, refreshed while any is unfinished.
"use strict";

function specText(spec) {
  if (!spec) return "–";
  return `${spec.size}x${spec.size} ${spec.goal}, ${spec.instances}, seed ${spec.seed}`;
}

function statusText(statuses) {
  return Object.entries(statuses).filter(([, n]) => n > 0).map(([s, n]) => `${s} ${fmtInt(n)}`).join(", ") || "–";
}

// A sweep that cannot be read: its name and why, on its own row among the others.
function damagedRow(s) {
  return el("tr", {class: "damaged", dataset: {name: s.name}},
    el("td", {}, el("a", {href: `/sweeps/${encodeURIComponent(s.name)}`}, s.name)),
    el("td", {colspan: 7}, runBadge(s), " ", el("span", {class: "problem"}, s.problem)));
}

function sweepRow(s) {
  if (s.problem) return damagedRow(s);
  const spec = s.spec;
  const runs = spec ? `${spec.algorithms.join(", ")} × ${spec.heuristics.join(", ")}` : "–";
  return el("tr", {dataset: {name: s.name, parts: s.parts, chunks: s.chunks ?? "", rows: s.rows}},
    el("td", {}, el("a", {href: `/sweeps/${encodeURIComponent(s.name)}`}, s.name)),
    el("td", {}, specText(spec)),
    el("td", {class: "num"}, spec ? fmtInt(spec.count) : "–"),
    el("td", {}, runs),
    el("td", {class: "progress"}, el("progress", {max: s.chunks || 1, value: s.parts}),
       ` ${s.parts} / ${s.chunks ?? "?"} parts `, runBadge(s)),
    el("td", {class: "num rows"}, `${fmtInt(s.rows)} / ${fmtInt(s.expected_rows)}`),
    el("td", {class: "statuses"}, statusText(s.statuses)),
    el("td", {}, fmtTime(s.updated)));
}

async function refresh() {
  try {
    const answer = await api("/api/sweeps");
    document.getElementById("out").textContent = answer.out;
    document.querySelector("#sweeps tbody").replaceChildren(...answer.sweeps.map(sweepRow));
    document.getElementById("empty").hidden = answer.sweeps.length > 0;
    document.getElementById("error").textContent = "";
  } catch (err) {
    document.getElementById("error").textContent = err.message;
  }
  document.body.dataset.ready = "true";
}

window.addEventListener("DOMContentLoaded", () => {
  refresh();
  setInterval(refresh, 2000);
});
