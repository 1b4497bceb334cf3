"use strict";
// frota dashboard: hand-written, no libraries, no network. Everything the page shows comes
// from the JSON data block embedded by `frota dashboard` (docs/dashboard.md describes it).
//
// Safety rule for this file: data only ever reaches the page as text (textContent, element
// attributes, canvas). Never the HTML-parsing sinks (inner or outer HTML, adjacent HTML,
// document writes) nor code from strings; render_test.cc greps for them.
(function () {
  // ===================================================================== 0. utilities

  const HOURS = 24;
  const SLOW_KMH = 10;
  const MIN_SLOWEST_CELL_S = 600; // a cell must be observed ≥ 10 vehicle-minutes to be listed
  // A cell's mean speed from fewer segments than this is one or two vehicles' passing: it
  // is drawn hatched, not coloured like the rest (frota evaluate scores cells of 20 or more).
  const MIN_CELL_SEGMENTS = 5;
  const SVG_NS = "http://www.w3.org/2000/svg";

  function h(tag, attrs) {
    const node = document.createElement(tag);
    applyAttrs(node, attrs);
    for (let i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function s(tag, attrs) {
    const node = document.createElementNS(SVG_NS, tag);
    applyAttrs(node, attrs);
    for (let i = 2; i < arguments.length; i++) append(node, arguments[i]);
    return node;
  }
  function applyAttrs(node, attrs) {
    if (!attrs) return;
    for (const key of Object.keys(attrs)) {
      const value = attrs[key];
      if (value === undefined || value === null || value === false) continue;
      if (key === "text") node.textContent = String(value);
      else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
      else node.setAttribute(key, value === true ? "" : String(value));
    }
  }
  function append(node, child) {
    if (child === undefined || child === null || child === false) return;
    if (Array.isArray(child)) {
      for (const c of child) append(node, c);
    } else if (typeof child === "string" || typeof child === "number") {
      node.appendChild(document.createTextNode(String(child)));
    } else {
      node.appendChild(child);
    }
  }
  function clear(node) {
    while (node.firstChild) node.removeChild(node.firstChild);
  }
  function sum(values) {
    let total = 0;
    for (const v of values) total += v;
    return total;
  }
  function pad2(n) {
    return String(n).padStart(2, "0");
  }
  function niceStep(max, ticks) {
    if (!(max > 0)) return 1;
    const raw = max / ticks;
    const p = Math.pow(10, Math.floor(Math.log10(raw)));
    for (const m of [1, 2, 2.5, 5, 10]) if (raw <= m * p) return m * p;
    return 10 * p;
  }

