// One sweep: progress read from its folder, summary table, report link, Parquet files.
"use strict";

const NAME = decodeURIComponent(location.pathname.split("/").filter(Boolean).pop());
let timer = null;

// Text columns (the keys) first, then what a baseline adds, so choosing one shows it in view.
function columnOrder(rows, baselineColumns) {
  const columns = Object.keys(rows[0]);
  const text = columns.filter((c) => rows.some((row) => typeof row[c] === "string"));
  const added = baselineColumns.filter((c) => columns.includes(c));
  return [...text, ...added, ...columns.filter((c) => !text.includes(c) && !added.includes(c))];
}

function summaryTable(rows, baselineColumns = []) {
  const table = document.getElementById("summary");
  if (!rows.length) {
    table.tHead.replaceChildren();
    table.tBodies[0].replaceChildren(el("tr", {}, el("td", {}, "no rows yet")));
    return;
  }
  const columns = columnOrder(rows, baselineColumns);
  // text columns (algorithm, heuristic, pruning, ...) are the ones whose values are strings
  const isText = Object.fromEntries(columns.map((c) => [c, rows.some((row) => typeof row[c] === "string")]));
  const kind = (c) => (isText[c] ? "" : "num") + (baselineColumns.includes(c) ? " baseline" : "");
  table.tHead.replaceChildren(el("tr", {}, columns.map((c) => el("th", {class: kind(c)}, c))));
  table.tBodies[0].replaceChildren(...rows.map((row) => el("tr", {},
    columns.map((c) => el("td", {class: kind(c), dataset: {column: c, value: row[c] ?? ""}},
                          isText[c] ? row[c] : fmtNum(row[c]))))));
}

// The server sends only such addresses (jobs/lock.py); a page never links anything else from a file.
function loopbackHttp(address) {
  try {
    const url = new URL(address);
    return ["http:", "https:"].includes(url.protocol) && !url.username && !url.password &&
      (url.hostname === "localhost" || url.hostname === "[::1]" || /^127\.\d+\.\d+\.\d+$/.test(url.hostname));
  } catch {
    return false;
  }
}

function links(sweep) {
  const holder = document.getElementById("links");
  holder.replaceChildren();
  if (sweep.dashboard && loopbackHttp(sweep.dashboard)) {
    holder.append(el("a", {href: sweep.dashboard, id: "dashboard", target: "_blank", rel: "noopener"},
                     "Dask dashboard (while the sweep runs)"), " · ");
  }
  if (sweep.report) holder.append(el("a", {href: sweep.report, id: "report"}, "HTML report"), " · ");
  holder.append(el("a", {href: `/api/sweeps/${encodeURIComponent(NAME)}/results.parquet`, id: "download"},
                   "download all rows (one Parquet file)"));
  document.getElementById("files").replaceChildren(...sweep.files.map((f) =>
    el("li", {}, el("a", {href: f.url}, f.name), ` (${fmtInt(f.bytes)} bytes)`)));
}

function baselines(heuristics) {
  const select = document.getElementById("baseline");
  if (select.options.length > 1) return;
  select.append(...heuristics.map((h) => el("option", {value: h}, h)));
}

async function refresh() {
  const baseline = document.getElementById("baseline").value;
  const query = baseline ? `?${new URLSearchParams({baseline})}` : "";
  try {
    const sweep = await api(`/api/sweeps/${encodeURIComponent(NAME)}${query}`);
    document.getElementById("name").textContent = sweep.name;
    const progress = document.getElementById("progress");
    progress.max = sweep.chunks || 1;
    progress.value = sweep.parts;
    document.getElementById("progress-text").textContent =
      `${sweep.parts} / ${sweep.chunks ?? "?"} parts, ${fmtInt(sweep.rows)} / ${fmtInt(sweep.expected_rows)} rows`;
    document.getElementById("progress-text").dataset.parts = sweep.parts;
    document.getElementById("badge").replaceChildren(sweep.problem
      ? el("span", {class: "badge problem"}, sweep.problem) : runBadge(sweep, true));
    document.getElementById("statuses").textContent = "Statuses: " + Object.entries(sweep.statuses)
      .map(([s, n]) => `${s} ${fmtInt(n)}`).join(" · ");
    const resume = document.getElementById("resume");
    resume.hidden = !sweep.resume;
    resume.querySelector("code").textContent = sweep.resume || "";
    document.getElementById("spec").textContent = sweep.spec ? sweep.spec.command : "";
    baselines(sweep.heuristics);
    summaryTable(sweep.summary, sweep.baseline_columns);
    links(sweep);
    document.getElementById("error").textContent = "";
    if (sweep.complete && timer) { clearInterval(timer); timer = null; }
  } catch (err) {
    document.getElementById("error").textContent = err.message;
  }
  document.body.dataset.ready = "true";
}

window.addEventListener("DOMContentLoaded", () => {
  document.getElementById("baseline").addEventListener("change", refresh);
  refresh();
  timer = setInterval(refresh, 1500);
});
