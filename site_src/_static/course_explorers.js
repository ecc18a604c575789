/* The explorers of chapters 05 and 07 on the website, without a kernel: every state the explorer can show was
 * computed when the chapter ran and stored in its output's metadata (helpers.widgets.SITE_STATES); the site puts
 * it in <div class="course-explorer" data-config="{...}"> (helpers/devtools/site.py, explorer_output).
 * config: {view: "bars" | "heatmap", dims: [{name, label, control: "range" | "select", options, value}],
 *          states: {"i,j,..": {weights: "w,w;w,w" (per mille), keys, queries, title, readout (HTML), so_far}}}
 * Each control picks one index per dim; the state of those indices is drawn (SVG) and its readout shown. The
 * readout's data-state names the state and data-weights holds its weights (tests/test_site.py compares them
 * with the Python side). */
(function () {
  "use strict";
  const SVG = "http://www.w3.org/2000/svg";
  // viridis (the course's attention colour map) at 0, 1/8, ..., 1
  const VIRIDIS = ["#440154", "#46327e", "#365c8d", "#277f8e", "#1fa187", "#4ac16d", "#a0da39", "#d5e21a", "#fde725"];

  function el(tag, attrs, parent, text) {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  function html(tag, attrs, parent, text) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
    if (text !== undefined) node.textContent = text;
    if (parent) parent.appendChild(node);
    return node;
  }

  const parse = (text) => (text === null || text === undefined ? null
    : text.split(";").map((row) => row.split(",").map((x) => +x / 1000)));

  function colour(w) {
    const x = Math.min(1, Math.max(0, w)) * 8, i = Math.min(7, Math.floor(x)), f = x - i;
    const a = VIRIDIS[i], b = VIRIDIS[i + 1];
    const mix = (k) => Math.round(parseInt(a.substr(k, 2), 16) * (1 - f) + parseInt(b.substr(k, 2), 16) * f);
    return `rgb(${mix(1)},${mix(3)},${mix(5)})`;
  }

  /* a heatmap of weights (rows: queries, columns: keys) on a fixed 0-1 scale, with token ticks and a title */
  function heatmap(svg, state, cfg) {
    const w = parse(state.weights);
    const keys = state.keys || [], queries = state.queries || [];
    const cell = Math.max(10, Math.min(26, Math.floor(520 / Math.max(1, keys.length))));
    const left = 12 + 7 * Math.max(4, ...queries.map((q) => String(q).length));
    const top = 46, bottom = 12 + 7 * Math.max(4, ...keys.map((k) => String(k).length));
    const width = left + cell * keys.length + 70, height = top + cell * queries.length + bottom + 18;
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    (state.title || "").split("\n").forEach((line, i) =>
      el("text", { x: left, y: 16 + 15 * i, "font-size": 13, "font-weight": "bold" }, svg, line));
    if (!w) return;
    w.forEach((row, i) => row.forEach((v, j) => {
      const rect = el("rect", { x: left + j * cell, y: top + i * cell, width: cell, height: cell, fill: colour(v) }, svg);
      el("title", {}, rect, `${queries[i]} → ${keys[j]}: ${v.toFixed(3)}`);
    }));
    queries.forEach((q, i) => el("text", { x: left - 4, y: top + i * cell + cell * 0.68, "text-anchor": "end",
                                          "font-size": 11 }, svg, q));
    keys.forEach((k, j) => {
      const x = left + j * cell + cell * 0.6, y = top + queries.length * cell + 6;
      el("text", { x, y, "font-size": 11, "text-anchor": "end", transform: `rotate(-60 ${x} ${y})` }, svg, k);
    });
    if (cfg.xlabel) el("text", { x: left + (cell * keys.length) / 2, y: height - 4, "text-anchor": "middle",
                                 "font-size": 11 }, svg, cfg.xlabel);
    // the 0-1 colour bar
    const bx = left + cell * keys.length + 16, bh = Math.max(60, cell * queries.length);
    for (let k = 0; k < 20; k++) el("rect", { x: bx, y: top + bh * (1 - (k + 1) / 20), width: 12, height: bh / 20 + 0.5,
                                             fill: colour((k + 0.5) / 20) }, svg);
    el("text", { x: bx + 16, y: top + 8, "font-size": 10 }, svg, "1");
    el("text", { x: bx + 16, y: top + bh, "font-size": 10 }, svg, "0");
  }

  /* bars of one step's weights over the source words, on a fixed 0-1 axis */
  function bars(svg, state, cfg) {
    const w = parse(state.weights)[0], keys = state.keys || [];
    const slot = Math.max(26, Math.min(60, Math.floor(560 / Math.max(1, keys.length))));
    const left = 40, top = 30, h = 150, bottom = 12 + 7 * Math.max(4, ...keys.map((k) => String(k).length));
    const width = left + slot * keys.length + 10, height = top + h + bottom + 22;
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    svg.setAttribute("width", width);
    svg.setAttribute("height", height);
    el("text", { x: left, y: 16, "font-size": 13, "font-weight": "bold" }, svg, state.title || "");
    [0, 0.5, 1].forEach((v) => {
      el("line", { x1: left, x2: left + slot * keys.length, y1: top + h * (1 - v), y2: top + h * (1 - v),
                   stroke: "#ccc" }, svg);
      el("text", { x: left - 5, y: top + h * (1 - v) + 4, "text-anchor": "end", "font-size": 10 }, svg, String(v));
    });
    w.forEach((v, j) => {
      el("rect", { x: left + j * slot + slot * 0.15, y: top + h * (1 - v), width: slot * 0.7, height: h * v,
                   fill: "#1f77b4" }, svg);
      const x = left + j * slot + slot * 0.55, y = top + h + 10;
      el("text", { x, y, "font-size": 11, "text-anchor": "end", transform: `rotate(-45 ${x} ${y})` }, svg, keys[j]);
    });
    if (cfg.ylabel) el("text", { x: 10, y: top + h / 2, "font-size": 10, "text-anchor": "middle",
                                 transform: `rotate(-90 10 ${top + h / 2})` }, svg, cfg.ylabel);
    if (state.so_far !== undefined) el("text", { x: left, y: height - 4, "font-size": 12 }, svg, "→ " + state.so_far);
  }

  function build(root) {
    const cfg = JSON.parse(root.dataset.config);
    const picked = cfg.dims.map((d) => d.value || 0);
    const controls = html("div", { class: "course-explorer-controls" }, root);
    const inputs = cfg.dims.map((dim, i) => {
      const row = html("label", { class: `course-explorer-row course-explorer-${dim.name}` }, controls);
      html("span", {}, row, dim.label);
      let input;
      if (dim.control === "range") {
        input = html("input", { type: "range", min: 0, max: dim.options.length - 1, step: 1, value: picked[i] }, row);
        input.disabled = dim.options.length < 2;
        const shown = html("output", {}, row, dim.options[picked[i]]);
        input.addEventListener("input", () => { shown.textContent = dim.options[+input.value]; });
      } else {
        input = html("select", {}, row);
        dim.options.forEach((label, k) => html("option", { value: k }, input, label));
        input.value = String(picked[i]);
      }
      input.addEventListener(dim.control === "range" ? "input" : "change", () => { picked[i] = +input.value; draw(); });
      return input;
    });
    const svg = el("svg", { role: "img", class: "course-explorer-picture" }, root);
    const readout = html("div", { class: "course-explorer-readout", role: "status", "aria-live": "polite" }, root);

    function draw() {
      const key = picked.join(",");
      const state = cfg.states[key];
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      if (!state) { readout.textContent = ""; return; }
      (cfg.view === "bars" ? bars : heatmap)(svg, state, cfg);
      svg.setAttribute("aria-label", (state.title || "").replace(/\n/g, " "));
      readout.innerHTML = state.readout || "";
      readout.dataset.state = key;
      readout.dataset.weights = JSON.stringify(parse(state.weights));
    }

    root.courseExplorer = { inputs, draw };
    draw();
    root.dataset.ready = "true";
  }

  function start() { document.querySelectorAll(".course-explorer").forEach(build); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
