/* The Q/K explorer of chapter 03, live in the browser (no kernel): the same arithmetic as
 * helpers.widgets.explorer_state, in float64. tests/test_site.py compares it with the Python function.
 * Each <div class="qk-live" data-config="{...}"> (written by helpers/devtools/site.py) becomes sliders,
 * a picture (SVG) and a readout whose data-weights holds the weights to 4 decimals and data-weights-full
 * at full precision. */
(function () {
  "use strict";

  /* scores, weights and context for ONE query: q (d), keys (n, d), values (n, d_v) */
  function qkState(q, keys, values, scale, temperature) {
    const d = q.length;
    const factor = (scale ? 1 / Math.sqrt(d) : 1) / temperature;
    const scores = keys.map((k) => k.reduce((s, kj, j) => s + kj * q[j], 0));
    const logits = scores.map((s) => s * factor);
    const top = Math.max(...logits);
    const exps = logits.map((l) => Math.exp(l - top));
    const total = exps.reduce((a, b) => a + b, 0);
    const weights = exps.map((e) => e / total);
    const context = values[0].map((_, j) => values.reduce((s, v, i) => s + weights[i] * v[j], 0));
    return { scores, factor, logits, weights, context };
  }

  const SVG = "http://www.w3.org/2000/svg";
  const SUB = "₀₁₂₃₄₅₆₇₈₉";
  const name = (p, i) => p + String(i + 1).split("").map((c) => SUB[+c]).join("");
  const COLOURS = { "tab:blue": "#1f77b4", "tab:orange": "#ff7f0e", "tab:green": "#2ca02c",
                    "tab:purple": "#9467bd", "tab:brown": "#8c564b", "tab:pink": "#e377c2" };

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

  function slider(parent, label, css, lo, hi, step, value, digits) {
    const row = html("label", { class: "qk-row " + css }, parent);
    const text = html("span", {}, row, label);
    const input = html("input", { type: "range", min: lo, max: hi, step: step, value: value }, row);
    const shown = html("output", {}, row, (+value).toFixed(digits));
    input.addEventListener("input", () => { shown.textContent = (+input.value).toFixed(digits); });
    return { input, text, shown, set(v) { input.value = v; shown.textContent = (+input.value).toFixed(digits); } };
  }

  function arrow(parent, colour, width) {
    const g = el("g", {}, parent);
    const line = el("line", { stroke: colour, "stroke-width": width, "stroke-linecap": "round" }, g);
    const head = el("polygon", { fill: colour }, g);
    return { g, line, head, width };
  }

  function drawArrow(a, x0, y0, x1, y1, width) {
    a.line.setAttribute("x1", x0); a.line.setAttribute("y1", y0);
    a.line.setAttribute("x2", x1); a.line.setAttribute("y2", y1);
    a.line.setAttribute("stroke-width", width);
    const dx = x1 - x0, dy = y1 - y0, len = Math.hypot(dx, dy) || 1, ux = dx / len, uy = dy / len, s = 6 + width * 1.5;
    a.head.setAttribute("points", [[x1, y1], [x1 - s * ux + 0.55 * s * uy, y1 - s * uy - 0.55 * s * ux],
                                   [x1 - s * ux - 0.55 * s * uy, y1 - s * uy + 0.55 * s * ux]].map((p) => p.join(",")).join(" "));
  }

  function build(root) {
    const cfg = JSON.parse(root.dataset.config);
    const L = cfg.labels, n = cfg.keys.length, lim = cfg.limit;
    const colours = cfg.colours.map((c) => COLOURS[c] || c);
    const keys = cfg.keys.map((k) => k.slice());
    let picked = 0;

    const controls = html("div", { class: "qk-controls" }, root);
    html("p", { class: "qk-h" }, controls, L.query);
    const qx = slider(controls, "Q x", "qk-q-x", -lim, lim, cfg.step, cfg.query[0], 1);
    const qy = slider(controls, "Q y", "qk-q-y", -lim, lim, cfg.step, cfg.query[1], 1);
    html("p", { class: "qk-h" }, controls, L.keys);
    const picker = html("div", { class: "qk-picker", role: "group", "aria-label": L.move_key }, controls);
    html("span", {}, picker, L.move_key + " ");
    const buttons = keys.map((_, i) => html("button", { type: "button", "aria-pressed": i === 0 }, picker, name("K", i)));
    const kx = slider(controls, name("K", 0) + " x", "qk-k-x", -lim, lim, cfg.step, keys[0][0], 1);
    const ky = slider(controls, name("K", 0) + " y", "qk-k-y", -lim, lim, cfg.step, keys[0][1], 1);
    html("p", { class: "qk-h" }, controls, "Softmax");
    const scaleRow = html("label", { class: "qk-scale" }, controls);
    const scale = html("input", { type: "checkbox" }, scaleRow);
    scale.checked = cfg.scale;
    html("span", {}, scaleRow, " " + L.divide_scores);
    const temp = slider(controls, L.temperature, "qk-temperature", 0.1, 3, 0.05, cfg.temperature, 2);
    const readout = html("div", { class: "qk-readout", role: "status", "aria-live": "polite" }, controls);

    // the picture: Q and the keys (left), raw scores and softmax weights (right)
    const W = 600, H = 300, P = 150;          // P: half-size of the vector panel
    const svg = el("svg", { viewBox: `0 0 ${W} ${H}`, width: W, height: H, role: "img",
                            "aria-label": "Q, keys, scores and weights" }, root);
    const sx = (x) => P + (x / (lim * 1.25)) * (P - 10), sy = (y) => P - (y / (lim * 1.25)) * (P - 10);
    el("line", { x1: 10, y1: P, x2: 2 * P - 10, y2: P, stroke: "#ddd" }, svg);
    el("line", { x1: P, y1: 10, x2: P, y2: 2 * P - 10, stroke: "#ddd" }, svg);
    const keyArrows = keys.map((_, i) => arrow(svg, colours[i % colours.length], 2));
    const keyLabels = keys.map((_, i) => el("text", { fill: colours[i % colours.length], "font-weight": "bold",
                                                      "font-size": 13, "text-anchor": "middle" }, svg, name("K", i)));
    const qArrow = arrow(svg, "#000", 3);
    const qLabel = el("text", { "font-weight": "bold", "font-size": 14, "text-anchor": "middle" }, svg, "Q");
    const bx = 2 * P + 30, bw = W - bx - 10, bh = 110, slot = bw / n;
    const panels = [{ top: 20, title: "Q·K", max: 2 * lim * lim * 1.1, signed: true },
                    { top: 165, title: L.weights + " (0-1)", max: 1.12, signed: false }];
    const bars = panels.map((p) => {
      el("text", { x: bx + bw / 2, y: p.top - 5, "text-anchor": "middle", "font-size": 12 }, svg, p.title);
      const base = p.signed ? p.top + bh / 2 : p.top + bh;
      el("line", { x1: bx, y1: base, x2: bx + bw, y2: base, stroke: "#888" }, svg);
      return keys.map((_, i) => ({
        rect: el("rect", { x: bx + i * slot + slot * 0.2, width: slot * 0.6, fill: colours[i % colours.length] }, svg),
        text: el("text", { x: bx + i * slot + slot / 2, "text-anchor": "middle", "font-size": 11 }, svg),
        base, p,
      }));
    });
    keys.forEach((_, i) => el("text", { x: bx + i * slot + slot / 2, y: H - 5, "text-anchor": "middle",
                                         "font-size": 12, fill: colours[i % colours.length] }, svg, name("K", i)));

    function label(v, side) {
      const norm = Math.hypot(v[0], v[1]);
      if (norm < 1e-9) return [0.12 * lim, -0.12 * lim * side];
      const u = [v[0] / norm, v[1] / norm], nrm = [-u[1] * side, u[0] * side];
      return [v[0] + 0.1 * lim * u[0] + 0.09 * lim * nrm[0], v[1] + 0.1 * lim * u[1] + 0.09 * lim * nrm[1]];
    }

    function refresh() {
      const q = [+qx.input.value, +qy.input.value];
      const st = qkState(q, keys, cfg.values, scale.checked, +temp.input.value);
      keys.forEach((k, i) => {
        drawArrow(keyArrows[i], sx(0), sy(0), sx(k[0]), sy(k[1]), i === picked ? 4 : 2);
        const [lx, ly] = label(k, 1);
        keyLabels[i].setAttribute("x", sx(lx)); keyLabels[i].setAttribute("y", sy(ly) + 4);
      });
      drawArrow(qArrow, sx(0), sy(0), sx(q[0]), sy(q[1]), 3);
      const [lx, ly] = label(q, -1);
      qLabel.setAttribute("x", sx(lx)); qLabel.setAttribute("y", sy(ly) + 5);
      [st.scores, st.weights].forEach((vals, b) => bars[b].forEach((bar, i) => {
        const h = (vals[i] / bar.p.max) * (bar.p.signed ? bh / 2 : bh);
        bar.rect.setAttribute("y", Math.min(bar.base, bar.base - h));
        bar.rect.setAttribute("height", Math.abs(h));
        bar.text.setAttribute("y", h >= 0 ? bar.base - h - 3 : bar.base - h + 11);
        bar.text.textContent = vals[i].toFixed(b === 0 ? 2 : 4);
      }));
      readout.dataset.weights = st.weights.map((w) => w.toFixed(4)).join(" ");
      readout.dataset.weightsFull = JSON.stringify(st.weights);
      readout.dataset.context = JSON.stringify(st.context);
      readout.textContent = `${L.weights}: ` + st.weights.map((w, i) => `${name("K", i)} ${w.toFixed(4)}`).join("  ")
        + `\n${L.context}: [${st.context.map((c) => c.toFixed(4)).join(", ")}]`;
    }

    function pick(i) {
      picked = i;
      buttons.forEach((b, j) => b.setAttribute("aria-pressed", j === i));
      kx.text.textContent = name("K", i) + " x"; ky.text.textContent = name("K", i) + " y";
      kx.set(keys[i][0]); ky.set(keys[i][1]);
      refresh();
    }

    buttons.forEach((b, i) => b.addEventListener("click", () => pick(i)));
    [qx, qy, temp].forEach((s) => s.input.addEventListener("input", refresh));
    [kx, ky].forEach((s) => s.input.addEventListener("input", () => {
      keys[picked] = [+kx.input.value, +ky.input.value];
      refresh();
    }));
    scale.addEventListener("change", refresh);
    readout.style.whiteSpace = "pre-wrap";
    refresh();
    root.dataset.ready = "true";
  }

  window.courseQK = { qkState };
  function start() { document.querySelectorAll(".qk-live").forEach(build); }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
