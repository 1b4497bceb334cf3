  // ===================================================================== 10. the shell

  function filterSummary() {
    const parts = [];
    if (S.mode !== null) parts.push(t("mode") + ": " + modeName(S.mode));
    if (S.line !== null) parts.push(t("line") + ": " + lineLabel(S.line));
    if (S.hour !== null) parts.push(t("hour") + ": " + hourLabel(S.hour));
    if (S.cell !== null) parts.push(t("cell") + ": " + cellPlace(S.cell));
    return parts.length ? parts.join(" · ") : t("no_filters");
  }

  function header() {
    const first = D.dates[0];
    const last = D.dates[D.dates.length - 1];
    const period = first ? (first === last ? dateLabel(first) : dateLabel(first) + " – " + dateLabel(last)) + " · " + t("days", { n: nf(D.nDays) }) + ", " + t("full_days", { full: nf(D.totals.full_days) }) : "–";
    const src = D.raw.source;
    const source = [t("source", { db: src.db || "?" }), src.gtfs ? "GTFS " + src.gtfs : null, t("tz", { tz: src.time_zone })].filter(Boolean).join(" · ");
    return h("header", { class: "top" }, h("div", { class: "top-inner" },
      h("div", { class: "brand" }, "frota", h("small", { text: t("title") })),
      h("div", { class: "source" }, h("div", { text: t("period") + ": " + period }), h("div", { text: source })),
      h("div", { class: "top-actions" },
        h("div", { class: "lang", role: "group", "aria-label": t("lang_label") },
          h("button", { type: "button", class: "btn", lang: "pt-BR", "data-fk": "lang-pt", "aria-pressed": LANG === "pt-BR" ? "true" : "false", text: "PT", title: "Português", onclick: () => setLang("pt-BR") }),
          h("button", { type: "button", class: "btn", lang: "en", "data-fk": "lang-en", "aria-pressed": LANG === "en" ? "true" : "false", text: "EN", title: "English", onclick: () => setLang("en") })),
        h("button", { type: "button", class: "btn", "data-fk": "docs", "aria-expanded": tour.open ? "true" : "false", "aria-controls": "doc-panel", text: t("docs"), onclick: () => {
          if (tour.open) closeDoc();
          else { tour.open = true; tour.index = -1; render(); const hd = document.getElementById("doc-heading"); if (hd) hd.focus(); }
        } }))));
  }
  function setLang(lang) {
    LANG = lang;
    writeHash();
    render();
  }

  function filters() {
    const modeSel = h("select", { id: "f-mode", "data-fk": "sel:mode", onchange: (e) => update({ mode: e.target.value === "" ? null : Number(e.target.value), cell: null }) },
      h("option", { value: "", text: t("all_modes") }));
    for (let m = 0; m < D.nModes; m++) modeSel.appendChild(h("option", { value: String(m), text: modeName(m), selected: S.mode === m }));
    const lineSel = h("select", { id: "f-line", "data-fk": "sel:line", onchange: (e) => update({ line: e.target.value === "" ? null : Number(e.target.value) }) },
      h("option", { value: "", text: t("all_lines") }));
    for (let m = 0; m < D.nModes; m++) {
      if (!modeOk(m)) continue;
      const group = h("optgroup", { label: modeName(m) });
      for (let l = 0; l < D.nLines; l++) {
        if (D.lineMode[l] !== m) continue;
        group.appendChild(h("option", { value: String(l), text: lineTitle(l), selected: S.line === l }));
      }
      if (group.childNodes.length) lineSel.appendChild(group);
    }
    const hourSel = h("select", { id: "f-hour", "data-fk": "sel:hour", onchange: (e) => update({ hour: e.target.value === "" ? null : Number(e.target.value) }) },
      h("option", { value: "", text: t("all_hours") }));
    for (let i = 0; i < HOURS; i++) hourSel.appendChild(h("option", { value: String(i), text: hourLabel(i), selected: S.hour === i }));
    const chips = h("div", { class: "chips", role: "group", "aria-label": t("active_filters") });
    const chip = (key, label) => chips.appendChild(h("span", { class: "chip" }, label,
      h("button", { type: "button", "data-fk": "chip:" + key, "aria-label": t("remove_filter", { name: label }), text: "×", onclick: () => { const c = {}; c[key] = null; update(c); } })));
    if (S.cell !== null) chip("cell", t("cell") + " " + cellPlace(S.cell));
    if (S.mode !== null || S.line !== null || S.hour !== null || S.cell !== null) {
      chips.appendChild(h("button", { type: "button", class: "btn", "data-fk": "clear", text: t("clear_filters"), onclick: () => update({ mode: null, line: null, hour: null, cell: null }) }));
    }
    return h("div", { class: "filters" },
      h("div", { class: "filters-inner" },
        h("label", { class: "field", for: "f-mode" }, t("mode"), modeSel),
        h("label", { class: "field", for: "f-line" }, t("line"), lineSel),
        h("label", { class: "field", for: "f-hour" }, t("hour"), hourSel),
        chips),
      tabs());
  }
  function tabs() {
    const list = h("div", { class: "tabs", role: "tablist", "aria-label": t("title") });
    PAGES.forEach((page, i) => {
      list.appendChild(h("button", {
        type: "button", role: "tab", class: "tab", id: "tab-" + page, "data-fk": "tab:" + page, "aria-controls": "main",
        "aria-selected": S.page === page ? "true" : "false", tabindex: S.page === page ? "0" : "-1", text: t("tab_" + page),
        onclick: () => update({ page: page }),
        onkeydown: (e) => {
          let next = null;
          if (e.key === "ArrowRight") next = (i + 1) % PAGES.length;
          else if (e.key === "ArrowLeft") next = (i + PAGES.length - 1) % PAGES.length;
          if (next !== null) {
            e.preventDefault();
            update({ page: PAGES[next] });
            const tab = document.getElementById("tab-" + PAGES[next]);
            if (tab) tab.focus();
          }
        },
      }));
    });
    return list;
  }

  let app = null;
  function render() {
    const active = document.activeElement;
    const focusKey = active && active.getAttribute ? active.getAttribute("data-fk") : null;
    const scroll = window.scrollY;
    document.documentElement.lang = LANG;
    document.title = "frota · " + t("tab_" + S.page) + " · " + t("title");
    clear(app);
    const page = { overview: pageOverview, speed: pageSpeed, regularity: pageRegularity, stops: pageStops, quality: pageQuality, aircraft: pageAircraft }[S.page]();
    const main = h("main", { id: "main", role: "tabpanel", "aria-labelledby": "tab-" + S.page, tabindex: "-1", "data-page": S.page }, page);
    app.appendChild(header());
    app.appendChild(filters());
    app.appendChild(main);
    app.appendChild(docPanel());
    tooltip = h("div", { class: "tooltip", role: "tooltip", hidden: true });
    app.appendChild(tooltip);
    layout();
    window.scrollTo(0, scroll);
    if (focusKey) {
      const again = app.querySelector('[data-fk="' + CSS.escape(focusKey) + '"]');
      if (again) again.focus({ preventScroll: true });
    }
  }
  function layout() {
    for (const node of app.querySelectorAll(".chart, .map")) node._draw(node.clientWidth);
  }

  // ===================================================================== 11. start

  // The data block: JSON text, or gzip + base64 inflated by the browser's own
  // DecompressionStream (no library, no network: the Blob and Response live in memory).
  async function readData() {
    const node = document.getElementById("frota-data");
    const text = node.textContent;
    if (node.getAttribute("data-encoding") !== "gzip+base64") return JSON.parse(text);
    if (typeof DecompressionStream !== "function") {
      throw new Error("This browser cannot inflate the embedded data (DecompressionStream: Chrome 80+, Firefox 113+, Safari 16.4+).");
    }
    const binary = atob(text.trim());
    const bytes = new Uint8Array(binary.length);
    for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return JSON.parse(await new Response(stream).text());
  }

  async function start() {
    app = document.getElementById("app");
    let raw;
    try {
      raw = await readData();
    } catch (e) {
      app.appendChild(h("div", { class: "error-box", role: "alert", text: String(e) }));
      document.body.setAttribute("data-ready", "error");
      return;
    }
    DEFAULT_LANG = document.documentElement.lang === "en" ? "en" : "pt-BR";
    LANG = DEFAULT_LANG;
    if (raw.version !== 2) {
      app.appendChild(h("div", { class: "error-box", role: "alert", text: t("bad_version", { v: raw.version }) }));
      return;
    }
    D = decode(raw);
    if (D.aircraft) PAGES.push("aircraft");
    // The documentation of pages this data has not (the aircraft page) leaves the tour.
    for (let i = DOCS.length - 1; i >= 0; i--) if (!PAGES.includes(DOCS[i].page)) DOCS.splice(i, 1);
    readHash();
    render();
    window.addEventListener("hashchange", () => {
      readHash();
      render();
    });
    let timer = 0;
    window.addEventListener("resize", () => {
      clearTimeout(timer);
      timer = setTimeout(layout, 120);
    });
    document.body.setAttribute("data-ready", "1");
    window.__frotaReadyMs = performance.now();
  }
  start();
})();
