  // ===================================================================== 7. aggregations

  const HOUR_LABELS = () => Array.from({ length: HOURS }, (_, i) => hourLabel(i));
  function effectiveMode() {
    return S.line !== null ? D.lineMode[S.line] : S.mode;
  }
  function scopeLines() {
    const out = [];
    for (let l = 0; l < D.nLines; l++) if (lineOk(l)) out.push(l);
    return out;
  }
  function dayDecimals() {
    return D.totals.full_days > 1 ? 1 : 0;
  }
  function lineHourSum(column, l) {
    let total = 0;
    const arr = D.lh[column];
    for (let hour = 0; hour < HOURS; hour++) if (hourOk(hour)) total += arr[l * HOURS + hour] || 0;
    return total;
  }
  function fleetSeries() {
    if (S.line !== null) {
      const l = S.line;
      const days = D.totals.line_days[l] || 0;
      const values = [];
      for (let hour = 0; hour < HOURS; hour++) values.push(days ? (D.lh.vehicle_days[l * HOURS + hour] || 0) / days : 0);
      return [{ label: lineLabel(l), color: modeColor(D.lineMode[l]), values: values, mode: D.lineMode[l] }];
    }
    const series = [];
    for (let m = 0; m < D.nModes; m++) {
      if (!modeOk(m)) continue;
      const days = D.totals.mode_days[m] || 0;
      const values = [];
      for (let hour = 0; hour < HOURS; hour++) values.push(days ? D.fleet.vehicle_days[m * HOURS + hour] / days : 0);
      if (days) series.push({ label: modeName(m), color: modeColor(m), values: values, mode: m });
    }
    return series;
  }
  function positionSeries() {
    if (S.line !== null) {
      const l = S.line;
      const values = [];
      for (let hour = 0; hour < HOURS; hour++) values.push(D.lh.positions[l * HOURS + hour] || 0);
      return [{ label: lineLabel(l), color: modeColor(D.lineMode[l]), values: values }];
    }
    const series = [];
    for (let m = 0; m < D.nModes; m++) {
      if (!modeOk(m)) continue;
      const values = [];
      for (let hour = 0; hour < HOURS; hour++) values.push(D.fleet.positions[m * HOURS + hour]);
      if (sum(values) > 0) series.push({ label: modeName(m), color: modeColor(m), values: values, mode: m });
    }
    return series;
  }
  function speedTotals(lines) {
    let dist = 0;
    let dur = 0;
    for (const l of lines) {
      dist += lineHourSum("distance_m", l);
      dur += lineHourSum("duration_s", l);
    }
    return { dist: dist, dur: dur, kmh: dur > 0 ? (3.6 * dist) / dur : NaN };
  }
  // Speed cells summed over the filters (mode and hour, or every hour), one entry per cell.
  function cellTotals(hourFilter) {
    const mode = effectiveMode();
    const dist = new Map();
    const dur = new Map();
    const seg = new Map();
    for (let k = 0; k < D.chCell.length; k++) {
      if (mode !== null && D.chMode[k] !== mode) continue;
      if (hourFilter !== null && D.chHour[k] !== hourFilter) continue;
      const c = D.chCell[k];
      dist.set(c, (dist.get(c) || 0) + D.chDist[k]);
      dur.set(c, (dur.get(c) || 0) + D.chDur[k]);
      seg.set(c, (seg.get(c) || 0) + (D.chSeg ? D.chSeg[k] : Infinity));
    }
    const out = [];
    for (const [c, t_] of dur) {
      if (t_ > 0) out.push({ cell: c, dist: dist.get(c), dur: t_, kmh: (3.6 * dist.get(c)) / t_, segments: seg.get(c), few: seg.get(c) < MIN_CELL_SEGMENTS });
    }
    return out;
  }
  // Whether the speed cells hold any segment of the mode in scope (an aircraft-only
  // database may have none: a single poll makes no segments).
  function speedCellsInScope() {
    const mode = effectiveMode();
    for (let k = 0; k < D.chCell.length; k++) if (mode === null || D.chMode[k] === mode) return true;
    return false;
  }
  function slowCellsByHour() {
    const mode = effectiveMode();
    const perHour = [];
    for (let hour = 0; hour < HOURS; hour++) perHour.push(new Map());
    for (let k = 0; k < D.chCell.length; k++) {
      if (mode !== null && D.chMode[k] !== mode) continue;
      const map = perHour[D.chHour[k]];
      const c = D.chCell[k];
      const e = map.get(c) || [0, 0];
      e[0] += D.chDist[k];
      e[1] += D.chDur[k];
      map.set(c, e);
    }
    return perHour.map((map) => {
      let slow = 0;
      for (const e of map.values()) if (e[1] > 0 && (3.6 * e[0]) / e[1] < SLOW_KMH) slow++;
      return slow;
    });
  }
  function stopOk(i) {
    const st = D.stops;
    return lineOk(st.line[i]) && hourOk(st.hour[i]) && (S.cell === null || st.cell[i] === S.cell);
  }
  function scopedStops() {
    const out = [];
    for (let i = 0; i < D.stops.n; i++) if (stopOk(i)) out.push(i);
    return out;
  }
  function scopeFeeds() {
    const out = [];
    for (let f = 0; f < D.nFeeds; f++) if (feedOk(f)) out.push(f);
    return out;
  }
  function qualityTotals(feeds, hourFilter) {
    const Q = D.quality;
    const r = { accepted: 0, errors: 0, duplicates: 0, reasons: {}, latency: new Map() };
    for (const name of Q.reason_names) r.reasons[name] = 0;
    for (const f of feeds) {
      for (let hour = 0; hour < HOURS; hour++) {
        if (hourFilter !== null && hour !== hourFilter) continue;
        const k = f * HOURS + hour;
        r.accepted += Q.accepted[k];
        for (const name of Object.keys(Q.rejected)) {
          const v = Q.rejected[name][k];
          r.reasons[name] += v;
          if (name === "duplicate") r.duplicates += v;
          else r.errors += v;
        }
      }
    }
    const L = Q.latency;
    const wanted = new Set(feeds);
    for (let i = 0; i < L.feed.length; i++) {
      if (!wanted.has(L.feed[i])) continue;
      if (hourFilter !== null && L.hour[i] !== hourFilter) continue;
      r.latency.set(L.latency_s[i], (r.latency.get(L.latency_s[i]) || 0) + L.positions[i]);
    }
    return r;
  }
  // The smallest latency whose cumulative count reaches `share` of the total (the view's rule).
  function latencyPercentile(hist, share) {
    const keys = Array.from(hist.keys()).sort((a, b) => a - b);
    let total = 0;
    for (const key of keys) total += hist.get(key);
    if (!total) return NaN;
    let running = 0;
    for (const key of keys) {
      running += hist.get(key);
      if (running >= share * total) return key;
    }
    return keys[keys.length - 1];
  }
  // TCQSM headway-adherence bands, on cv rounded to 2 decimals as frota headways does.
  function tcqsmBand(value) {
    if (!isFinite(value)) return "–";
    const cv = Math.round(value * 100) / 100;
    if (cv <= 0.21) return "A";
    if (cv <= 0.3) return "B";
    if (cv <= 0.39) return "C";
    if (cv <= 0.52) return "D";
    if (cv <= 0.74) return "E";
    return "F";
  }
  // Blue (good) to red (bad) on a diverging ramp that colour-blind readers can tell apart; the
  // letter is always printed too.
  const BAND_COLORS = { A: "#2166ac", B: "#67a9cf", C: "#d1e5f0", D: "#fddbc7", E: "#ef8a62", F: "#b2182b", "–": "#eeeeee" };
  const BAND_INK = { A: "#ffffff", B: "#10253a", C: "#10253a", D: "#3b1a0c", E: "#3b1a0c", F: "#ffffff", "–": "#4a5263" };
  // quantile_cont, as frota headways computes its median and p90: linear between order statistics.
  function quantile(sorted, q) {
    if (!sorted.length) return NaN;
    const pos = (sorted.length - 1) * q;
    const lo = Math.floor(pos);
    const hi = Math.min(sorted.length - 1, lo + 1);
    return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
  }
  // Headway statistics (semantics §7) over the measured headways (the data model leaves the
  // excluded ones out) whose group passes `ok(line, hour, direction, dayType)`. Median, p90 and
  // the share under 60 s use every measured headway; the ratios to the plan (bunching, gaps,
  // CV, excess wait) only those with a planned headway. `onlyLine` (optional) visits just that
  // line's groups: they are contiguous (sorted by line).
  const MIN_HEADWAYS = 10;
  function headwayStats(ok, onlyLine) {
    const H = D.headways && D.headways.headways;
    const st = { n: 0, nPlanned: 0, under60: 0, bunching: 0, gap: 0, sumH: 0, sumH2: 0, sumP: 0, sumP2: 0, dev: [], ratios: [], values: [], planned: [] };
    if (!H) return st;
    const range = onlyLine === undefined ? [0, H.len.length, 0] : D.hwRanges.get(onlyLine) || [0, 0, 0];
    let k = range[2];
    for (let g = range[0]; g < range[1]; g++) {
      const use = ok(H.line[g], H.hour[g], H.direction[g], H.day_type[g]);
      const planned = H.planned_s[g];
      if (!use) {
        k += H.len[g];
        continue;
      }
      for (let j = 0; j < H.len[g]; j++, k++) {
        const v = H.headway_s[k];
        st.n++;
        st.values.push(v);
        if (v < 60) st.under60++;
        if (!(planned > 0)) continue;
        st.nPlanned++;
        if (v < 0.25 * planned) st.bunching++;
        if (v > 2 * planned) st.gap++;
        st.sumH += v;
        st.sumH2 += v * v;
        st.sumP += planned;
        st.sumP2 += planned * planned;
        st.dev.push(v - planned);
        st.ratios.push(v / planned);
        st.planned.push(planned);
      }
    }
    // As frota headways (--min-headways 10): fewer measured headways make no statistic,
    // only counts; two headways give no coefficient of variation.
    if (st.n < MIN_HEADWAYS) {
      st.tooFew = true;
      st.nPlanned = 0;
      st.under60 = NaN;
      st.median = st.p90 = st.plannedMedian = st.cv = st.excess = NaN;
      return st;
    }
    const sorted = st.values.slice().sort((a, b) => a - b);
    st.median = quantile(sorted, 0.5);
    st.p90 = quantile(sorted, 0.9);
    st.plannedMedian = quantile(st.planned.slice().sort((a, b) => a - b), 0.5);
    st.cv = NaN;
    st.excess = NaN;
    if (st.nPlanned) {
      const meanDev = sum(st.dev) / st.nPlanned;
      let sq = 0;
      for (const d of st.dev) sq += (d - meanDev) * (d - meanDev);
      st.cv = Math.sqrt(sq / st.nPlanned) / (st.sumP / st.nPlanned);
      // London's excess wait: AWT − SWT, AWT = Σh² / 2Σh, SWT = Σp² / 2Σp, over the same headways.
      st.swt = st.sumP2 / (2 * st.sumP);
      st.excess = st.sumH2 / (2 * st.sumH) - st.swt;
    }
    return st;
  }
  function departures(ok) {
    const Hh = D.headways && D.headways.hours;
    const found = new Array(HOURS).fill(0);
    const planned = new Array(HOURS).fill(0);
    if (!Hh) return { found: found, planned: planned };
    for (let i = 0; i < Hh.line.length; i++) {
      if (!ok(Hh.line[i], Hh.hour[i], Hh.direction[i]) || !dayTypeOk(Hh.day_type[i])) continue;
      if (Hh.hour[i] < 0 || Hh.hour[i] >= HOURS) continue;
      found[Hh.hour[i]] += Hh.found[i];
      planned[Hh.hour[i]] += Hh.planned[i];
    }
    return { found: found, planned: planned };
  }
  // Excluded headways per reason for the groups passing `ok(line, hour, direction)` and the
  // day-type selector; null when the table has no exclusion column.
  function excludedCounts(ok) {
    const X = D.headways && D.headways.excluded;
    if (!X) return null;
    const out = { total: 0, by: X.reasons.map(() => 0) };
    for (let i = 0; i < X.n.length; i++) {
      if (!ok(X.line[i], X.hour[i], X.direction[i]) || !dayTypeOk(X.day_type[i])) continue;
      out.by[X.reason[i]] += X.n[i];
      out.total += X.n[i];
    }
    return out;
  }
  function excludedText(x) {
    if (!x) return "–";
    return D.headways.excluded.reasons.map((r, i) => reasonLabel(r) + " " + nf(x.by[i])).join(" · ");
  }
  function reasonLabel(reason) {
    const key = "rg_reason_" + reason;
    return WORDS[LANG][key] !== undefined ? t(key) : reason;
  }
  function headwayLineOk(line) {
    return line >= 0 && lineOk(line);
  }

