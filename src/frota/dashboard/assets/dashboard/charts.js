  // ===================================================================== 4. colours

  // Okabe-Ito: distinguishable under protanopia, deuteranopia and tritanopia.
  const MODE_COLORS = { bus: "#E69F00", brt: "#0072B2", rail: "#009E73", ferry: "#56B4E9", aircraft: "#CC79A7", other: "#7f7f7f" };
  const EXTRA_COLORS = ["#D55E00", "#F0E442", "#000000", "#999999"];
  function modeColor(m) {
    return MODE_COLORS[D.modes[m]] || EXTRA_COLORS[m % EXTRA_COLORS.length];
  }
  // Speed bands on the viridis ramp (dark = slow): ordered by lightness, so they also read in grey.
  const SPEED_BANDS = [
    { max: 10, color: "#440154", label: "< 10" },
    { max: 15, color: "#46327e", label: "10–15" },
    { max: 20, color: "#365c8d", label: "15–20" },
    { max: 25, color: "#277f8e", label: "20–25" },
    { max: 30, color: "#1fa187", label: "25–30" },
    { max: 40, color: "#4ac16d", label: "30–40" },
    { max: 60, color: "#a0da39", label: "40–60" },
    { max: Infinity, color: "#fde725", label: "≥ 60" },
  ];
  function speedColor(kmh) {
    for (const band of SPEED_BANDS) if (kmh < band.max) return band.color;
    return SPEED_BANDS[SPEED_BANDS.length - 1].color;
  }
  const TERMINAL_COLORS = { near: "#0072B2", away: "#D55E00", depot: "#7B3294", unknown: "#8c8c8c" };
  const REASON_COLORS = ["#D55E00", "#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#F0E442", "#000000", "#7f7f7f", "#a6761d", "#666666", "#1b9e77", "#e7298a", "#7570b3", "#66a61e", "#b3b3b3"];

  // ===================================================================== 5. tooltip, charts, tables

  let tooltip = null;
  function showTip(text, x, y) {
    if (!tooltip) return;
    tooltip.textContent = text;
    tooltip.hidden = false;
    const w = tooltip.offsetWidth;
    const hgt = tooltip.offsetHeight;
    let left = x + 14;
    let top = y + 14;
    if (left + w > window.innerWidth - 8) left = Math.max(8, x - w - 14);
    if (top + hgt > window.innerHeight - 8) top = Math.max(8, y - hgt - 14);
    tooltip.style.left = left + "px";
    tooltip.style.top = top + "px";
  }
  function hideTip() {
    if (tooltip) tooltip.hidden = true;
  }
  function tipAtElement(text, node) {
    const r = node.getBoundingClientRect();
    showTip(text, r.left + r.width / 2, r.top);
  }

  // A categorical chart (bars, stacked or side by side, or lines) over `labels`. Each category
  // is one focusable group: arrows move between them, Enter or a click selects (if onSelect).
  function chart(o) {
    const wrap = h("div", { class: "chart", "data-chart": o.id || "" });
    wrap._draw = (width) => drawChart(wrap, o, width);
    return wrap;
  }

  function drawChart(wrap, o, width) {
    clear(wrap);
    const height = o.height || 220;
    const n = o.labels.length;
    const m = { left: 52, right: 10, top: 12, bottom: 26 };
    const pw = Math.max(40, width - m.left - m.right);
    const ph = height - m.top - m.bottom;
    const kind = o.kind || "bar";
    const stacked = kind === "bar" && o.stacked !== false;
    let max = 0;
    for (let i = 0; i < n; i++) {
      let total = 0;
      for (const sr of o.series) {
        const v = sr.values[i];
        if (v === null || v === undefined || !isFinite(v)) continue;
        if (stacked) total += v;
        else max = Math.max(max, v);
      }
      if (stacked) max = Math.max(max, total);
    }
    if (o.yMin !== undefined) max = Math.max(max, o.yMin);
    const step = niceStep(max, 4);
    const top = max > 0 ? Math.ceil(max / step) * step : 1;
    const y = (v) => m.top + ph - (v / top) * ph;
    const band = pw / n;
    const svg = s("svg", { width: width, height: height, viewBox: "0 0 " + width + " " + height, role: "group", "aria-label": o.ariaLabel || "" });
    const axis = s("g", { class: "axis", "aria-hidden": "true" });
    for (let v = 0; v <= top + 1e-9; v += step) {
      const yy = y(v);
      axis.appendChild(s("line", { class: "gridline", x1: m.left, x2: m.left + pw, y1: yy, y2: yy }));
      axis.appendChild(s("text", { x: m.left - 6, y: yy + 4, "text-anchor": "end", text: o.yFormat ? o.yFormat(v) : nf(v, step < 1 ? 1 : 0) }));
    }
    axis.appendChild(s("line", { x1: m.left, x2: m.left + pw, y1: m.top + ph, y2: m.top + ph }));
    const every = Math.max(1, Math.ceil((o.labelWidth || 34) / band));
    for (let i = 0; i < n; i += every) {
      axis.appendChild(s("text", { x: m.left + band * (i + 0.5), y: height - 8, "text-anchor": "middle", text: o.labels[i] }));
    }
    svg.appendChild(axis);

    const groups = [];
    const selectable = typeof o.onSelect === "function";
    const focusIndex = o.selected !== null && o.selected !== undefined ? o.selected : 0;
    for (let i = 0; i < n; i++) {
      const x0 = m.left + band * i;
      const g = s("g", { class: "bar" + (o.selected !== null && o.selected !== undefined && o.selected !== i ? " dim" : ""), tabindex: i === focusIndex ? "0" : "-1", role: selectable ? "button" : "img", "data-fk": "bar:" + (o.id || "") + ":" + i });
      if (selectable) g.setAttribute("aria-pressed", o.selected === i ? "true" : "false");
      g.appendChild(s("rect", { class: "hit", x: x0, y: m.top, width: band, height: ph }));
      const parts = [];
      if (kind === "bar") {
        if (stacked) {
          let acc = 0;
          for (const sr of o.series) {
            const v = sr.values[i] || 0;
            if (v > 0) {
              g.appendChild(s("rect", { x: x0 + band * 0.14, width: Math.max(1, band * 0.72), y: y(acc + v), height: Math.max(0.5, y(acc) - y(acc + v)), fill: sr.color }));
            }
            acc += v;
          }
        } else {
          const k = o.series.length;
          const bw = (band * 0.8) / k;
          o.series.forEach((sr, j) => {
            const v = sr.values[i] || 0;
            if (v > 0) {
              const attrs = { x: x0 + band * 0.1 + j * bw, width: Math.max(1, bw - 1), y: y(v), height: Math.max(0.5, y(0) - y(v)), fill: sr.color };
              if (sr.outline) Object.assign(attrs, { fill: "#ffffff", stroke: sr.color, "stroke-width": 1.5 });
              g.appendChild(s("rect", attrs));
            }
          });
        }
      }
      for (const sr of o.series) {
        const v = sr.values[i];
        if (v === null || v === undefined || !isFinite(v)) continue;
        parts.push((o.series.length > 1 || sr.label ? sr.label + ": " : "") + (o.format ? o.format(v) : nf(v)));
      }
      const tip = o.labels[i] + (o.tipSuffix ? o.tipSuffix(i) : "") + "\n" + (parts.length ? parts.join("\n") : "–");
      g.setAttribute("aria-label", tip.replace(/\n/g, "; "));
      g.addEventListener("mouseenter", (e) => showTip(tip, e.clientX, e.clientY));
      g.addEventListener("mousemove", (e) => showTip(tip, e.clientX, e.clientY));
      g.addEventListener("mouseleave", hideTip);
      g.addEventListener("focus", () => tipAtElement(tip, g));
      g.addEventListener("blur", hideTip);
      if (selectable) g.addEventListener("click", () => o.onSelect(i));
      g.addEventListener("keydown", (e) => {
        let next = null;
        if (e.key === "ArrowRight") next = Math.min(n - 1, i + 1);
        else if (e.key === "ArrowLeft") next = Math.max(0, i - 1);
        else if (e.key === "Home") next = 0;
        else if (e.key === "End") next = n - 1;
        else if ((e.key === "Enter" || e.key === " ") && selectable) {
          e.preventDefault();
          o.onSelect(i);
          return;
        }
        if (next !== null) {
          e.preventDefault();
          g.setAttribute("tabindex", "-1");
          groups[next].setAttribute("tabindex", "0");
          groups[next].focus();
        }
      });
      groups.push(g);
      svg.appendChild(g);
    }
    if (kind === "line") {
      for (const sr of o.series) {
        let d = "";
        let pen = false;
        for (let i = 0; i < n; i++) {
          const v = sr.values[i];
          if (v === null || v === undefined || !isFinite(v)) {
            pen = false;
            continue;
          }
          d += (pen ? "L" : "M") + (m.left + band * (i + 0.5)).toFixed(1) + " " + y(v).toFixed(1);
          pen = true;
        }
        const line = s("path", { d: d, fill: "none", stroke: sr.color, "stroke-width": 2.5, "stroke-linejoin": "round", "pointer-events": "none" });
        if (sr.dash) line.setAttribute("stroke-dasharray", sr.dash);
        svg.appendChild(line);
        for (let i = 0; i < n; i++) {
          const v = sr.values[i];
          if (v === null || v === undefined || !isFinite(v)) continue;
          svg.appendChild(s("circle", { cx: m.left + band * (i + 0.5), cy: y(v), r: o.selected === i ? 5 : 3.2, fill: sr.color, stroke: "#fff", "stroke-width": 1, "pointer-events": "none" }));
        }
      }
    }
    if (o.threshold !== undefined) {
      const yy = y(o.threshold);
      svg.appendChild(s("line", { class: "marker", x1: m.left, x2: m.left + pw, y1: yy, y2: yy, "pointer-events": "none" }));
      svg.appendChild(s("text", { class: "marker-label", x: m.left + pw - 4, y: yy - 4, "text-anchor": "end", text: o.thresholdLabel || "" }));
    }
    for (const mark of o.markers || []) {
      const xx = m.left + band * mark.at;
      svg.appendChild(s("line", { class: "marker", x1: xx, x2: xx, y1: m.top, y2: m.top + ph, "pointer-events": "none" }));
      svg.appendChild(s("text", { class: "marker-label", x: xx + 4, y: m.top + 10 + (mark.row || 0) * 13, text: mark.label }));
    }
    wrap.appendChild(svg);
  }

  function legend(items, onClick, pressed) {
    const list = h("ul", { class: "legend" });
    for (const item of items) {
      const sw = h("span", { class: "swatch" + (item.round ? " round" : "") + (item.line ? " line" : ""), "aria-hidden": "true" });
      sw.style.background = item.color;
      if (item.outline) {
        sw.style.background = "#fff";
        sw.style.border = "2px solid " + item.color;
      }
      if (onClick) {
        list.appendChild(h("li", null, h("button", { type: "button", "data-fk": "legend:" + item.key, "aria-pressed": pressed === item.key ? "true" : "false", onclick: () => onClick(item.key) }, sw, item.label)));
      } else {
        list.appendChild(h("li", null, sw, item.label));
      }
    }
    return list;
  }
  function modeLegend(modes) {
    return legend(modes.map((m) => ({ key: m, color: modeColor(m), label: modeName(m) })), (m) => toggle("mode", m), S.mode);
  }

  const TABLE_SORT = {};
  // A sortable table. columns: {key, label, num, format(row), value(row)}; the `button`
  // column's cell is a button calling onRow(row).
  function dataTable(o) {
    const sort = TABLE_SORT[o.id] || o.sort || { key: o.columns[0].key, desc: false };
    const col = o.columns.find((c) => c.key === sort.key);
    const rows = o.rows.slice();
    const value = col && col.value ? col.value : (r) => r[sort.key];
    rows.sort((a, b) => {
      const va = value(a);
      const vb = value(b);
      let c;
      if (typeof va === "number" || typeof vb === "number") {
        const na = typeof va === "number" && isFinite(va) ? va : -Infinity;
        const nb = typeof vb === "number" && isFinite(vb) ? vb : -Infinity;
        c = na - nb;
      } else {
        c = String(va).localeCompare(String(vb), LANG, { numeric: true });
      }
      return sort.desc ? -c : c;
    });
    const shown = o.limit ? rows.slice(0, o.limit) : rows;
    const head = h("tr");
    for (const c of o.columns) {
      const active = c.key === sort.key;
      head.appendChild(
        h("th", { class: c.num ? "num" : null, scope: "col", "aria-sort": active ? (sort.desc ? "descending" : "ascending") : null },
          h("button", { type: "button", "data-fk": "sort:" + o.id + ":" + c.key, onclick: () => {
            TABLE_SORT[o.id] = { key: c.key, desc: active ? !sort.desc : !!c.num };
            render();
          } }, c.label, active ? (sort.desc ? " ▾" : " ▴") : "")));
    }
    const body = h("tbody");
    for (const r of shown) {
      const tr = h("tr", { class: o.selected && o.selected(r) ? "selected" : null });
      for (const c of o.columns) {
        const text = c.node ? "" : c.format ? c.format(r) : String(r[c.key]);
        if (c.node) {
          tr.appendChild(h("td", { class: c.num ? "num" : null }, c.node(r)));
        } else if (c.button && o.onRow) {
          const key = o.id + ":" + (o.rowKey ? o.rowKey(r) : text);
          tr.appendChild(h("td", { class: c.num ? "num" : null }, h("button", { type: "button", class: "rowbtn", "data-fk": key, onclick: () => o.onRow(r), "aria-pressed": o.selected && o.selected(r) ? "true" : "false" }, text)));
        } else {
          tr.appendChild(h("td", { class: (c.num ? "num" : "") + (c.muted && c.muted(r) ? " muted" : "") || null }, text));
        }
      }
      body.appendChild(tr);
    }
    return h("div", { class: "table-wrap", "data-table": o.id }, h("table", null, o.caption ? h("caption", { class: "visually-hidden", text: o.caption }) : null, h("thead", null, head), body));
  }

