  // ===================================================================== 8. page parts

  function card(id, title, sub, body, opts) {
    const o = opts || {};
    const titleId = "title-" + id;
    return h("section", { class: "card " + (o.span || "span-12"), "data-visual": id, "aria-labelledby": titleId },
      h("div", { class: "card-head" },
        h("div", null, h("h2", { id: titleId, text: title }), sub ? h("p", { class: "sub", text: sub }) : null),
        h("button", { type: "button", class: "help", "data-fk": "help:" + id, "aria-label": t("help_for", { name: title }), title: t("help"), text: "?", onclick: () => openDoc(id) })),
      body,
      o.note ? h("p", { class: "note", text: o.note }) : null);
  }
  function kpi(key, label, value, detail) {
    return h("div", { class: "kpi" },
      h("div", { class: "label", text: label }),
      h("div", { class: "value", "data-kpi": key, text: value }),
      detail ? h("div", { class: "detail", text: detail }) : null);
  }
  function unavailable(title, text) {
    return h("div", { class: "unavailable", role: "note" }, h("strong", { text: t("not_available") + ": " }), title ? h("span", { text: title + " " }) : null, h("span", { text: text }));
  }
  function hourChart(id, series, o) {
    return chart(Object.assign({
      id: id,
      labels: HOUR_LABELS(),
      series: series,
      selected: S.hour,
      onSelect: (i) => toggle("hour", i),
      labelWidth: 40,
    }, o || {}));
  }
  function stack(span) {
    const div = h("div", { class: span + " stack" });
    div.style.display = "grid";
    div.style.gap = "16px";
    div.style.alignContent = "start";
    for (let i = 1; i < arguments.length; i++) {
      const c = arguments[i];
      c.classList.remove("span-12");
      div.appendChild(c);
    }
    return div;
  }

