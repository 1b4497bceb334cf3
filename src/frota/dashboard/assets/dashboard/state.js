  // ===================================================================== 3. state and URL

  // "aircraft" joins at the start when the data holds aircraft (shell.js).
  const PAGES = ["overview", "speed", "regularity", "stops", "quality"];
  // gnd, alt and country: the aircraft page's filters (page_aircraft.js); country "?" is
  // "unknown" (no aircraft_positions row), "" the feed's blank country.
  const S = { page: "overview", mode: null, line: null, hour: null, cell: null, dt: null, gnd: null, alt: null, country: null };

  function lineKey(l) {
    return D.modes[D.lineMode[l]] + ":" + D.lineRoute[l];
  }
  function readHash() {
    const params = new URLSearchParams(location.hash.replace(/^#/, ""));
    const page = params.get("p");
    S.page = PAGES.includes(page) ? page : "overview";
    const mode = params.get("mode");
    const m = mode === null ? -1 : D.modes.indexOf(mode);
    S.mode = m >= 0 ? m : null;
    S.line = null;
    const line = params.get("line");
    if (line !== null) {
      for (let l = 0; l < D.nLines; l++) {
        if (lineKey(l) === line) {
          S.line = l;
          break;
        }
      }
    }
    if (S.line !== null && S.mode !== null && D.lineMode[S.line] !== S.mode) S.line = null;
    const hour = params.get("hour");
    const hv = hour === null ? NaN : Number(hour);
    S.hour = Number.isInteger(hv) && hv >= 0 && hv < HOURS ? hv : null;
    const cell = params.get("cell");
    S.cell = cell !== null && D.cellByKey.has(cell) ? cell : null;
    const dt = params.get("dt");
    S.dt = dt !== null && dayTypesShown().includes(dt) ? dt : null;
    const lang = params.get("lang");
    if (lang === "en" || lang === "pt-BR") LANG = lang;
    const gnd = params.get("ground");
    S.gnd = D.aircraft && (gnd === "air" || gnd === "ground") ? gnd : null;
    const alt = params.get("alt");
    S.alt = D.aircraft && AIRCRAFT_BANDS.some((b) => b.key === alt) ? alt : null;
    const country = params.get("country");
    S.country = D.aircraft && country !== null && (country === "?" || D.aircraftCountries.includes(country)) ? country : null;
  }
  function writeHash() {
    const params = new URLSearchParams();
    if (S.page !== "overview") params.set("p", S.page);
    if (S.mode !== null) params.set("mode", D.modes[S.mode]);
    if (S.line !== null) params.set("line", lineKey(S.line));
    if (S.hour !== null) params.set("hour", String(S.hour));
    if (S.cell !== null) params.set("cell", S.cell);
    if (S.dt !== null) params.set("dt", S.dt);
    if (S.gnd !== null) params.set("ground", S.gnd);
    if (S.alt !== null) params.set("alt", S.alt);
    if (S.country !== null) params.set("country", S.country);
    if (LANG !== DEFAULT_LANG) params.set("lang", LANG);
    const text = params.toString();
    const next = text ? "#" + text : "#";
    if (location.hash !== next && !(location.hash === "" && next === "#")) {
      history.replaceState(null, "", next === "#" ? location.pathname + location.search : next);
    }
  }
  let DEFAULT_LANG = "pt-BR";

  function update(change) {
    Object.assign(S, change);
    if (S.line !== null && S.mode !== null && D.lineMode[S.line] !== S.mode) S.line = null;
    writeHash();
    render();
  }
  function toggle(key, value) {
    const change = {};
    change[key] = S[key] === value ? null : value;
    update(change);
  }

  // Filters as predicates.
  function modeOk(m) {
    return S.mode === null || m === S.mode;
  }
  function lineOk(l) {
    if (S.line !== null) return l === S.line;
    return modeOk(D.lineMode[l]);
  }
  function hourOk(hour) {
    return S.hour === null || hour === S.hour;
  }
  // Day types the page can select: those the headway tables name ("" is a table without them).
  function dayTypesShown() {
    const HW = D.headways;
    return HW && HW.day_types ? HW.day_types.filter((x) => x !== "") : [];
  }
  // A row's day type (an index into headways.day_types; -1 = every type pooled) passes the
  // day-type selector.
  function dayTypeOk(index) {
    return S.dt === null || (index >= 0 && D.headways.day_types[index] === S.dt);
  }
  function feedOk(f) {
    if (S.line !== null) return D.lineFeeds[S.line].includes(f);
    if (S.mode !== null) return D.feedModes[f].includes(S.mode);
    return true;
  }
  function lineLabel(l) {
    const route = D.lineRoute[l];
    if (route === "") return t("no_line");
    const name = D.lineName[l];
    return name && name !== route ? route + " (" + name + ")" : route;
  }
  function lineTitle(l) {
    const long = D.lineLong[l];
    return long ? lineLabel(l) + " — " + long : lineLabel(l);
  }

