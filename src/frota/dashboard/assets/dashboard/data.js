  // ===================================================================== 2. the data

  let D = null;

  function decode(raw) {
    const d = {
      raw: raw,
      modes: raw.modes,
      feeds: raw.feeds,
      dates: raw.dates,
      nModes: raw.modes.length,
      nFeeds: raw.feeds.length,
      nDays: raw.dates.length,
    };
    const L = raw.lines;
    d.nLines = L.route.length;
    d.lineMode = L.mode;
    d.lineRoute = L.route;
    d.lineName = L.name;
    d.lineLong = L.long_name;
    d.lineInGtfs = L.in_gtfs;
    d.totals = raw.totals;
    d.fleet = raw.fleet;
    d.lh = raw.line_hours;
    d.lineFeeds = [];
    for (let l = 0; l < d.nLines; l++) d.lineFeeds.push([]);
    for (const [l, f] of raw.totals.line_feeds) d.lineFeeds[l].push(f);
    d.feedModes = [];
    for (let f = 0; f < d.nFeeds; f++) d.feedModes.push([]);
    for (const [f, m] of raw.totals.feed_modes) d.feedModes[f].push(m);

    // Speed cells: groups of (mode, hour), cell indexes delta-encoded inside a group.
    const C = raw.cells;
    const n = C.cell_delta.length;
    d.cellSize = C.size_deg;
    d.cellX = C.x.map((x) => x + C.x0);
    d.cellY = C.y.map((y) => y + C.y0);
    d.chMode = new Int16Array(n);
    d.chHour = new Int8Array(n);
    d.chCell = new Int32Array(n);
    d.chDist = new Float64Array(C.distance_m);
    d.chDur = new Float64Array(C.duration_s);
    // Segments behind each cell-hour (older files: unknown, so never hatched).
    d.chSeg = C.segments ? new Float64Array(C.segments) : null;
    let k = 0;
    for (let g = 0; g < C.group_len.length; g++) {
      let cell = 0;
      for (let j = 0; j < C.group_len[g]; j++, k++) {
        cell = j === 0 ? C.cell_delta[k] : cell + C.cell_delta[k];
        d.chMode[k] = C.group_mode[g];
        d.chHour[k] = C.group_hour[g];
        d.chCell[k] = cell;
      }
    }
    d.cellByKey = new Map();
    for (let i = 0; i < d.cellX.length; i++) d.cellByKey.set(d.cellX[i] + "," + d.cellY[i], i);

    // Geometry: integer steps from (lat0, lon0), rings and shapes delta-encoded.
    const G = raw.geo;
    d.geo = G;
    const undelta = (flat) => {
      const out = new Float64Array(flat.length);
      let x = 0;
      let y = 0;
      for (let i = 0; i < flat.length; i += 2) {
        x += flat[i];
        y += flat[i + 1];
        out[i] = G.lon0 + x * G.step_deg;
        out[i + 1] = G.lat0 + y * G.step_deg;
      }
      return out;
    };
    d.area = G.area.map(undelta);
    d.shapes = G.shapes.map(undelta);
    d.shapeLine = G.shape_line;
    d.bbox = {
      minLat: G.lat0 + G.bbox[0] * G.step_deg,
      minLon: G.lon0 + G.bbox[1] * G.step_deg,
      maxLat: G.lat0 + G.bbox[2] * G.step_deg,
      maxLon: G.lon0 + G.bbox[3] * G.step_deg,
    };

    // Stops.
    const S = raw.stops;
    d.stops = {
      n: S.line.length,
      line: S.line,
      vehicle: S.vehicle,
      vehicleId: S.vehicle_id,
      vehicleFeed: S.vehicle_feed,
      start: S.start_min,
      hour: S.start_min.map((m) => Math.floor((m % 1440) / 60)),
      duration: S.duration_s,
      lat: S.lat.map((v) => G.lat0 + v * G.step_deg),
      lon: S.lon.map((v) => G.lon0 + v * G.step_deg),
      // 1 at a terminal, 0 away, 2 at a depot (the place; older files: near_terminal).
      terminal: S.place && S.place.some((v) => v !== null) ? S.place : S.near_terminal,
    };
    d.stops.cell = d.stops.lat.map((lat, i) => Math.floor(d.stops.lon[i] / d.cellSize) + "," + Math.floor(lat / d.cellSize));

    d.quality = raw.quality;
    d.slots = raw.duplicate_slots;
    d.headways = raw.headways;
    // Where each line's headway groups start and end, and the offset of its first value.
    d.hwRanges = new Map();
    const HW = raw.headways && raw.headways.headways;
    if (HW) {
      let offset = 0;
      for (let g = 0; g < HW.len.length; g++) {
        const line = HW.line[g];
        const r = d.hwRanges.get(line);
        if (r) r[1] = g + 1;
        else d.hwRanges.set(line, [g, g + 1, offset]);
        offset += HW.len[g];
      }
    }
    d.collector = raw.collector;
    d.reports = raw.reports || [];
    // Aircraft: absent when the database holds none (then the page has no aircraft tab).
    const A = raw.aircraft;
    d.aircraft = null;
    if (A) {
      d.aircraft = A.icao24.map((icao24, i) => ({
        feed: A.feed[i],
        icao24: icao24,
        callsign: A.callsign[i],
        lat: A.lat[i] * A.step_deg,
        lon: A.lon[i] * A.step_deg,
        alt: A.altitude_m[i],
        ground: A.on_ground[i],
        speed: A.speed_kmh[i],
        track: A.track_deg[i],
        time: A.time[i],
        positions: A.positions[i],
        country: A.country[i] === null ? null : A.countries[A.country[i]],
        lastContact: A.last_contact[i],
      }));
      d.aircraftCountries = A.countries;
    }
    return d;
  }

