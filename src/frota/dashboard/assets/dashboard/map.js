  // ===================================================================== 6. maps (own Web Mercator, no tiles)

  const MAP_VIEWS = {};
  function mercX(lon) {
    return (lon * Math.PI) / 180;
  }
  function mercY(lat) {
    return Math.log(Math.tan(Math.PI / 4 + (lat * Math.PI) / 360));
  }
  function unMercY(y) {
    return ((2 * Math.atan(Math.exp(y)) - Math.PI / 2) * 180) / Math.PI;
  }

  // o: {id, label, draw(ctx, project, view), hover(lon, lat) -> text|null, pick(lon, lat),
  //     bbox: what to fit (D.bbox when absent)}
  function mapView(o) {
    const wrap = h("div", { class: "map-wrap" });
    const canvas = h("canvas", { tabindex: "0", role: "img", "aria-label": o.label });
    const scale = h("div", { class: "map-scale", "aria-hidden": "true" });
    const b = o.bbox || D.bbox;
    const fit = () => ({ z: 1, cx: (mercX(b.minLon) + mercX(b.maxLon)) / 2, cy: (mercY(b.minLat) + mercY(b.maxLat)) / 2 });
    const view = MAP_VIEWS[o.id] || (MAP_VIEWS[o.id] = fit());
    let width = 0;
    let height = 0;
    let base = 1;
    const k = () => base * view.z;
    const project = (lon, lat) => [width / 2 + (mercX(lon) - view.cx) * k(), height / 2 - (mercY(lat) - view.cy) * k()];
    const unproject = (px, py) => [(((px - width / 2) / k() + view.cx) * 180) / Math.PI, unMercY(view.cy - (py - height / 2) / k())];
    const redraw = () => {
      const dpr = window.devicePixelRatio || 1;
      width = canvas.clientWidth;
      height = canvas.clientHeight;
      if (!width || !height) return;
      canvas.width = Math.round(width * dpr);
      canvas.height = Math.round(height * dpr);
      const spanX = Math.max(1e-9, mercX(b.maxLon) - mercX(b.minLon));
      const spanY = Math.max(1e-9, mercY(b.maxLat) - mercY(b.minLat));
      base = Math.min(width / spanX, height / spanY) * 0.94;
      const ctx = canvas.getContext("2d");
      ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
      ctx.fillStyle = "#e6ebf1";
      ctx.fillRect(0, 0, width, height);
      o.draw(ctx, project, { k: k(), width: width, height: height });
      // Scale bar: metres per pixel at the centre latitude.
      const lat = unMercY(view.cy);
      const mpp = (6371008.8 * Math.cos((lat * Math.PI) / 180)) / k();
      let metres = Math.pow(10, Math.floor(Math.log10(mpp * 120)));
      for (const f of [5, 2, 1]) if ((metres * f) / mpp <= 120) { metres *= f; break; }
      const px = metres / mpp;
      ctx.strokeStyle = "#4a5263";
      ctx.lineWidth = 2;
      ctx.beginPath();
      ctx.moveTo(12, height - 30);
      ctx.lineTo(12 + px, height - 30);
      ctx.stroke();
      scale.textContent = metres >= 1000 ? nf(metres / 1000) + " km" : nf(metres) + " m";
      scale.style.width = Math.round(px + 12) + "px";
    };
    const zoomAt = (factor, px, py) => {
      const before = unproject(px, py);
      view.z = Math.min(256, Math.max(0.5, view.z * factor));
      const after = unproject(px, py);
      view.cx += mercX(before[0]) - mercX(after[0]);
      view.cy += mercY(before[1]) - mercY(after[1]);
      redraw();
    };
    const pan = (dx, dy) => {
      view.cx -= dx / k();
      view.cy += dy / k();
      redraw();
    };
    let drag = null;
    canvas.addEventListener("pointerdown", (e) => {
      drag = { x: e.clientX, y: e.clientY, moved: false };
      canvas.setPointerCapture(e.pointerId);
    });
    canvas.addEventListener("pointermove", (e) => {
      const r = canvas.getBoundingClientRect();
      if (drag) {
        const dx = e.clientX - drag.x;
        const dy = e.clientY - drag.y;
        if (drag.moved || Math.abs(dx) + Math.abs(dy) > 4) {
          drag.moved = true;
          drag.x = e.clientX;
          drag.y = e.clientY;
          pan(dx, dy);
          hideTip();
          return;
        }
      }
      const ll = unproject(e.clientX - r.left, e.clientY - r.top);
      const text = o.hover ? o.hover(ll[0], ll[1], k()) : null;
      if (text) showTip(text, e.clientX, e.clientY);
      else hideTip();
    });
    canvas.addEventListener("pointerup", (e) => {
      const r = canvas.getBoundingClientRect();
      if (drag && !drag.moved && o.pick) {
        const ll = unproject(e.clientX - r.left, e.clientY - r.top);
        o.pick(ll[0], ll[1], k());
      }
      drag = null;
    });
    canvas.addEventListener("pointerleave", hideTip);
    canvas.addEventListener("wheel", (e) => {
      e.preventDefault();
      const r = canvas.getBoundingClientRect();
      zoomAt(e.deltaY < 0 ? 1.25 : 0.8, e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
    canvas.addEventListener("keydown", (e) => {
      const keys = { ArrowLeft: [60, 0], ArrowRight: [-60, 0], ArrowUp: [0, 60], ArrowDown: [0, -60] };
      if (keys[e.key]) {
        e.preventDefault();
        pan(keys[e.key][0], keys[e.key][1]);
      } else if (e.key === "+" || e.key === "=") {
        e.preventDefault();
        zoomAt(1.5, width / 2, height / 2);
      } else if (e.key === "-") {
        e.preventDefault();
        zoomAt(1 / 1.5, width / 2, height / 2);
      } else if (e.key === "Enter" && o.pick) {
        e.preventDefault();
        const ll = unproject(width / 2, height / 2);
        o.pick(ll[0], ll[1], k());
      }
    });
    const tools = h("div", { class: "map-tools" },
      h("button", { type: "button", "aria-label": t("map_zoom_in"), title: t("map_zoom_in"), text: "+", onclick: () => zoomAt(1.5, width / 2, height / 2) }),
      h("button", { type: "button", "aria-label": t("map_zoom_out"), title: t("map_zoom_out"), text: "−", onclick: () => zoomAt(1 / 1.5, width / 2, height / 2) }),
      h("button", { type: "button", "aria-label": t("map_reset"), title: t("map_reset"), text: "⤢", onclick: () => { Object.assign(view, fit()); redraw(); } }));
    wrap.appendChild(canvas);
    wrap.appendChild(tools);
    wrap.appendChild(scale);
    wrap._draw = redraw;
    wrap.classList.add("map");
    // For the browser tests: where a place is on screen, to click it like a person would.
    window.__frotaMaps = window.__frotaMaps || {};
    window.__frotaMaps[o.id] = {
      screen: (lon, lat) => {
        const p = project(lon, lat);
        const r = canvas.getBoundingClientRect();
        return [r.left + p[0], r.top + p[1]];
      },
    };
    return wrap;
  }

  function drawBase(ctx, project, highlightLine) {
    // Area: even-odd over every ring, as the area rule reads it (holes and islands).
    if (D.area.length) {
      ctx.beginPath();
      for (const ring of D.area) {
        for (let i = 0; i < ring.length; i += 2) {
          const p = project(ring[i], ring[i + 1]);
          if (i === 0) ctx.moveTo(p[0], p[1]);
          else ctx.lineTo(p[0], p[1]);
        }
        ctx.closePath();
      }
      ctx.fillStyle = "#ffffff";
      ctx.fill("evenodd");
      ctx.strokeStyle = "#8d97a8";
      ctx.lineWidth = 1;
      ctx.stroke();
    }
    ctx.lineJoin = "round";
    ctx.lineCap = "round";
    ctx.strokeStyle = "rgba(120, 132, 150, 0.75)";
    ctx.lineWidth = 1.3;
    for (let i = 0; i < D.shapes.length; i++) {
      if (highlightLine !== null && D.shapeLine[i] === highlightLine) continue;
      strokeShape(ctx, project, D.shapes[i]);
    }
  }
  function strokeShape(ctx, project, flat) {
    ctx.beginPath();
    for (let i = 0; i < flat.length; i += 2) {
      const p = project(flat[i], flat[i + 1]);
      if (i === 0) ctx.moveTo(p[0], p[1]);
      else ctx.lineTo(p[0], p[1]);
    }
    ctx.stroke();
  }
  function drawLineOnTop(ctx, project, line) {
    if (line === null) return;
    for (let i = 0; i < D.shapes.length; i++) {
      if (D.shapeLine[i] !== line) continue;
      ctx.strokeStyle = "#ffffff";
      ctx.lineWidth = 6;
      strokeShape(ctx, project, D.shapes[i]);
      ctx.strokeStyle = "#15202e";
      ctx.lineWidth = 2.6;
      strokeShape(ctx, project, D.shapes[i]);
    }
  }
  function baseLegend(line) {
    const items = [];
    if (D.area.length) items.push({ color: "#8d97a8", label: t("legend_area"), outline: true });
    if (D.shapes.length) items.push({ color: "rgba(120, 132, 150, 0.75)", label: t("legend_shapes"), line: true });
    if (line !== null && D.shapeLine.includes(line)) items.push({ color: "#15202e", label: t("legend_selected_line") + ": " + lineLabel(line), line: true });
    return items;
  }

