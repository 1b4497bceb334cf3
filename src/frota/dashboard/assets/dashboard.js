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

  // ===================================================================== 1. words

  const WORDS = {
    "pt-BR": {
      title: "Painel da frota",
      skip: "Pular para o conteúdo",
      docs: "Documentação",
      lang_label: "Idioma",
      mode: "Modo",
      line: "Linha",
      hour: "Hora",
      all_modes: "Todos os modos",
      all_lines: "Todas as linhas",
      all_hours: "Todas as horas",
      cell: "Célula",
      clear_filters: "Limpar filtros",
      remove_filter: "Remover filtro {name}",
      active_filters: "Filtros ativos",
      no_filters: "Sem filtros: todos os dados do período.",
      tab_overview: "Visão geral",
      tab_speed: "Velocidade",
      tab_regularity: "Regularidade",
      tab_stops: "Paradas",
      tab_quality: "Qualidade",
      period: "Período",
      days: ["{n} data com dados", "{n} datas com dados"],
      full_days: ["{full} dia cheio", "{full} dias cheios"],
      agg_days: "média por dia cheio: {full} de {n} datas",
      source: "Banco {db}",
      tz: "horas locais de {tz}",
      no_line: "(sem linha)",
      mode_bus: "Ônibus",
      mode_brt: "BRT",
      mode_rail: "Trem/metrô",
      mode_ferry: "Barca",
      mode_aircraft: "Aeronave",
      mode_other: "Outro",
      not_in_gtfs: "fora do GTFS",
      help: "O que é isto?",
      help_for: "Documentação: {name}",
      per_day_mean: "média por dia",
      total: "total",
      // overview
      ov_intro: "Quantos veículos circularam, quando, e se o feed é confiável. Clique numa barra para filtrar a hora, numa legenda para filtrar o modo.",
      ov_kpis: "Números principais",
      kpi_positions: "Posições aceitas",
      kpi_vehicles: "Veículos",
      kpi_vehicles_hour: "Veículos às {hour}",
      kpi_vehicles_detail_period: "distintos no período",
      kpi_vehicles_detail_hour: "média por dia nessa hora",
      kpi_lines: "Linhas",
      kpi_km: "Quilômetros",
      kpi_speed: "Velocidade média",
      kpi_stops: "Paradas ≥ 5 min",
      kpi_trips: "Viagens",
      kpi_error_rate: "Taxa de erro",
      kpi_error_detail: "{n} rejeitados",
      kpi_latency: "Latência p50 / p90",
      ov_fleet: "Frota em serviço por hora",
      ov_fleet_sub: "Veículos com ao menos uma posição na hora ({agg}), por modo",
      ov_fleet_line_sub: "Veículos da linha {line} com ao menos uma posição na hora ({agg})",
      ov_positions: "Posições por hora",
      ov_positions_sub: "Posições aceitas, soma do período, por modo",
      ov_health: "Saúde dos feeds",
      ov_health_sub: "Cada feed num relance: volume, erros, atraso e dias com dados",
      feed: "Feed",
      accepted: "Aceitas",
      errors: "Erros",
      error_rate: "Taxa de erro",
      duplicates: "Duplicatas",
      latency_p50: "Latência p50",
      latency_p90: "Latência p90",
      days_with_data: "Dias com dados",
      per_day: "Posições por dia",
      status: "Situação",
      status_good: "OK",
      status_warn: "Atenção",
      status_bad: "Problema",
      status_none: "Sem dados",
      vehicles: "veículos",
      positions: "posições",
      // speed
      sp_intro: "Onde e quando o trânsito é lento. O mapa colore cada célula de ~500 m pela velocidade média dos veículos que passaram por ela. Clique numa célula para ver o perfil dela.",
      sp_map: "Velocidade média por célula",
      sp_map_sub_hour: "Às {hour}, {modes}",
      sp_map_sub_all: "Todas as horas somadas, {modes}",
      sp_map_line_note: "As células somam todas as linhas do modo: a tabela de velocidade por célula não guarda a linha. A linha {line} aparece destacada.",
      sp_no_cells: "Nenhuma célula com segmentos para estes filtros.",
      sp_slowest: "Células mais lentas (≥ 10 min observados):",
      sp_hour: "Velocidade média por hora",
      sp_hour_sub: "km/h, Σ distância ÷ Σ tempo dos segmentos, por modo",
      sp_hour_sub_line: "km/h da linha {line}",
      sp_hour_sub_cell: "km/h na célula {cell}, por modo",
      sp_slow: "Células lentas por hora",
      sp_slow_sub: "Células com velocidade média < 10 km/h",
      sp_lines: "Velocidade por linha",
      sp_lines_sub: "Clique numa linha para filtrar todas as páginas",
      col_line: "Linha",
      col_name: "Nome",
      col_mode: "Modo",
      col_vehicles: "Veículos",
      col_km: "km",
      col_speed: "km/h",
      col_stops: "Paradas",
      col_terminal: "No terminal",
      col_trips: "Viagens",
      map_zoom_in: "Aproximar",
      map_zoom_out: "Afastar",
      map_reset: "Enquadrar tudo",
      map_hint: "Arraste para mover, roda ou +/− para zoom. No teclado: setas movem, + e − aproximam, Enter escolhe a célula do centro.",
      speed_kmh: "{v} km/h",
      cell_tip: "Célula {cell}\n{speed} km/h\n{min} min observados, {km} km",
      legend_speed: "km/h",
      legend_area: "Limite da área",
      legend_shapes: "Traçado das linhas (GTFS)",
      legend_selected_line: "Linha escolhida",
      // regularity
      rg_intro: "Se cada linha passa no intervalo prometido. Partidas e intervalos vêm do comando frota headways, que compara as viagens com o GTFS.",
      rg_unavailable_title: "Intervalos não disponíveis neste banco.",
      rg_unavailable: "Nenhuma tabela de partidas/intervalos foi encontrada. Rode frota headways com este banco e o GTFS para calcular partidas encontradas × planejadas, intervalos, agrupamento e buracos; depois gere o painel de novo.",
      rg_kpis: "Indicadores de regularidade",
      rg_found_ratio: "Partidas encontradas",
      rg_found_detail: "{found} de {planned} planejadas",
      rg_bunching: "Agrupamento",
      rg_bunching_detail: "intervalo < 0,25 × planejado",
      rg_gap: "Buracos",
      rg_gap_detail: "intervalo > 2 × planejado",
      rg_cv: "CV do intervalo",
      rg_cv_detail: "nível {band} (TCQSM)",
      rg_excess: "Espera excedente",
      rg_excess_detail: "min por passageiro",
      rg_found: "Partidas encontradas × planejadas por hora",
      rg_found_sub: "Soma do período, {scope}",
      rg_found_series: "Encontradas",
      rg_planned_series: "Planejadas",
      rg_dist: "Intervalo real ÷ planejado",
      rg_dist_sub: "Distribuição dos intervalos, {n} intervalos; 1 = no horário",
      rg_lines: "Regularidade por linha",
      rg_lines_sub: "Clique numa linha para filtrar",
      col_found: "Encontradas",
      col_planned: "Planejadas",
      col_ratio: "% encontr.",
      col_median: "Mediana (min)",
      col_planned_h: "Planejado (min)",
      col_bunching: "Agrup.",
      col_gap: "Buracos",
      col_cv: "CV",
      col_band: "Nível",
      rg_trips: "Viagens observadas por hora",
      rg_trips_sub: "Viagens (trip_id do feed) pela hora da primeira posição; não são partidas",
      rg_trips_none: "Nenhuma viagem: o feed destes filtros não informa trip_id.",
      rg_no_hours: "A tabela de partidas por hora não está no banco.",
      rg_no_headways: "A tabela de intervalos individuais não está no banco.",
      rg_median: "Intervalo mediano",
      rg_median_detail: "min, {n} intervalos medidos",
      rg_p90: "Intervalo p90",
      rg_minutes: "min",
      rg_under60: "Intervalos < 1 min",
      rg_under60_detail: "parte dos intervalos medidos",
      rg_excluded: "Intervalos excluídos",
      rg_excluded_none: "o banco não separa exclusões",
      rg_reason_service_break: "pausa planejada",
      rg_reason_coverage_gap: "falha do feed",
      rg_lines_sub_hour: "Clique numa linha para filtrar; cobertura, silêncio e atrasadas são do dia inteiro",
      rg_daytype: "Tipo de dia",
      rg_dt_all: "Todos",
      rg_dt_weekday: "Dia útil",
      rg_dt_saturday: "Sábado",
      rg_dt_sunday: "Domingo",
      rg_dt_holiday: "Feriado",
      rg_no_coverage: "As tabelas de cobertura (coverage_gaps, line_silences) não estão no banco: rode a versão atual de frota headways.",
      rg_strip: "Cobertura por linha ao longo do dia",
      rg_strip_sub: "Quando o feed ficou cego e quando a linha ficou em silêncio, {n} data(s); sombra = parte das datas",
      rg_strip_more: "Mostrando {n} de {total} linhas; filtre um modo ou uma linha.",
      rg_strip_blind: "Feed sem dados",
      rg_strip_silent: "Linha em silêncio",
      rg_strip_planned: "Hora com partidas planejadas",
      rg_strip_clear: "nenhuma falha de cobertura",
      rg_strip_none: "Nenhuma linha com partidas para estes filtros.",
      rg_single_line_feeds: "Feeds com uma única linha ({feeds}): um feed cego e uma linha em silêncio não se distinguem; os minutos de silêncio são 0 por construção.",
      rg_limits: "Limites destes dados",
      rg_limits_coverage: "Cobertura: minutos em que o feed não entregou nenhuma posição ficam de fora. Um par de partidas com uma falha do feed (≥ 5 min sem dados) entre elas não vira intervalo: é contado como excluído (falha do feed), e as partidas planejadas dentro da falha saem das planejadas.",
      rg_limits_breaks: "Pausas planejadas: entre dois períodos de serviço (uma linha só de pico, uma linha noturna) não há intervalo; o par é contado como excluído (pausa planejada). Mediana, p90, CV e espera excedente usam só os intervalos medidos.",
      rg_limits_plan: "Plano mais antigo que o feed: planejado vem do GTFS informado. Se o GTFS é antigo (a operação mudou depois), partidas encontradas, intervalo planejado, agrupamento, buracos e espera excedente comparam com um plano que já não vale.",
      rg_limits_late: "Viagens marcadas tarde: alguns feeds só informam o trip_id depois que o ônibus saiu do terminal; a partida é recuperada pelas posições dos 30 min anteriores quando existem, senão se perde e o intervalo seguinte fica maior.",
      rg_limits_old: "Atenção: a tabela de intervalos deste banco é anterior a estas regras (sem a coluna exclusion): pares através de pausas planejadas e falhas do feed não estão marcados e entram nas estatísticas. Rode a versão atual de frota headways.",
      rg_limits_single: "Um feed que carrega uma única linha não distingue um feed cego de uma linha em silêncio: toda falha conta como do feed, e os minutos de silêncio dessa linha são 0 por construção.",
      col_direction: "Sentido",
      col_p90: "p90 (min)",
      col_under60: "< 1 min",
      col_excluded: "Excluídos",
      col_coverage: "Cobertura",
      col_silent: "Silêncio (min)",
      col_late: "Marcadas tarde",
      all_lines_scope: "todas as linhas do filtro",
      line_scope: "linha {line}",
      // stops
      st_intro: "Onde os veículos ficam parados por 5 minutos ou mais (dentro de 50 m), e se isso acontece no terminal ou no meio do caminho.",
      st_map: "Paradas ≥ 5 min",
      st_map_sub: "{n} paradas; área do círculo proporcional à duração",
      st_near: "No terminal (≤ 250 m)",
      st_away: "Fora do terminal",
      st_unknown: "Linha fora do GTFS",
      st_kpis: "Resumo das paradas",
      st_count: "Paradas",
      st_hours: "Horas paradas",
      st_median: "Duração mediana",
      st_share_terminal: "No terminal",
      st_share_detail: "{n} de {of} com linha no GTFS",
      st_hist: "Duração das paradas",
      st_hist_sub: "Número de paradas por faixa de duração (início da faixa, em minutos)",
      st_hour: "Paradas por hora de início",
      st_hour_sub: "Clique numa barra para filtrar a hora",
      st_longest: "Paradas mais longas",
      st_longest_sub: "As 25 maiores para os filtros atuais",
      col_vehicle: "Veículo",
      col_start: "Início",
      col_duration: "Duração",
      col_where: "Local",
      yes: "sim",
      no: "não",
      unknown: "?",
      stop_tip: "Veículo {vehicle}, linha {line}\n{start}, {duration}\n{where}",
      minutes_short: "{n} min",
      hours_short: "{h} h {m} min",
      // quality
      q_intro: "Quanto do feed é aproveitável: o que foi recusado e por quê, o atraso entre a medição e a chegada, e os sinais de problemas na coleta.",
      q_kpis: "Resumo da qualidade",
      q_scope_feeds: "Qualidade é medida por feed: mostrando {feeds}.",
      q_latency: "Latência (chegada − medição)",
      q_latency_sub: "Posições aceitas por faixa de 10 s; linhas tracejadas: p50 e p90",
      q_reasons: "Rejeições por motivo e hora",
      q_reasons_sub: "Registros recusados pelas regras (duplicatas à parte)",
      q_reason_table: "Motivo",
      q_count: "Registros",
      q_other_reasons: "Demais motivos conhecidos, todos zero: {names}",
      q_no_rejections: "Nenhuma rejeição para estes filtros.",
      q_repeats: "Respostas repetidas",
      q_repeats_sub: "Respostas do feed iguais à anterior (mesmo horário de cabeçalho ou conteúdo)",
      q_collector: "Saúde da coleta",
      q_collector_sub: "Requisições ao feed por hora, da tabela {table}",
      q_polls: "Requisições",
      q_failed: "Falhas (≠ 200)",
      q_repeated: "Repetidas",
      q_mean_ms: "Duração média",
      q_collector_unavailable: "Este banco não tem registro das requisições do coletor (ex.: foi preenchido por frota replay de um arquivo). Coleta ao vivo com frota collect/run grava essa tabela.",
      q_slots: "Horários duplicados",
      q_slots_sub: "Viagens programadas (trip_id, data) vistas com dois ou mais veículos",
      q_slots_none: "Nenhum horário duplicado.",
      col_date: "Data",
      col_trip: "trip_id",
      q_slots_more: "Mostrando {n} de {total}.",
      q_reports: "Relatórios das etapas",
      q_reports_sub: "Relatórios JSON passados com --report",
      q_reports_none: "Nenhum relatório: passe --report ARQUIVO (ex.: o de frota replay --report) para vê-los aqui.",
      latency_s: "{v} s",
      reason_names: {
        missing_vehicle_id: "sem id de veículo",
        missing_coordinates: "sem coordenadas",
        latitude_out_of_range: "latitude inválida",
        longitude_out_of_range: "longitude inválida",
        null_island: "ponto (0, 0)",
        missing_timestamp: "sem horário",
        timestamp_in_milliseconds: "horário em ms",
        state_vector_too_short: "vetor curto (OpenSky)",
        malformed_record: "registro malformado",
        bad_payload: "mensagem ilegível",
        future: "no futuro",
        stale: "atrasado > 5 min",
        out_of_area: "fora da área",
        duplicate: "duplicata",
        jump: "salto > 120 km/h",
        late: "tardio",
      },
      // docs
      doc_title: "Documentação",
      doc_intro: "Cada visual em três partes: o que mostra, como é calculado (com a regra de docs/semantics.md) e seus limites. Use o tour para passar por todos.",
      doc_start: "Iniciar tour",
      doc_prev: "Anterior",
      doc_next: "Próximo",
      doc_close: "Fechar",
      doc_finish: "Concluir",
      doc_what: "O que mostra",
      doc_how: "Como é calculado",
      doc_limits: "Limites",
      doc_step: "{i} de {n} · {page}",
      bad_version: "Este arquivo foi gerado por outra versão do frota (dados versão {v}); gere o painel de novo.",
      not_available: "Não disponível",
    },
    en: {
      title: "Fleet dashboard",
      skip: "Skip to content",
      docs: "Documentation",
      lang_label: "Language",
      mode: "Mode",
      line: "Line",
      hour: "Hour",
      all_modes: "All modes",
      all_lines: "All lines",
      all_hours: "All hours",
      cell: "Cell",
      clear_filters: "Clear filters",
      remove_filter: "Remove filter {name}",
      active_filters: "Active filters",
      no_filters: "No filters: all data of the period.",
      tab_overview: "Overview",
      tab_speed: "Speed",
      tab_regularity: "Regularity",
      tab_stops: "Stops",
      tab_quality: "Quality",
      period: "Period",
      days: ["{n} date with data", "{n} dates with data"],
      full_days: ["{full} full day", "{full} full days"],
      agg_days: "mean per full day: {full} of {n} dates",
      source: "Database {db}",
      tz: "local hours of {tz}",
      no_line: "(no line)",
      mode_bus: "Bus",
      mode_brt: "BRT",
      mode_rail: "Rail",
      mode_ferry: "Ferry",
      mode_aircraft: "Aircraft",
      mode_other: "Other",
      not_in_gtfs: "not in GTFS",
      help: "What is this?",
      help_for: "Documentation: {name}",
      per_day_mean: "mean per day",
      total: "total",
      ov_intro: "How many vehicles ran, when, and whether the feed can be trusted. Click a bar to filter the hour, a legend entry to filter the mode.",
      ov_kpis: "Headline numbers",
      kpi_positions: "Accepted positions",
      kpi_vehicles: "Vehicles",
      kpi_vehicles_hour: "Vehicles at {hour}",
      kpi_vehicles_detail_period: "distinct in the period",
      kpi_vehicles_detail_hour: "mean per day at that hour",
      kpi_lines: "Lines",
      kpi_km: "Kilometres",
      kpi_speed: "Mean speed",
      kpi_stops: "Stops ≥ 5 min",
      kpi_trips: "Trips",
      kpi_error_rate: "Error rate",
      kpi_error_detail: "{n} rejected",
      kpi_latency: "Latency p50 / p90",
      ov_fleet: "Fleet in service by hour",
      ov_fleet_sub: "Vehicles with at least one position in the hour ({agg}), by mode",
      ov_fleet_line_sub: "Vehicles of line {line} with at least one position in the hour ({agg})",
      ov_positions: "Positions by hour",
      ov_positions_sub: "Accepted positions, period total, by mode",
      ov_health: "Feed health",
      ov_health_sub: "Each feed at a glance: volume, errors, delay and days with data",
      feed: "Feed",
      accepted: "Accepted",
      errors: "Errors",
      error_rate: "Error rate",
      duplicates: "Duplicates",
      latency_p50: "Latency p50",
      latency_p90: "Latency p90",
      days_with_data: "Days with data",
      per_day: "Positions per day",
      status: "Status",
      status_good: "OK",
      status_warn: "Warning",
      status_bad: "Problem",
      status_none: "No data",
      vehicles: "vehicles",
      positions: "positions",
      sp_intro: "Where and when traffic is slow. The map colours each ~500 m cell by the mean speed of the vehicles that crossed it. Click a cell to see its profile.",
      sp_map: "Mean speed by cell",
      sp_map_sub_hour: "At {hour}, {modes}",
      sp_map_sub_all: "All hours together, {modes}",
      sp_map_line_note: "Cells add up every line of the mode: the speed-by-cell table does not keep the line. Line {line} is highlighted.",
      sp_no_cells: "No cell has segments for these filters.",
      sp_slowest: "Slowest cells (≥ 10 min observed):",
      sp_hour: "Mean speed by hour",
      sp_hour_sub: "km/h, Σ distance ÷ Σ time of the segments, by mode",
      sp_hour_sub_line: "km/h of line {line}",
      sp_hour_sub_cell: "km/h in cell {cell}, by mode",
      sp_slow: "Slow cells by hour",
      sp_slow_sub: "Cells whose mean speed is < 10 km/h",
      sp_lines: "Speed by line",
      sp_lines_sub: "Click a line to filter every page",
      col_line: "Line",
      col_name: "Name",
      col_mode: "Mode",
      col_vehicles: "Vehicles",
      col_km: "km",
      col_speed: "km/h",
      col_stops: "Stops",
      col_terminal: "At terminal",
      col_trips: "Trips",
      map_zoom_in: "Zoom in",
      map_zoom_out: "Zoom out",
      map_reset: "Fit everything",
      map_hint: "Drag to pan, wheel or +/− to zoom. Keyboard: arrows pan, + and − zoom, Enter picks the cell in the centre.",
      speed_kmh: "{v} km/h",
      cell_tip: "Cell {cell}\n{speed} km/h\n{min} min observed, {km} km",
      legend_speed: "km/h",
      legend_area: "Area boundary",
      legend_shapes: "Line shapes (GTFS)",
      legend_selected_line: "Chosen line",
      rg_intro: "Whether each line runs at its promised headway. Departures and headways come from the frota headways command, which compares trips with the GTFS.",
      rg_unavailable_title: "Headways are not available in this database.",
      rg_unavailable: "No departures/headways table was found. Run frota headways on this database with the GTFS to compute departures found vs planned, headways, bunching and gaps; then build the dashboard again.",
      rg_kpis: "Regularity indicators",
      rg_found_ratio: "Departures found",
      rg_found_detail: "{found} of {planned} planned",
      rg_bunching: "Bunching",
      rg_bunching_detail: "headway < 0.25 × planned",
      rg_gap: "Gaps",
      rg_gap_detail: "headway > 2 × planned",
      rg_cv: "Headway CV",
      rg_cv_detail: "band {band} (TCQSM)",
      rg_excess: "Excess wait",
      rg_excess_detail: "min per rider",
      rg_found: "Departures found vs planned by hour",
      rg_found_sub: "Period total, {scope}",
      rg_found_series: "Found",
      rg_planned_series: "Planned",
      rg_dist: "Actual ÷ planned headway",
      rg_dist_sub: "Distribution of headways, {n} headways; 1 = on schedule",
      rg_lines: "Regularity by line",
      rg_lines_sub: "Click a line to filter",
      col_found: "Found",
      col_planned: "Planned",
      col_ratio: "% found",
      col_median: "Median (min)",
      col_planned_h: "Planned (min)",
      col_bunching: "Bunch.",
      col_gap: "Gaps",
      col_cv: "CV",
      col_band: "Band",
      rg_trips: "Trips observed by hour",
      rg_trips_sub: "Trips (the feed's trip_id) by the hour of their first position; these are not departures",
      rg_trips_none: "No trips: the feed of these filters carries no trip_id.",
      rg_no_hours: "The departures-by-hour table is not in the database.",
      rg_no_headways: "The individual headways table is not in the database.",
      rg_median: "Median headway",
      rg_median_detail: "min, {n} measured headways",
      rg_p90: "p90 headway",
      rg_minutes: "min",
      rg_under60: "Headways < 1 min",
      rg_under60_detail: "share of measured headways",
      rg_excluded: "Excluded headways",
      rg_excluded_none: "the database does not mark exclusions",
      rg_reason_service_break: "planned break",
      rg_reason_coverage_gap: "feed gap",
      rg_lines_sub_hour: "Click a line to filter; coverage, silence and tagged late are whole-day",
      rg_daytype: "Day type",
      rg_dt_all: "All",
      rg_dt_weekday: "Weekday",
      rg_dt_saturday: "Saturday",
      rg_dt_sunday: "Sunday",
      rg_dt_holiday: "Holiday",
      rg_no_coverage: "The coverage tables (coverage_gaps, line_silences) are not in the database: run the current frota headways.",
      rg_strip: "Coverage by line over the day",
      rg_strip_sub: "When the feed was blind and when the line was silent, {n} date(s); shade = share of the dates",
      rg_strip_more: "Showing {n} of {total} lines; filter a mode or a line.",
      rg_strip_blind: "Feed blind",
      rg_strip_silent: "Line silent",
      rg_strip_planned: "Hour with planned departures",
      rg_strip_clear: "no coverage gap",
      rg_strip_none: "No line with departures for these filters.",
      rg_single_line_feeds: "Feeds carrying a single line ({feeds}): a blind feed and a silent line cannot be told apart; their silent minutes are 0 by construction.",
      rg_limits: "Limits of these data",
      rg_limits_coverage: "Coverage: minutes in which the feed delivered no position are left out. A pair of departures with a feed gap (≥ 5 min without data) between them is not a headway: it is counted as excluded (feed gap), and planned departures inside the gap leave the planned count.",
      rg_limits_breaks: "Planned breaks: between two service periods (a peak-only line, a night line) there is no headway; the pair is counted as excluded (planned break). Median, p90, CV and excess wait use measured headways only.",
      rg_limits_plan: "A plan older than the feed: planned comes from the GTFS given. If that GTFS is stale (the service changed since), departures found, planned headway, bunching, gaps and excess wait compare with a plan that no longer holds.",
      rg_limits_late: "Trips tagged late: some feeds report the trip_id only after the bus has left the terminal; the departure is recovered from the positions of the 30 min before when they exist, otherwise it is lost and the next headway grows.",
      rg_limits_old: "Caution: this database's headways table predates these rules (no exclusion column): pairs across planned breaks and feed gaps are not marked and enter the statistics. Run the current frota headways.",
      rg_limits_single: "A feed carrying a single line cannot tell a blind feed from a silent line: every gap counts as the feed's, and that line's silent minutes are 0 by construction.",
      col_direction: "Direction",
      col_p90: "p90 (min)",
      col_under60: "< 1 min",
      col_excluded: "Excluded",
      col_coverage: "Coverage",
      col_silent: "Silent (min)",
      col_late: "Tagged late",
      all_lines_scope: "every line of the filter",
      line_scope: "line {line}",
      st_intro: "Where vehicles stand still for 5 minutes or more (within 50 m), and whether that happens at a terminal or along the way.",
      st_map: "Stops ≥ 5 min",
      st_map_sub: "{n} stops; circle area proportional to the duration",
      st_near: "At a terminal (≤ 250 m)",
      st_away: "Away from terminals",
      st_unknown: "Line not in the GTFS",
      st_kpis: "Stops summary",
      st_count: "Stops",
      st_hours: "Hours stopped",
      st_median: "Median duration",
      st_share_terminal: "At a terminal",
      st_share_detail: "{n} of {of} with the line in the GTFS",
      st_hist: "Stop duration",
      st_hist_sub: "Number of stops by duration band (start of the band, in minutes)",
      st_hour: "Stops by start hour",
      st_hour_sub: "Click a bar to filter the hour",
      st_longest: "Longest stops",
      st_longest_sub: "The 25 longest for the current filters",
      col_vehicle: "Vehicle",
      col_start: "Start",
      col_duration: "Duration",
      col_where: "Where",
      yes: "yes",
      no: "no",
      unknown: "?",
      stop_tip: "Vehicle {vehicle}, line {line}\n{start}, {duration}\n{where}",
      minutes_short: "{n} min",
      hours_short: "{h} h {m} min",
      q_intro: "How much of the feed is usable: what was refused and why, the delay between measurement and arrival, and signs of collection trouble.",
      q_kpis: "Quality summary",
      q_scope_feeds: "Quality is measured per feed: showing {feeds}.",
      q_latency: "Latency (arrival − measurement)",
      q_latency_sub: "Accepted positions per 10 s band; dashed lines: p50 and p90",
      q_reasons: "Rejections by reason and hour",
      q_reasons_sub: "Records refused by the rules (duplicates apart)",
      q_reason_table: "Reason",
      q_count: "Records",
      q_other_reasons: "Other known reasons, all zero: {names}",
      q_no_rejections: "No rejections for these filters.",
      q_repeats: "Repeated responses",
      q_repeats_sub: "Feed responses equal to the previous one (same header time or content)",
      q_collector: "Collector health",
      q_collector_sub: "Requests to the feed by hour, from table {table}",
      q_polls: "Requests",
      q_failed: "Failures (≠ 200)",
      q_repeated: "Repeated",
      q_mean_ms: "Mean duration",
      q_collector_unavailable: "This database has no record of the collector's requests (e.g. it was filled by frota replay of an archive). Live collection with frota collect/run writes that table.",
      q_slots: "Duplicated schedule slots",
      q_slots_sub: "Scheduled trips (trip_id, date) seen with two or more vehicles",
      q_slots_none: "No duplicated slot.",
      col_date: "Date",
      col_trip: "trip_id",
      q_slots_more: "Showing {n} of {total}.",
      q_reports: "Stage reports",
      q_reports_sub: "JSON reports given with --report",
      q_reports_none: "No report: pass --report FILE (e.g. the one of frota replay --report) to see them here.",
      latency_s: "{v} s",
      reason_names: {
        missing_vehicle_id: "no vehicle id",
        missing_coordinates: "no coordinates",
        latitude_out_of_range: "bad latitude",
        longitude_out_of_range: "bad longitude",
        null_island: "point (0, 0)",
        missing_timestamp: "no timestamp",
        timestamp_in_milliseconds: "timestamp in ms",
        state_vector_too_short: "short vector (OpenSky)",
        malformed_record: "malformed record",
        bad_payload: "unreadable message",
        future: "in the future",
        stale: "stale > 5 min",
        out_of_area: "out of area",
        duplicate: "duplicate",
        jump: "jump > 120 km/h",
        late: "late",
      },
      doc_title: "Documentation",
      doc_intro: "Every visual in three parts: what it shows, how it is computed (with the rule of docs/semantics.md) and its limits. Take the tour to go through all of them.",
      doc_start: "Start the tour",
      doc_prev: "Previous",
      doc_next: "Next",
      doc_close: "Close",
      doc_finish: "Finish",
      doc_what: "What it shows",
      doc_how: "How it is computed",
      doc_limits: "Limits",
      doc_step: "{i} of {n} · {page}",
      bad_version: "This file was written by another version of frota (data version {v}); build the dashboard again.",
      not_available: "Not available",
    },
  };

  let LANG = "pt-BR";
  function t(key, vars) {
    let text = WORDS[LANG][key];
    if (text === undefined) text = WORDS.en[key];
    if (text === undefined) return key;
    // [singular, plural], chosen by the count the message is about.
    if (Array.isArray(text)) {
      const count = vars ? Number(String(vars.count !== undefined ? vars.count : Object.values(vars)[0]).replace(/\D/g, "")) : 2;
      text = text[count === 1 ? 0 : 1];
    }
    if (vars) {
      text = text.replace(/\{(\w+)\}/g, (m, name) => (name in vars ? String(vars[name]) : m));
    }
    return text;
  }
  const numberFormats = new Map();
  function nf(value, digits) {
    const d = digits || 0;
    const key = LANG + d;
    let f = numberFormats.get(key);
    if (!f) {
      f = new Intl.NumberFormat(LANG, { minimumFractionDigits: d, maximumFractionDigits: d });
      numberFormats.set(key, f);
    }
    return f.format(value);
  }
  function pct(share, digits) {
    if (!(share >= 0) || !isFinite(share)) return "–";
    return nf(share * 100, digits === undefined ? 1 : digits) + "%";
  }
  function hourLabel(hour) {
    return LANG === "en" ? pad2(hour) + ":00" : pad2(hour) + "h";
  }
  function durationLabel(seconds) {
    const minutes = Math.round(seconds / 60);
    if (minutes < 60) return t("minutes_short", { n: nf(minutes) });
    return t("hours_short", { h: nf(Math.floor(minutes / 60)), m: pad2(minutes % 60) });
  }
  function dateLabel(iso) {
    const parts = iso.split("-").map(Number);
    const date = new Date(Date.UTC(parts[0], parts[1] - 1, parts[2]));
    return new Intl.DateTimeFormat(LANG, { timeZone: "UTC", day: "2-digit", month: "short", year: "numeric" }).format(date);
  }
  function modeName(index) {
    const m = D.modes[index];
    const key = "mode_" + m;
    return WORDS[LANG][key] !== undefined ? t(key) : m;
  }

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
      terminal: S.near_terminal,
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
    return d;
  }

  // ===================================================================== 3. state and URL

  const PAGES = ["overview", "speed", "regularity", "stops", "quality"];
  const S = { page: "overview", mode: null, line: null, hour: null, cell: null, dt: null };

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
  }
  function writeHash() {
    const params = new URLSearchParams();
    if (S.page !== "overview") params.set("p", S.page);
    if (S.mode !== null) params.set("mode", D.modes[S.mode]);
    if (S.line !== null) params.set("line", lineKey(S.line));
    if (S.hour !== null) params.set("hour", String(S.hour));
    if (S.cell !== null) params.set("cell", S.cell);
    if (S.dt !== null) params.set("dt", S.dt);
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
  const TERMINAL_COLORS = { near: "#0072B2", away: "#D55E00", unknown: "#8c8c8c" };
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

  // o: {id, label, draw(ctx, project, view), hover(lon, lat) -> text|null, pick(lon, lat)}
  function mapView(o) {
    const wrap = h("div", { class: "map-wrap" });
    const canvas = h("canvas", { tabindex: "0", role: "img", "aria-label": o.label });
    const scale = h("div", { class: "map-scale", "aria-hidden": "true" });
    const b = D.bbox;
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
    for (let k = 0; k < D.chCell.length; k++) {
      if (mode !== null && D.chMode[k] !== mode) continue;
      if (hourFilter !== null && D.chHour[k] !== hourFilter) continue;
      const c = D.chCell[k];
      dist.set(c, (dist.get(c) || 0) + D.chDist[k]);
      dur.set(c, (dur.get(c) || 0) + D.chDur[k]);
    }
    const out = [];
    for (const [c, t_] of dur) if (t_ > 0) out.push({ cell: c, dist: dist.get(c), dur: t_, kmh: (3.6 * dist.get(c)) / t_ });
    return out;
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

  // ---- overview ----------------------------------------------------------------------

  function pageOverview() {
    const lines = scopeLines();
    const fleet = fleetSeries();
    let positions = 0;
    for (const sr of positionSeries()) for (let hour = 0; hour < HOURS; hour++) if (hourOk(hour)) positions += sr.values[hour];
    let vehicles;
    let vehiclesLabel;
    let vehiclesDetail;
    if (S.hour === null) {
      vehicles = S.line !== null ? D.totals.line_vehicles[S.line] : S.mode !== null ? D.totals.mode_vehicles[S.mode] : D.totals.vehicles;
      vehiclesLabel = t("kpi_vehicles");
      vehiclesDetail = t("kpi_vehicles_detail_period");
    } else {
      vehicles = sum(fleet.map((sr) => sr.values[S.hour]));
      vehiclesLabel = t("kpi_vehicles_hour", { hour: hourLabel(S.hour) });
      vehiclesDetail = t("kpi_vehicles_detail_hour");
    }
    let lineCount = 0;
    for (const l of lines) if (D.lineRoute[l] !== "" && lineHourSum("positions", l) > 0) lineCount++;
    const speed = speedTotals(lines);
    let trips = 0;
    for (const l of lines) trips += lineHourSum("trips", l);
    const stopsCount = scopedStops().length;
    const q = qualityTotals(scopeFeeds(), S.hour);
    const errRate = q.accepted + q.errors > 0 ? q.errors / (q.accepted + q.errors) : NaN;
    const p50 = latencyPercentile(q.latency, 0.5);
    const p90 = latencyPercentile(q.latency, 0.9);
    const kpis = h("div", { class: "kpis" },
      kpi("positions", t("kpi_positions"), nf(positions)),
      kpi("vehicles", vehiclesLabel, nf(vehicles, S.hour === null ? 0 : dayDecimals()), vehiclesDetail),
      kpi("lines", t("kpi_lines"), nf(lineCount)),
      kpi("km", t("kpi_km"), nf(speed.dist / 1000)),
      kpi("speed", t("kpi_speed"), isFinite(speed.kmh) ? nf(speed.kmh, 1) + " km/h" : "–"),
      kpi("stops", t("kpi_stops"), nf(stopsCount)),
      kpi("trips", t("kpi_trips"), nf(trips)),
      kpi("error_rate", t("kpi_error_rate"), pct(errRate, 2), t("kpi_error_detail", { n: nf(q.errors) })),
      kpi("latency", t("kpi_latency"), isFinite(p50) ? nf(p50) + " / " + nf(p90) + " s" : "–"));
    const agg = D.nDays > 1 ? t("agg_days", { n: nf(D.nDays), full: nf(D.totals.full_days) }) : dateLabel(D.dates[0] || "1970-01-01");
    const fleetSub = S.line !== null ? t("ov_fleet_line_sub", { line: lineLabel(S.line), agg: agg }) : t("ov_fleet_sub", { agg: agg });
    const fleetModes = fleet.filter((sr) => sr.mode !== undefined).map((sr) => sr.mode);
    const fleetCard = card("ov-fleet", t("ov_fleet"), fleetSub,
      [hourChart("ov-fleet", fleet, { format: (v) => nf(v, dayDecimals()) + " " + t("vehicles"), ariaLabel: t("ov_fleet") }),
        S.line === null ? modeLegend(fleetModes) : null],
      { span: "span-6" });
    const posSeries = positionSeries();
    const posCard = card("ov-positions", t("ov_positions"), t("ov_positions_sub"),
      [hourChart("ov-positions", posSeries, { format: (v) => nf(v) + " " + t("positions"), ariaLabel: t("ov_positions") }),
        S.line === null ? modeLegend(posSeries.map((sr) => sr.mode)) : null],
      { span: "span-6" });
    return [
      h("p", { class: "page-intro", text: t("ov_intro") }),
      h("div", { class: "grid" },
        card("ov-kpis", t("ov_kpis"), filterSummary(), kpis),
        fleetCard,
        posCard,
        healthCard()),
    ];
  }

  function healthCard() {
    const Q = D.quality;
    const rows = [];
    for (const f of scopeFeeds()) {
      const q = qualityTotals([f], S.hour);
      // Days with data out of the days between the feed's first and last: gaps in its own span.
      let days = 0;
      let first = -1;
      let last = -1;
      for (let d = 0; d < D.nDays; d++) {
        if (Q.day_accepted[f * D.nDays + d] > 0) {
          days++;
          if (first < 0) first = d;
          last = d;
        }
      }
      const span = first < 0 ? 0 : last - first + 1;
      const rate = q.accepted + q.errors > 0 ? q.errors / (q.accepted + q.errors) : NaN;
      const p50 = latencyPercentile(q.latency, 0.5);
      const p90 = latencyPercentile(q.latency, 0.9);
      let status = "good";
      if (q.accepted + q.errors === 0) status = "none";
      else if (rate > 0.2 || p90 > 180 || days < 0.5 * span) status = "bad";
      else if (rate > 0.05 || p90 > 90 || days < span) status = "warn";
      rows.push({ feed: D.feeds[f], accepted: q.accepted, errors: q.errors, rate: rate, duplicates: q.duplicates, p50: p50, p90: p90, days: days, span: span, status: status });
    }
    const table = dataTable({
      id: "ov-health",
      caption: t("ov_health"),
      columns: [
        { key: "feed", label: t("feed") },
        { key: "status", label: t("status"), value: (r) => ["none", "good", "warn", "bad"].indexOf(r.status), node: (r) => h("span", { class: "status " + r.status, text: t("status_" + r.status) }) },
        { key: "accepted", label: t("accepted"), num: true, format: (r) => nf(r.accepted) },
        { key: "errors", label: t("errors"), num: true, format: (r) => nf(r.errors) },
        { key: "rate", label: t("error_rate"), num: true, format: (r) => pct(r.rate, 2) },
        { key: "duplicates", label: t("duplicates"), num: true, format: (r) => nf(r.duplicates) },
        { key: "p50", label: t("latency_p50"), num: true, format: (r) => (isFinite(r.p50) ? nf(r.p50) + " s" : "–") },
        { key: "p90", label: t("latency_p90"), num: true, format: (r) => (isFinite(r.p90) ? nf(r.p90) + " s" : "–") },
        { key: "days", label: t("days_with_data"), num: true, format: (r) => nf(r.days) + " / " + nf(r.span) },
      ],
      rows: rows,
      sort: { key: "feed", desc: false },
    });
    let perDay = null;
    if (D.nDays > 1) {
      const values = [];
      const feeds = scopeFeeds();
      for (let d = 0; d < D.nDays; d++) {
        let v = 0;
        for (const f of feeds) v += Q.day_accepted[f * D.nDays + d];
        values.push(v);
      }
      perDay = h("div", null,
        h("p", { class: "sub", text: t("per_day") }),
        chart({ id: "ov-days", labels: D.dates.map((d) => d.slice(5)), series: [{ label: t("accepted"), color: "#0072B2", values: values }], height: 120, labelWidth: 48, format: (v) => nf(v) + " " + t("positions"), tipSuffix: (i) => " (" + dateLabel(D.dates[i]) + ")" }));
    }
    return card("ov-health", t("ov_health"), t("ov_health_sub"), [table, perDay]);
  }

  // ---- speed -------------------------------------------------------------------------

  function modesText() {
    const mode = effectiveMode();
    return mode === null ? t("all_modes").toLowerCase() : modeName(mode);
  }
  function cellKey(c) {
    return D.cellX[c] + "," + D.cellY[c];
  }
  // A cell as people read it: the latitude and longitude of its centre.
  function cellPlace(key) {
    const parts = key.split(",").map(Number);
    return nf((parts[1] + 0.5) * D.cellSize, 3) + "; " + nf((parts[0] + 0.5) * D.cellSize, 3);
  }
  function pageSpeed() {
    const cells = cellTotals(S.hour);
    const byCell = new Map(cells.map((c) => [c.cell, c]));
    const size = D.cellSize;
    const selectedCell = S.cell !== null ? D.cellByKey.get(S.cell) : null;
    const map = mapView({
      id: "speed",
      label: t("sp_map"),
      draw: (ctx, project) => {
        drawBase(ctx, project, S.line);
        ctx.globalAlpha = 0.86;
        for (const c of cells) {
          const x = D.cellX[c.cell];
          const y = D.cellY[c.cell];
          const a = project(x * size, (y + 1) * size);
          const b = project((x + 1) * size, y * size);
          ctx.fillStyle = speedColor(c.kmh);
          ctx.fillRect(a[0], a[1], Math.max(1, b[0] - a[0]), Math.max(1, b[1] - a[1]));
        }
        ctx.globalAlpha = 1;
        drawLineOnTop(ctx, project, S.line);
        if (selectedCell !== null && selectedCell !== undefined) {
          const x = D.cellX[selectedCell];
          const y = D.cellY[selectedCell];
          const a = project(x * size, (y + 1) * size);
          const b = project((x + 1) * size, y * size);
          ctx.strokeStyle = "#ffffff";
          ctx.lineWidth = 5;
          ctx.strokeRect(a[0], a[1], b[0] - a[0], b[1] - a[1]);
          ctx.strokeStyle = "#c2410c";
          ctx.lineWidth = 2.5;
          ctx.strokeRect(a[0], a[1], b[0] - a[0], b[1] - a[1]);
        }
      },
      hover: (lon, lat) => {
        const key = Math.floor(lon / size) + "," + Math.floor(lat / size);
        const c = D.cellByKey.get(key);
        const e = c === undefined ? null : byCell.get(c);
        if (!e) return null;
        return t("cell_tip", { cell: cellPlace(key), speed: nf(e.kmh, 1), min: nf(e.dur / 60), km: nf(e.dist / 1000, 1) });
      },
      pick: (lon, lat) => {
        const key = Math.floor(lon / size) + "," + Math.floor(lat / size);
        const c = D.cellByKey.get(key);
        if (c !== undefined && byCell.has(c)) toggle("cell", key);
      },
    });
    map.firstChild.setAttribute("data-fk", "map:speed");
    const slowest = cells.filter((c) => c.dur >= MIN_SLOWEST_CELL_S).sort((a, b) => a.kmh - b.kmh).slice(0, 8);
    const list = h("div", { class: "cell-list", role: "group", "aria-label": t("sp_slowest") }, h("span", { class: "muted", text: t("sp_slowest") }));
    for (const c of slowest) {
      const key = cellKey(c.cell);
      const sw = h("span", { class: "swatch", "aria-hidden": "true" });
      sw.style.background = speedColor(c.kmh);
      list.appendChild(h("button", { type: "button", "data-fk": "cell:" + key, "aria-pressed": S.cell === key ? "true" : "false", onclick: () => toggle("cell", key) }, sw, cellPlace(key) + " · " + nf(c.kmh, 1) + " km/h"));
    }
    const mapSub = S.hour !== null ? t("sp_map_sub_hour", { hour: hourLabel(S.hour), modes: modesText() }) : t("sp_map_sub_all", { modes: modesText() });
    const mapCard = card("sp-map", t("sp_map"), mapSub, [
      cells.length ? null : unavailable(null, t("sp_no_cells")),
      map,
      legend(SPEED_BANDS.map((b) => ({ color: b.color, label: b.label }))),
      legend(baseLegend(S.line)),
      h("p", { class: "map-hint", text: t("map_hint") }),
      list,
    ], { span: "span-8", note: S.line !== null ? t("sp_map_line_note", { line: lineLabel(S.line) }) : null });

    // Speed by hour.
    let series = [];
    let sub = t("sp_hour_sub");
    if (S.cell !== null) {
      sub = t("sp_hour_sub_cell", { cell: cellPlace(S.cell) });
      const c = D.cellByKey.get(S.cell);
      const mode = effectiveMode();
      for (let m = 0; m < D.nModes; m++) {
        if (mode !== null && m !== mode) continue;
        const dist = new Array(HOURS).fill(0);
        const dur = new Array(HOURS).fill(0);
        for (let k = 0; k < D.chCell.length; k++) {
          if (D.chCell[k] !== c || D.chMode[k] !== m) continue;
          dist[D.chHour[k]] += D.chDist[k];
          dur[D.chHour[k]] += D.chDur[k];
        }
        if (sum(dur) > 0) series.push({ label: modeName(m), color: modeColor(m), values: dur.map((v, i) => (v > 0 ? (3.6 * dist[i]) / v : null)) });
      }
    } else if (S.line !== null) {
      sub = t("sp_hour_sub_line", { line: lineLabel(S.line) });
      const l = S.line;
      series.push({ label: lineLabel(l), color: modeColor(D.lineMode[l]), values: HOUR_LABELS().map((_, i) => (D.lh.duration_s[l * HOURS + i] > 0 ? (3.6 * D.lh.distance_m[l * HOURS + i]) / D.lh.duration_s[l * HOURS + i] : null)) });
    } else {
      for (let m = 0; m < D.nModes; m++) {
        if (!modeOk(m)) continue;
        const dist = new Array(HOURS).fill(0);
        const dur = new Array(HOURS).fill(0);
        for (let l = 0; l < D.nLines; l++) {
          if (D.lineMode[l] !== m) continue;
          for (let i = 0; i < HOURS; i++) {
            dist[i] += D.lh.distance_m[l * HOURS + i] || 0;
            dur[i] += D.lh.duration_s[l * HOURS + i] || 0;
          }
        }
        if (sum(dur) > 0) series.push({ label: modeName(m), color: modeColor(m), values: dur.map((v, i) => (v > 0 ? (3.6 * dist[i]) / v : null)) });
      }
    }
    const hourCard = card("sp-hour", t("sp_hour"), sub, [
      hourChart("sp-hour", series, { kind: "line", format: (v) => nf(v, 1) + " km/h", threshold: SLOW_KMH, thresholdLabel: "10 km/h", yMin: 20, ariaLabel: t("sp_hour") }),
      legend(series.map((sr) => ({ color: sr.color, label: sr.label, line: true }))),
    ]);
    const slow = slowCellsByHour();
    const slowCard = card("sp-slow", t("sp_slow"), t("sp_slow_sub") + " · " + modesText(), hourChart("sp-slow", [{ label: t("cell"), color: "#440154", values: slow }], { format: (v) => nf(v), height: 180, ariaLabel: t("sp_slow") }));
    return [
      h("p", { class: "page-intro", text: t("sp_intro") }),
      h("div", { class: "grid" }, mapCard, stack("span-4", hourCard, slowCard), linesCard()),
    ];
  }

  function lineRows(lines) {
    const st = D.stops;
    const stopCount = new Map();
    const stopNear = new Map();
    const stopKnown = new Map();
    for (let i = 0; i < st.n; i++) {
      if (!hourOk(st.hour[i]) || (S.cell !== null && st.cell[i] !== S.cell)) continue;
      const l = st.line[i];
      stopCount.set(l, (stopCount.get(l) || 0) + 1);
      if (st.terminal[i] !== null) {
        stopKnown.set(l, (stopKnown.get(l) || 0) + 1);
        if (st.terminal[i] === 1) stopNear.set(l, (stopNear.get(l) || 0) + 1);
      }
    }
    return lines.map((l) => {
      const dist = lineHourSum("distance_m", l);
      const dur = lineHourSum("duration_s", l);
      const days = D.totals.line_days[l] || 0;
      const vehicles = S.hour === null ? D.totals.line_vehicles[l] || 0 : days ? (D.lh.vehicle_days[l * HOURS + S.hour] || 0) / days : 0;
      const known = stopKnown.get(l) || 0;
      return {
        line: l,
        label: lineLabel(l),
        name: D.lineLong[l] || (D.lineInGtfs[l] ? "" : t("not_in_gtfs")),
        mode: modeName(D.lineMode[l]),
        vehicles: vehicles,
        km: dist / 1000,
        kmh: dur > 0 ? (3.6 * dist) / dur : NaN,
        stops: stopCount.get(l) || 0,
        terminal: known ? (stopNear.get(l) || 0) / known : NaN,
        trips: lineHourSum("trips", l),
      };
    });
  }
  function linesCard() {
    const mode = effectiveMode();
    const lines = [];
    for (let l = 0; l < D.nLines; l++) if (mode === null || D.lineMode[l] === mode) lines.push(l);
    const rows = lineRows(lines).filter((r) => r.km > 0 || r.stops > 0 || r.vehicles > 0 || r.trips > 0);
    const table = dataTable({
      id: "sp-lines",
      caption: t("sp_lines"),
      columns: [
        { key: "label", label: t("col_line"), button: true, value: (r) => D.lineRoute[r.line] },
        { key: "name", label: t("col_name"), format: (r) => r.name, muted: (r) => !D.lineInGtfs[r.line] },
        { key: "mode", label: t("col_mode") },
        { key: "vehicles", label: t("col_vehicles"), num: true, format: (r) => nf(r.vehicles, S.hour === null ? 0 : dayDecimals()) },
        { key: "km", label: t("col_km"), num: true, format: (r) => nf(r.km) },
        { key: "kmh", label: t("col_speed"), num: true, format: (r) => (isFinite(r.kmh) ? nf(r.kmh, 1) : "–") },
        { key: "stops", label: t("col_stops"), num: true, format: (r) => nf(r.stops) },
        { key: "terminal", label: t("col_terminal"), num: true, format: (r) => pct(r.terminal, 0) },
        { key: "trips", label: t("col_trips"), num: true, format: (r) => nf(r.trips) },
      ],
      rows: rows,
      sort: { key: "label", desc: false },
      onRow: (r) => toggle("line", r.line),
      selected: (r) => r.line === S.line,
      rowKey: (r) => lineKey(r.line),
    });
    return card("sp-lines", t("sp_lines"), t("sp_lines_sub"), table);
  }

  // ---- regularity --------------------------------------------------------------------

  function pageRegularity() {
    const HW = D.headways;
    const scope = S.line !== null ? t("line_scope", { line: lineLabel(S.line) }) : t("all_lines_scope");
    const ok = (line, hour, dir, dt) => headwayLineOk(line) && hourOk(hour) && (dt === undefined || dayTypeOk(dt));
    const cards = [];
    const top = [h("p", { class: "page-intro", text: t("rg_intro") })];
    if (!HW) {
      cards.push(card("rg-kpis", t("rg_kpis"), null, unavailable(t("rg_unavailable_title"), t("rg_unavailable"))));
      cards.push(card("rg-found", t("rg_found"), null, unavailable(null, t("rg_no_hours")), { span: "span-6" }));
      cards.push(card("rg-dist", t("rg_dist"), null, unavailable(null, t("rg_no_headways")), { span: "span-6" }));
      cards.push(card("rg-strip", t("rg_strip"), null, unavailable(null, t("rg_no_coverage"))));
      cards.push(card("rg-lines", t("rg_lines"), null, unavailable(null, t("rg_no_headways"))));
    } else {
      top.push(dayTypeSelector());
      const stats = headwayStats(ok);
      const dep = departures((line) => headwayLineOk(line));
      const excluded = excludedCounts((line, hour) => headwayLineOk(line) && hourOk(hour));
      let found = 0;
      let planned = 0;
      for (let hour = 0; hour < HOURS; hour++) {
        if (!hourOk(hour)) continue;
        found += dep.found[hour];
        planned += dep.planned[hour];
      }
      const band = tcqsmBand(stats.cv);
      const minutes = (v) => (isFinite(v) ? nf(v / 60, 1) : "–");
      const has = !!HW.headways;
      cards.push(card("rg-kpis", t("rg_kpis"), filterSummary(), h("div", { class: "kpis" },
        kpi("found_ratio", t("rg_found_ratio"), HW.hours ? pct(planned ? found / planned : NaN, 0) : "–", HW.hours ? t("rg_found_detail", { found: nf(found), planned: nf(planned) }) : t("rg_no_hours")),
        kpi("median", t("rg_median"), has ? minutes(stats.median) : "–", t("rg_median_detail", { n: nf(stats.n) })),
        kpi("p90", t("rg_p90"), has ? minutes(stats.p90) : "–", t("rg_minutes")),
        kpi("under_60s", t("rg_under60"), has && !stats.tooFew ? pct(stats.n ? stats.under60 / stats.n : NaN) : "–", t("rg_under60_detail")),
        kpi("bunching", t("rg_bunching"), has ? pct(stats.nPlanned ? stats.bunching / stats.nPlanned : NaN) : "–", t("rg_bunching_detail")),
        kpi("gap", t("rg_gap"), has ? pct(stats.nPlanned ? stats.gap / stats.nPlanned : NaN) : "–", t("rg_gap_detail")),
        kpi("cv", t("rg_cv"), isFinite(stats.cv) ? nf(stats.cv, 2) : "–", t("rg_cv_detail", { band: band })),
        kpi("excess_wait", t("rg_excess"), isFinite(stats.excess) ? nf(stats.excess / 60, 1) : "–", t("rg_excess_detail")),
        kpi("excluded", t("rg_excluded"), excluded ? nf(excluded.total) : "–", excluded ? excludedText(excluded) : t("rg_excluded_none")))));
      if (HW.hours) {
        cards.push(card("rg-found", t("rg_found"), t("rg_found_sub", { scope: scope }), [
          hourChart("rg-found", [
            { label: t("rg_found_series"), color: "#0072B2", values: dep.found },
            { label: t("rg_planned_series"), color: "#6b7385", values: dep.planned, outline: true },
          ], { stacked: false, ariaLabel: t("rg_found") }),
          legend([{ color: "#0072B2", label: t("rg_found_series") }, { color: "#6b7385", label: t("rg_planned_series"), outline: true }]),
        ], { span: "span-6" }));
      } else {
        cards.push(card("rg-found", t("rg_found"), null, unavailable(null, t("rg_no_hours")), { span: "span-6" }));
      }
      if (has) {
        const bins = [[0, 0.25, "< 0,25"], [0.25, 0.5, "0,25–0,5"], [0.5, 0.75, "0,5–0,75"], [0.75, 1.25, "0,75–1,25"], [1.25, 1.5, "1,25–1,5"], [1.5, 2, "1,5–2"], [2, 3, "2–3"], [3, Infinity, "≥ 3"]];
        const labels = bins.map((b) => (LANG === "en" ? b[2].replace(/,/g, ".") : b[2]));
        const counts = bins.map(() => 0);
        for (const r of stats.ratios) {
          for (let i = 0; i < bins.length; i++) if (r >= bins[i][0] && r < bins[i][1]) { counts[i]++; break; }
        }
        const bunch = counts.map((c, i) => (i === 0 ? c : 0));
        const ontime = counts.map((c, i) => (i > 0 && i < 6 ? c : 0));
        const gaps = counts.map((c, i) => (i >= 6 ? c : 0));
        cards.push(card("rg-dist", t("rg_dist"), t("rg_dist_sub", { n: nf(stats.nPlanned) }), [
          chart({ id: "rg-dist", labels: labels, labelWidth: 56, series: [
            { label: t("rg_bunching"), color: "#D55E00", values: bunch },
            { label: "", color: "#56B4E9", values: ontime },
            { label: t("rg_gap"), color: "#CC79A7", values: gaps },
          ], format: (v) => nf(v), ariaLabel: t("rg_dist") }),
          legend([{ color: "#D55E00", label: t("rg_bunching") + " (< 0,25)" }, { color: "#56B4E9", label: "0,25–2" }, { color: "#CC79A7", label: t("rg_gap") + " (> 2)" }]),
        ], { span: "span-6" }));
      } else {
        cards.push(card("rg-dist", t("rg_dist"), null, unavailable(null, t("rg_no_headways")), { span: "span-6" }));
      }
      cards.push(coverageCard());
      if (has) cards.push(card("rg-lines", t("rg_lines"), t(S.hour !== null && HW.summary ? "rg_lines_sub_hour" : "rg_lines_sub"), regularityTable()));
      else cards.push(card("rg-lines", t("rg_lines"), null, unavailable(null, t("rg_no_headways"))));
    }
    cards.push(limitsCard());
    // Trips are in the database either way: an honest, weaker signal than departures.
    const trips = new Array(HOURS).fill(0);
    for (const l of scopeLines()) for (let hour = 0; hour < HOURS; hour++) trips[hour] += D.lh.trips[l * HOURS + hour] || 0;
    cards.push(card("rg-trips", t("rg_trips"), t("rg_trips_sub"), sum(trips) ? hourChart("rg-trips", [{ label: t("kpi_trips"), color: "#009E73", values: trips }], { format: (v) => nf(v), ariaLabel: t("rg_trips") }) : unavailable(null, t("rg_trips_none"))));
    return [top, h("div", { class: "grid" }, cards)];
  }

  // All / weekday / saturday / sunday / holiday: only the types the data name.
  function dayTypeSelector() {
    const types = dayTypesShown();
    if (!types.length) return null;
    const button = (value, label) => h("button", { type: "button", class: "btn", "data-fk": "daytype:" + (value === null ? "all" : value), "aria-pressed": S.dt === value ? "true" : "false", text: label, onclick: () => update({ dt: value }) });
    return h("div", { class: "daytypes", role: "group", "aria-label": t("rg_daytype") },
      h("span", { class: "daytypes-label", text: t("rg_daytype") + ":" }),
      button(null, t("rg_dt_all")),
      types.map((x) => button(x, WORDS[LANG]["rg_dt_" + x] !== undefined ? t("rg_dt_" + x) : x)));
  }

  // Dates of the selected day type (every date when none is selected).
  function datesOfDayType() {
    const out = new Set();
    const types = D.headways && D.headways.date_day_type;
    for (let d = 0; d < D.nDays; d++) if (S.dt === null || (types && dayTypeOk(types[d]))) out.add(d);
    return out;
  }
  function minuteLabel(m) {
    const mm = ((m % 1440) + 1440) % 1440;
    return pad2(Math.floor(mm / 60)) + ":" + pad2(mm % 60);
  }

  // Per line: when the feeds carrying it were blind (coverage_gaps) and when the line was silent
  // while they were not (line_silences), over the 24 hours of the dates of the selected day
  // type; over several dates a minute's shade is the share of those dates it was blind or silent.
  // Hours with planned departures are shaded behind.
  function coverageCard() {
    const C = D.raw.coverage;
    if (!C || (!C.gaps && !C.silences)) return card("rg-strip", t("rg_strip"), null, unavailable(null, t("rg_no_coverage")));
    const dates = datesOfDayType();
    const nDates = Math.max(1, dates.size);
    const lines = new Set();
    const Hh = D.headways.hours;
    if (Hh) for (let i = 0; i < Hh.line.length; i++) if (Hh.line[i] >= 0 && lineOk(Hh.line[i]) && dayTypeOk(Hh.day_type[i])) lines.add(Hh.line[i]);
    const H = D.headways.headways;
    if (H) for (let g = 0; g < H.line.length; g++) if (H.line[g] >= 0 && lineOk(H.line[g]) && dayTypeOk(H.day_type[g])) lines.add(H.line[g]);
    if (C.silences) for (const l of C.silences.line) if (l >= 0 && lineOk(l)) lines.add(l);
    const ordered = Array.from(lines).sort((a, b) => D.lineMode[a] - D.lineMode[b] || a - b);
    const MAX = 60;
    const shown = ordered.slice(0, MAX);
    // Minute counts over the scope's dates, from intervals [start_min, start_min + minutes).
    const spread = (counts, list, start, minutes) => {
      for (let m = start; m < start + minutes; m++) {
        const day = Math.floor(m / 1440);
        if (!dates.has(day)) continue;
        counts[m % 1440]++;
      }
      list.push([start, minutes]);
    };
    const rows = [];
    for (const l of shown) {
      const feeds = D.lineFeeds[l].length ? D.lineFeeds[l] : Array.from({ length: D.nFeeds }, (_, f) => f);
      const blind = new Array(1440).fill(0);
      const silent = new Array(1440).fill(0);
      const blindList = [];
      const silentList = [];
      if (C.gaps) for (let i = 0; i < C.gaps.feed.length; i++) if (feeds.includes(C.gaps.feed[i]) && dates.has(Math.floor(C.gaps.start_min[i] / 1440))) spread(blind, blindList, C.gaps.start_min[i], C.gaps.minutes[i]);
      if (C.silences) for (let i = 0; i < C.silences.line.length; i++) if (C.silences.line[i] === l && dates.has(Math.floor(C.silences.start_min[i] / 1440))) spread(silent, silentList, C.silences.start_min[i], C.silences.minutes[i]);
      const plannedHours = new Array(HOURS).fill(0);
      if (Hh) for (let i = 0; i < Hh.line.length; i++) if (Hh.line[i] === l && dayTypeOk(Hh.day_type[i]) && Hh.hour[i] >= 0) plannedHours[Hh.hour[i]] += Hh.planned[i];
      rows.push({ line: l, blind, silent, blindList, silentList, plannedHours });
    }
    const width = 900;
    const labelW = 120;
    const rowH = 12;
    const plotW = width - labelW - 8;
    const x = (minute) => labelW + (minute / 1440) * plotW;
    const height = rows.length * (rowH + 4) + 22;
    const svg = s("svg", { viewBox: "0 0 " + width + " " + height, width: "100%", role: "img", "aria-label": t("rg_strip") });
    rows.forEach((r, i) => {
      const y = i * (rowH + 4);
      const g = s("g", { class: "strip-row", "data-line": lineKey(r.line) });
      g.appendChild(s("text", { x: labelW - 6, y: y + rowH - 2, "text-anchor": "end", text: lineLabel(r.line) }));
      g.appendChild(s("rect", { x: labelW, y: y, width: plotW, height: rowH, fill: "#f3f4f7" }));
      for (let hour = 0; hour < HOURS; hour++) {
        if (r.plannedHours[hour] > 0) g.appendChild(s("rect", { class: "strip-planned", x: x(hour * 60), y: y, width: plotW / HOURS, height: rowH, fill: "#dbe7f3" }));
      }
      const runs = (counts, kind, color, y0, hh) => {
        let m = 0;
        while (m < 1440) {
          if (!counts[m]) { m++; continue; }
          const v = counts[m];
          let e = m;
          while (e < 1440 && counts[e] === v) e++;
          g.appendChild(s("rect", { class: "strip-" + kind, "data-kind": kind, x: x(m), y: y0, width: Math.max(1.5, x(e) - x(m)), height: hh, fill: color, "fill-opacity": Math.max(0.25, v / nDates).toFixed(2) }));
          m = e;
        }
      };
      runs(r.blind, "blind", "#D55E00", y, rowH);
      runs(r.silent, "silent", "#000000", y + rowH * 0.25, rowH * 0.5);
      const parts = [lineLabel(r.line)];
      const describe = (list, label) => {
        if (!list.length) return;
        const items = list.slice(0, 6).map(([start, minutes]) => (D.nDays > 1 ? dateLabel(D.dates[Math.floor(start / 1440)]) + " " : "") + minuteLabel(start) + "–" + minuteLabel(start + minutes) + " (" + t("minutes_short", { n: nf(minutes) }) + ")");
        parts.push(label + ": " + items.join(", ") + (list.length > 6 ? " … (" + nf(list.length) + ")" : ""));
      };
      describe(r.blindList, t("rg_strip_blind"));
      describe(r.silentList, t("rg_strip_silent"));
      if (parts.length === 1) parts.push(t("rg_strip_clear"));
      const tip = parts.join("\n");
      g.appendChild(s("rect", { class: "hit", x: labelW, y: y, width: plotW, height: rowH, fill: "transparent" }));
      g.setAttribute("aria-label", tip.replace(/\n/g, "; "));
      g.addEventListener("mouseenter", (e) => showTip(tip, e.clientX, e.clientY));
      g.addEventListener("mousemove", (e) => showTip(tip, e.clientX, e.clientY));
      g.addEventListener("mouseleave", hideTip);
      svg.appendChild(g);
    });
    const axisY = rows.length * (rowH + 4) + 14;
    for (let hour = 0; hour <= HOURS; hour += 3) {
      svg.appendChild(s("text", { x: x(hour * 60), y: axisY, "text-anchor": "middle", class: "strip-axis", text: hourLabel(hour % 24) }));
    }
    const sub = t("rg_strip_sub", { n: nf(dates.size) }) + (ordered.length > MAX ? " " + t("rg_strip_more", { n: nf(MAX), total: nf(ordered.length) }) : "");
    const body = rows.length ? [h("div", { class: "strip" }, svg), legend([
      { color: "#dbe7f3", label: t("rg_strip_planned") },
      { color: "#D55E00", label: t("rg_strip_blind") + (C.gaps ? "" : " (" + t("not_available") + ")") },
      { color: "#000000", label: t("rg_strip_silent") + (C.silences ? "" : " (" + t("not_available") + ")") },
    ])] : unavailable(null, t("rg_strip_none"));
    return card("rg-strip", t("rg_strip"), sub, body, { note: singleLineFeedsNote() });
  }

  // Feeds that carry a single line cannot tell a blind feed from a silent line (semantics §7).
  function singleLineFeeds() {
    const out = [];
    for (let f = 0; f < D.nFeeds; f++) {
      let n = 0;
      for (let l = 0; l < D.nLines; l++) if (D.lineRoute[l] !== "" && D.lineFeeds[l].includes(f)) n++;
      if (n === 1) out.push(f);
    }
    return out;
  }
  function singleLineFeedsNote() {
    const feeds = singleLineFeeds();
    return feeds.length ? t("rg_single_line_feeds", { feeds: feeds.map((f) => D.feeds[f]).join(", ") }) : null;
  }

  // What these numbers can and cannot tell.
  function limitsCard() {
    const HW = D.headways;
    const old = HW && HW.headways && !HW.measured_only;
    const body = h("div", { class: "limits" },
      old ? h("p", { class: "warn", "data-limits": "old", text: t("rg_limits_old") }) : null,
      h("p", { text: t("rg_limits_coverage") }),
      h("p", { text: t("rg_limits_breaks") }),
      h("p", { text: t("rg_limits_plan") }),
      h("p", { text: t("rg_limits_late") }),
      h("p", { text: t("rg_limits_single") }));
    return card("rg-limits", t("rg_limits"), null, body);
  }

  function regularityTable() {
    const mode = effectiveMode();
    const Hh = D.headways.hours;
    const H = D.headways.headways;
    const X = D.headways.excluded;
    const U = D.headways.summary;
    const keys = new Map();
    const addKey = (l, dir) => {
      if (l < 0 || (mode !== null && D.lineMode[l] !== mode)) return;
      keys.set(l + ":" + dir, [l, dir]);
    };
    for (let g = 0; g < H.line.length; g++) addKey(H.line[g], H.direction[g]);
    if (Hh) for (let i = 0; i < Hh.line.length; i++) addKey(Hh.line[i], Hh.direction[i]);
    const dtIndex = S.dt === null ? -1 : D.headways.day_types.indexOf(S.dt);
    const rows = [];
    for (const [l, dir] of keys.values()) {
      const st = headwayStats((line, hour, d, dt) => line === l && d === dir && hourOk(hour) && dayTypeOk(dt), l);
      let found = 0;
      let planned = 0;
      if (Hh) {
        for (let i = 0; i < Hh.line.length; i++) {
          if (Hh.line[i] !== l || Hh.direction[i] !== dir || !hourOk(Hh.hour[i]) || !dayTypeOk(Hh.day_type[i])) continue;
          found += Hh.found[i];
          planned += Hh.planned[i];
        }
      }
      const x = X ? excludedCounts((line, hour, d) => line === l && d === dir && hourOk(hour)) : null;
      if (!st.n && !planned && !found && !(x && x.total)) continue;
      let sm = -1;
      if (U) for (let i = 0; i < U.line.length; i++) if (U.line[i] === l && U.direction[i] === dir && U.day_type[i] === dtIndex) sm = i;
      const fromSummary = (col) => (sm >= 0 && U[col] && U[col][sm] !== null ? U[col][sm] : NaN);
      rows.push({
        line: l, dir: dir, label: lineLabel(l), found: found, planned: planned, ratio: planned ? found / planned : NaN,
        median: st.median / 60, p90: st.p90 / 60, plannedH: st.plannedMedian / 60,
        under60: st.n && !st.tooFew ? st.under60 / st.n : NaN,
        bunching: st.nPlanned ? st.bunching / st.nPlanned : NaN, gap: st.nPlanned ? st.gap / st.nPlanned : NaN, cv: st.cv, band: tcqsmBand(st.cv),
        excluded: x ? x.total : NaN, excludedText: x ? excludedText(x) : "–",
        coverage: fromSummary("coverage_share"), silent: fromSummary("silent_minutes"), late: fromSummary("departures_tagged_late"),
      });
    }
    const minutes = (v) => (isFinite(v) ? nf(v, 1) : "–");
    const count = (v) => (isFinite(v) ? nf(v) : "–");
    const columns = [
      { key: "label", label: t("col_line"), button: true, value: (r) => D.lineRoute[r.line] + ":" + r.dir },
      { key: "dir", label: t("col_direction"), num: true, format: (r) => (r.dir >= 0 ? String(r.dir) : "–") },
      { key: "found", label: t("col_found"), num: true, format: (r) => nf(r.found) },
      { key: "planned", label: t("col_planned"), num: true, format: (r) => nf(r.planned) },
      { key: "ratio", label: t("col_ratio"), num: true, format: (r) => pct(r.ratio, 0) },
      { key: "median", label: t("col_median"), num: true, format: (r) => minutes(r.median) },
      { key: "p90", label: t("col_p90"), num: true, format: (r) => minutes(r.p90) },
      { key: "plannedH", label: t("col_planned_h"), num: true, format: (r) => minutes(r.plannedH) },
      { key: "under60", label: t("col_under60"), num: true, format: (r) => pct(r.under60, 0) },
      { key: "bunching", label: t("col_bunching"), num: true, format: (r) => pct(r.bunching, 0) },
      { key: "gap", label: t("col_gap"), num: true, format: (r) => pct(r.gap, 0) },
      { key: "cv", label: t("col_cv"), num: true, format: (r) => (isFinite(r.cv) ? nf(r.cv, 2) : "–") },
      { key: "band", label: t("col_band"), node: (r) => { const b = h("span", { class: "band", text: r.band }); b.style.background = BAND_COLORS[r.band]; b.style.color = BAND_INK[r.band]; return b; } },
      { key: "excluded", label: t("col_excluded"), num: true, format: (r) => count(r.excluded), node: X ? (r) => h("span", { title: r.excludedText, text: count(r.excluded) }) : undefined },
    ];
    if (U && U.coverage_share) columns.push({ key: "coverage", label: t("col_coverage"), num: true, format: (r) => pct(r.coverage, 0) });
    if (U && U.silent_minutes) columns.push({ key: "silent", label: t("col_silent"), num: true, format: (r) => count(r.silent) });
    if (U && U.departures_tagged_late) columns.push({ key: "late", label: t("col_late"), num: true, format: (r) => count(r.late) });
    return dataTable({
      id: "rg-lines",
      caption: t("rg_lines"),
      columns: columns,
      rows: rows,
      sort: { key: "label", desc: false },
      onRow: (r) => toggle("line", r.line),
      selected: (r) => r.line === S.line,
      rowKey: (r) => lineKey(r.line) + ":" + r.dir,
    });
  }

  // ---- stops -------------------------------------------------------------------------

  function terminalKind(v) {
    return v === null || v === undefined ? "unknown" : v === 1 ? "near" : "away";
  }
  function stopStart(i) {
    const st = D.stops;
    const day = Math.floor(st.start[i] / 1440);
    const minute = st.start[i] % 1440;
    return dateLabel(D.dates[day]) + " " + pad2(Math.floor(minute / 60)) + ":" + pad2(minute % 60);
  }
  function pageStops() {
    const st = D.stops;
    const idx = scopedStops();
    const order = idx.slice().sort((a, b) => st.duration[b] - st.duration[a]);
    const map = mapView({
      id: "stops",
      label: t("st_map"),
      draw: (ctx, project, view) => {
        drawBase(ctx, project, S.line);
        drawLineOnTop(ctx, project, S.line);
        const grow = Math.min(2.2, Math.max(0.8, Math.sqrt(view.k / 900)));
        for (const i of order) {
          const p = project(st.lon[i], st.lat[i]);
          if (p[0] < -20 || p[1] < -20 || p[0] > view.width + 20 || p[1] > view.height + 20) continue;
          const r = Math.max(1.5, 1.5 * Math.sqrt(st.duration[i] / 300) * grow);
          const color = TERMINAL_COLORS[terminalKind(st.terminal[i])];
          ctx.beginPath();
          ctx.arc(p[0], p[1], r, 0, 2 * Math.PI);
          ctx.fillStyle = color;
          ctx.globalAlpha = 0.22;
          ctx.fill();
          ctx.globalAlpha = 0.85;
          ctx.lineWidth = 1;
          ctx.strokeStyle = color;
          ctx.stroke();
        }
        ctx.globalAlpha = 1;
      },
      hover: (lon, lat, k) => {
        let best = -1;
        let bestD = Infinity;
        const px = mercX(lon);
        const py = mercY(lat);
        for (const i of idx) {
          const dx = (mercX(st.lon[i]) - px) * k;
          const dy = (mercY(st.lat[i]) - py) * k;
          const d = dx * dx + dy * dy;
          if (d < bestD) {
            bestD = d;
            best = i;
          }
        }
        if (best < 0 || bestD > 100) return null;
        return t("stop_tip", { vehicle: st.vehicleId[st.vehicle[best]], line: lineLabel(st.line[best]), start: stopStart(best), duration: durationLabel(st.duration[best]), where: t(terminalKind(st.terminal[best]) === "near" ? "st_near" : terminalKind(st.terminal[best]) === "away" ? "st_away" : "st_unknown") });
      },
    });
    map.firstChild.setAttribute("data-fk", "map:stops");
    const mapCard = card("st-map", t("st_map"), t("st_map_sub", { n: nf(idx.length) }), [
      map,
      legend([{ color: TERMINAL_COLORS.near, label: t("st_near"), round: true }, { color: TERMINAL_COLORS.away, label: t("st_away"), round: true }, { color: TERMINAL_COLORS.unknown, label: t("st_unknown"), round: true }]),
      legend(baseLegend(S.line)),
      h("p", { class: "map-hint", text: t("map_hint") }),
    ], { span: "span-8" });

    let near = 0;
    let known = 0;
    let total = 0;
    for (const i of idx) {
      total += st.duration[i];
      if (st.terminal[i] !== null) {
        known++;
        if (st.terminal[i] === 1) near++;
      }
    }
    const durations = idx.map((i) => st.duration[i]).sort((a, b) => a - b);
    const median = durations.length ? durations[Math.floor((durations.length - 1) / 2)] : NaN;
    const kpis = card("st-kpis", t("st_kpis"), filterSummary(), h("div", { class: "kpis" },
      kpi("stops", t("st_count"), nf(idx.length)),
      kpi("stop_hours", t("st_hours"), nf(total / 3600, 1)),
      kpi("stop_median", t("st_median"), isFinite(median) ? durationLabel(median) : "–"),
      kpi("near_terminal", t("st_share_terminal"), pct(known ? near / known : NaN, 0), t("st_share_detail", { n: nf(near), of: nf(known) }))));

    const bins = [[5, 10], [10, 15], [15, 20], [20, 30], [30, 45], [45, 60], [60, 90], [90, 120], [120, 240], [240, Infinity]];
    const binOf = (sec) => {
      const minutes = sec / 60;
      for (let b = 0; b < bins.length; b++) if (minutes < bins[b][1]) return b;
      return bins.length - 1;
    };
    const hist = { near: bins.map(() => 0), away: bins.map(() => 0), unknown: bins.map(() => 0) };
    const byHour = { near: new Array(HOURS).fill(0), away: new Array(HOURS).fill(0), unknown: new Array(HOURS).fill(0) };
    for (const i of idx) {
      const kind = terminalKind(st.terminal[i]);
      hist[kind][binOf(st.duration[i])]++;
    }
    // The hour chart keeps every hour visible (so another can be chosen): filters but the hour.
    for (let i = 0; i < st.n; i++) {
      if (!lineOk(st.line[i]) || (S.cell !== null && st.cell[i] !== S.cell)) continue;
      byHour[terminalKind(st.terminal[i])][st.hour[i]]++;
    }
    const kinds = [["near", t("st_near")], ["away", t("st_away")], ["unknown", t("st_unknown")]];
    const histCard = card("st-hist", t("st_hist"), t("st_hist_sub"), chart({
      id: "st-hist",
      labels: bins.map((b) => (b[0] >= 120 ? b[0] / 60 + " h" : String(b[0]))),
      labelWidth: 26,
      series: kinds.map(([k, label]) => ({ label: label, color: TERMINAL_COLORS[k], values: hist[k] })),
      format: (v) => nf(v),
      tipSuffix: (i) => (bins[i][1] === Infinity ? " h +" : bins[i][0] >= 120 ? "–" + bins[i][1] / 60 + " h" : "–" + bins[i][1] + " min"),
      ariaLabel: t("st_hist"),
    }));
    const hourCard = card("st-hour", t("st_hour"), t("st_hour_sub"), hourChart("st-hour", kinds.map(([k, label]) => ({ label: label, color: TERMINAL_COLORS[k], values: byHour[k] })), { format: (v) => nf(v), ariaLabel: t("st_hour") }), { span: "span-5" });
    const rows = order.slice(0, 25).map((i) => ({
      i: i, vehicle: st.vehicleId[st.vehicle[i]], line: st.line[i], label: lineLabel(st.line[i]), start: st.start[i], duration: st.duration[i],
      terminal: terminalKind(st.terminal[i]), where: nf(st.lat[i], 4) + ", " + nf(st.lon[i], 4),
    }));
    const longest = card("st-longest", t("st_longest"), t("st_longest_sub"), dataTable({
      id: "st-longest",
      caption: t("st_longest"),
      columns: [
        { key: "vehicle", label: t("col_vehicle") },
        { key: "label", label: t("col_line"), button: true, value: (r) => D.lineRoute[r.line] },
        { key: "start", label: t("col_start"), format: (r) => stopStart(r.i) },
        { key: "duration", label: t("col_duration"), num: true, format: (r) => durationLabel(r.duration) },
        { key: "terminal", label: t("col_terminal"), format: (r) => (r.terminal === "near" ? t("yes") : r.terminal === "away" ? t("no") : t("unknown")) },
        { key: "where", label: t("col_where"), format: (r) => r.where },
      ],
      rows: rows,
      sort: { key: "duration", desc: true },
      onRow: (r) => toggle("line", r.line),
      selected: (r) => r.line === S.line,
      rowKey: (r) => "stop" + r.i,
    }), { span: "span-7" });
    longest.querySelector(".table-wrap").style.maxHeight = "330px";
    return [
      h("p", { class: "page-intro", text: t("st_intro") }),
      h("div", { class: "grid" }, mapCard, stack("span-4", kpis, histCard), longest, hourCard),
    ];
  }

  // ---- quality -----------------------------------------------------------------------

  function reasonName(name) {
    const names = WORDS[LANG].reason_names;
    return names[name] || name;
  }
  function pageQuality() {
    const Q = D.quality;
    const feeds = scopeFeeds();
    const q = qualityTotals(feeds, S.hour);
    const rate = q.accepted + q.errors > 0 ? q.errors / (q.accepted + q.errors) : NaN;
    const p50 = latencyPercentile(q.latency, 0.5);
    const p90 = latencyPercentile(q.latency, 0.9);
    const scopeNote = S.mode !== null || S.line !== null ? t("q_scope_feeds", { feeds: feeds.map((f) => D.feeds[f]).join(", ") || "–" }) : null;
    const cards = [];
    cards.push(card("q-kpis", t("q_kpis"), filterSummary(), h("div", { class: "kpis" },
      kpi("accepted", t("accepted"), nf(q.accepted)),
      kpi("errors", t("errors"), nf(q.errors)),
      kpi("error_rate", t("error_rate"), pct(rate, 2)),
      kpi("duplicates", t("duplicates"), nf(q.duplicates)),
      kpi("latency_p50", t("latency_p50"), isFinite(p50) ? nf(p50) + " s" : "–"),
      kpi("latency_p90", t("latency_p90"), isFinite(p90) ? nf(p90) + " s" : "–")), { note: scopeNote }));

    // Latency histogram, 10 s bands from -30 s.
    // 10 s bands from -30 s up to the last band with data (at least to 120 s, at most 300 s).
    let maxSec = 120;
    for (const sec of q.latency.keys()) maxSec = Math.max(maxSec, sec);
    const nb = Math.min(33, Math.floor((maxSec + 30) / 10) + 1);
    const lat = new Array(nb).fill(0);
    for (const [sec, n] of q.latency) lat[Math.min(nb - 1, Math.max(0, Math.floor((sec + 30) / 10)))] += n;
    const markers = [];
    if (isFinite(p50)) markers.push({ at: (p50 + 30) / 10, label: "p50 " + nf(p50) + " s" });
    if (isFinite(p90)) markers.push({ at: (p90 + 30) / 10, label: "p90 " + nf(p90) + " s", row: 1 });
    cards.push(card("q-latency", t("q_latency"), t("q_latency_sub"), chart({
      id: "q-latency",
      labels: lat.map((_, i) => String(i * 10 - 30)),
      labelWidth: 30,
      series: [{ label: t("positions"), color: "#0072B2", values: lat }],
      markers: markers,
      format: (v) => nf(v),
      tipSuffix: (i) => "…" + (i * 10 - 21) + " s",
      ariaLabel: t("q_latency"),
    }), { span: "span-6" }));

    // Rejections by reason and hour (every hour shown; hour selection highlights).
    const reasons = Object.keys(Q.rejected).filter((r) => r !== "duplicate");
    const perHour = reasons.map((name) => {
      const values = new Array(HOURS).fill(0);
      for (const f of feeds) for (let hour = 0; hour < HOURS; hour++) values[hour] += Q.rejected[name][f * HOURS + hour];
      return values;
    });
    const series = reasons.map((name, i) => ({ label: reasonName(name), color: REASON_COLORS[i % REASON_COLORS.length], values: perHour[i] }));
    const zero = Q.reason_names.filter((r) => !(r in Q.rejected) || q.reasons[r] === 0);
    const reasonRows = Q.reason_names.filter((r) => q.reasons[r] > 0).map((r) => ({ reason: reasonName(r), code: r, count: q.reasons[r] }));
    cards.push(card("q-reasons", t("q_reasons"), t("q_reasons_sub"), [
      reasons.length ? hourChart("q-reasons", series, { format: (v) => nf(v), ariaLabel: t("q_reasons") }) : unavailable(null, t("q_no_rejections")),
      reasons.length ? legend(series.map((sr) => ({ color: sr.color, label: sr.label }))) : null,
      reasonRows.length ? dataTable({ id: "q-reason-table", caption: t("q_reasons"), columns: [
        { key: "reason", label: t("q_reason_table"), format: (r) => r.reason + " (" + r.code + ")" },
        { key: "count", label: t("q_count"), num: true, format: (r) => nf(r.count) },
      ], rows: reasonRows, sort: { key: "count", desc: true } }) : null,
    ], { span: "span-6", note: zero.length ? t("q_other_reasons", { names: zero.join(", ") }) : null }));

    // Repeated responses and collector health: only when the collector's table exists.
    const C = D.collector;
    if (C && C.has_repeat) {
      const values = new Array(HOURS).fill(0);
      const polls = new Array(HOURS).fill(0);
      for (const f of feeds) for (let hour = 0; hour < HOURS; hour++) {
        values[hour] += C.repeats[f * HOURS + hour];
        polls[hour] += C.polls[f * HOURS + hour];
      }
      let rep = 0;
      let all = 0;
      for (let hour = 0; hour < HOURS; hour++) if (hourOk(hour)) { rep += values[hour]; all += polls[hour]; }
      cards.push(card("q-repeats", t("q_repeats"), t("q_repeats_sub"), [
        h("div", { class: "kpis" }, kpi("repeats", t("q_repeated"), nf(rep), pct(all ? rep / all : NaN) + " / " + nf(all) + " " + t("q_polls").toLowerCase())),
        hourChart("q-repeats", [{ label: t("q_repeated"), color: "#CC79A7", values: values }], { format: (v) => nf(v), height: 170, ariaLabel: t("q_repeats") }),
      ], { span: "span-6" }));
    } else {
      cards.push(card("q-repeats", t("q_repeats"), t("q_repeats_sub"), unavailable(null, t("q_collector_unavailable")), { span: "span-6" }));
    }
    if (C) {
      const polls = new Array(HOURS).fill(0);
      const failed = new Array(HOURS).fill(0);
      let ms = 0;
      let n = 0;
      for (const f of feeds) for (let hour = 0; hour < HOURS; hour++) {
        const k = f * HOURS + hour;
        polls[hour] += C.polls[k] - C.failed[k];
        failed[hour] += C.failed[k];
        if (hourOk(hour)) { ms += C.duration_ms[k]; n += C.polls[k]; }
      }
      cards.push(card("q-collector", t("q_collector"), t("q_collector_sub", { table: C.table }), [
        h("div", { class: "kpis" },
          kpi("polls", t("q_polls"), nf(sum(polls.filter((_, i) => hourOk(i))) + sum(failed.filter((_, i) => hourOk(i))))),
          kpi("failed", t("q_failed"), nf(sum(failed.filter((_, i) => hourOk(i))))),
          C.has_duration ? kpi("poll_ms", t("q_mean_ms"), n ? nf(ms / n) + " ms" : "–") : null),
        hourChart("q-collector", [{ label: "200", color: "#0072B2", values: polls }, { label: t("q_failed"), color: "#D55E00", values: failed }], { format: (v) => nf(v), height: 170, ariaLabel: t("q_collector") }),
        dataTable({ id: "q-status", caption: "HTTP", columns: [{ key: "status", label: "HTTP" }, { key: "count", label: t("q_polls"), num: true, format: (r) => nf(r.count) }], rows: C.statuses.map((p) => ({ status: String(p[0]), count: p[1] })), sort: { key: "count", desc: true } }),
      ], { span: "span-6" }));
    } else {
      cards.push(card("q-collector", t("q_collector"), null, unavailable(null, t("q_collector_unavailable")), { span: "span-6" }));
    }

    // Duplicated schedule slots.
    const SL = D.slots;
    const slotRows = [];
    for (let i = 0; i < SL.trip_id.length; i++) {
      if (!feeds.includes(SL.feed[i])) continue;
      if (S.line !== null && SL.line[i] !== S.line) continue;
      if (S.line === null && S.mode !== null && SL.line[i] >= 0 && D.lineMode[SL.line[i]] !== S.mode) continue;
      slotRows.push({ date: SL.date[i], trip: SL.trip_id[i], vehicles: SL.vehicles[i], line: SL.line[i], label: SL.line[i] >= 0 ? lineLabel(SL.line[i]) : "–", feed: D.feeds[SL.feed[i]] });
    }
    const slotBody = [];
    slotBody.push(h("div", { class: "kpis" }, kpi("slots", t("q_slots"), nf(S.line === null && S.mode === null ? SL.total : slotRows.length))));
    if (SL.total === 0) {
      slotBody.push(h("p", { class: "muted", text: t("q_slots_none") }));
    } else {
      if (D.nDays > 1 && S.line === null && S.mode === null) {
        slotBody.push(chart({ id: "q-slots-days", labels: D.dates.map((d) => d.slice(5)), series: [{ label: t("q_slots"), color: "#E69F00", values: SL.per_day }], height: 110, labelWidth: 48, format: (v) => nf(v), tipSuffix: (i) => " (" + dateLabel(D.dates[i]) + ")" }));
      }
      slotBody.push(dataTable({ id: "q-slots", caption: t("q_slots"), limit: 50, columns: [
        { key: "date", label: t("col_date") },
        { key: "trip", label: t("col_trip") },
        { key: "label", label: t("col_line"), value: (r) => r.label },
        { key: "vehicles", label: t("col_vehicles"), num: true, format: (r) => nf(r.vehicles) },
      ], rows: slotRows, sort: { key: "vehicles", desc: true } }));
      if (slotRows.length > 50 || SL.total > SL.trip_id.length) slotBody.push(h("p", { class: "note", text: t("q_slots_more", { n: nf(Math.min(50, slotRows.length)), total: nf(S.line === null && S.mode === null ? SL.total : slotRows.length) }) }));
    }
    cards.push(card("q-slots", t("q_slots"), t("q_slots_sub"), slotBody, { span: "span-6" }));

    // Stage reports.
    const reports = D.reports.map((r) => h("details", { class: "report" },
      h("summary", { text: r.name }),
      dataTable({ id: "q-report-" + r.name, caption: r.name, columns: [{ key: "key", label: "" }, { key: "value", label: "" }], rows: r.keys.map((k, i) => ({ key: k, value: r.values[i], order: i })), sort: { key: "order", desc: false } })));
    cards.push(card("q-reports", t("q_reports"), t("q_reports_sub"), reports.length ? reports : unavailable(null, t("q_reports_none")), { span: "span-6" }));
    return [h("p", { class: "page-intro", text: t("q_intro") }), h("div", { class: "grid" }, cards)];
  }

  // ===================================================================== 9. documentation

  // Every visual: what it shows, how it is computed (pointing at the rule), and its limits.
  // Keys are the data-visual ids; the tour visits them in this order.
  const DOCS = [
    { id: "ov-kpis", page: "overview",
      "pt-BR": ["Os números principais para os filtros atuais: posições aceitas, veículos, linhas, quilômetros, velocidade média, paradas, viagens, taxa de erro e latência.",
        "Posições e veículos vêm de fleet_hours e positions (veículo = feed + id, semantics §1); km e velocidade de speed_lines (Σ distância ÷ Σ tempo, §4 speed); paradas de stops; taxa de erro = rejeições (sem duplicatas) ÷ (aceitas + rejeições), de quality (§4 quality); latência p50/p90 = menor atraso cujo acumulado alcança 50 %/90 % (semantics-notes).",
        "Com uma hora escolhida, “veículos” é a média por dia naquela hora, não o total distinto. Num período de vários dias, somas cobrem todos os dias. Linhas sem nome no feed contam posições e km, mas não entram na contagem de linhas."],
      en: ["The headline numbers for the current filters: accepted positions, vehicles, lines, kilometres, mean speed, stops, trips, error rate and latency.",
        "Positions and vehicles come from fleet_hours and positions (vehicle = feed + id, semantics §1); km and speed from speed_lines (Σ distance ÷ Σ time, §4 speed); stops from stops; error rate = rejections (duplicates apart) ÷ (accepted + rejections), from quality (§4 quality); latency p50/p90 = the smallest delay whose running count reaches 50%/90% (semantics-notes).",
        "With an hour chosen, “vehicles” is the mean per day at that hour, not the distinct total. Over several days, sums cover every day. Positions without a line count in positions and km, not in the line count."] },
    { id: "ov-fleet", page: "overview",
      "pt-BR": ["Quantos veículos estavam em serviço em cada hora do dia, por modo (ou só da linha escolhida).",
        "Um veículo está em serviço numa hora local se tem ao menos uma posição aceita nela (fleet_hours, §4 speed). Com vários dias, mostra a média por dia: soma de todas as datas ÷ dias cheios (datas com ao menos 1/10 das posições da data mais movimentada; as sobras de um dia de serviço depois da meia-noite somam, mas não contam como dia). Para uma linha, conta veículos distintos da tabela positions por hora local.",
        "Um veículo que só passou 1 minuto na hora conta como um inteiro. Horas sem dados num dia baixam a média. Veículos que trocam de linha contam em cada linha."],
      en: ["How many vehicles were in service in each hour of the day, by mode (or for the chosen line only).",
        "A vehicle is in service in a local hour if it has at least one accepted position in it (fleet_hours, §4 speed). Over several days it shows the mean per day: the sum over every date ÷ full days (dates with at least 1/10 of the busiest date's positions; the slivers of a service day after midnight add up but do not count as days). For a line it counts distinct vehicles of the positions table per local hour.",
        "A vehicle seen for one minute of the hour counts as a whole one. Hours without data on some day lower the mean. Vehicles that change line count in each line."] },
    { id: "ov-positions", page: "overview",
      "pt-BR": ["O volume de posições aceitas por hora do dia, somado no período.",
        "Soma de positions em fleet_hours (por modo) ou das posições da linha; só posições que passaram todas as regras de validação (§2).",
        "Mede o volume do feed, não da operação: um feed que envia a cada 15 s mostra 4 vezes mais posições que um a cada minuto."],
      en: ["The volume of accepted positions by hour of the day, summed over the period.",
        "Sum of positions in fleet_hours (by mode) or of the line's positions; only positions that passed every validation rule (§2).",
        "It measures the feed's volume, not the service: a feed reporting every 15 s shows 4 times more positions than one reporting every minute."] },
    { id: "ov-health", page: "overview",
      "pt-BR": ["Cada feed num relance: aceitas, erros, duplicatas, latência e dias com dados, com uma situação resumida, e as posições por dia.",
        "Da tabela quality (§4 quality). Dias com dados: datas com posições aceitas, dos dias entre a primeira e a última data do feed. Situação: Problema se erro > 20 %, p90 > 180 s ou dados em menos da metade desses dias; Atenção se erro > 5 %, p90 > 90 s ou algum dia sem dados; senão OK.",
        "Os limites da situação são escolhas deste painel, não do contrato. Um feed parado por horas dentro de um dia não aparece em “dias com dados”: veja as posições por hora."],
      en: ["Each feed at a glance: accepted, errors, duplicates, latency and days with data, with a summary status, and positions per day.",
        "From the quality table (§4 quality). Days with data: dates with accepted positions, out of the days between the feed's first and last date. Status: Problem if errors > 20%, p90 > 180 s or data on fewer than half of those days; Warning if errors > 5%, p90 > 90 s or any day without data; otherwise OK.",
        "The status thresholds are this dashboard's choice, not the contract's. A feed down for hours within a day does not show in “days with data”: look at positions by hour."] },
    { id: "sp-map", page: "speed",
      "pt-BR": ["Cada célula de ~510 m × 556 m colorida pela velocidade média dos segmentos que terminam nela, na hora escolhida (ou em todas), sobre o limite da área e o traçado das linhas do GTFS.",
        "Um segmento liga duas posições consecutivas aceitas do mesmo veículo com 0 < Δt ≤ 300 s; pertence à célula da posição final (floor(lon/0,005), floor(lat/0,005)). Velocidade = 3,6 × Σ distância ÷ Σ tempo (speed_cells, §4 speed). Projeção Web Mercator própria, sem mapa de fundo.",
        "Células com poucos segmentos são ruidosas: passe o mouse para ver os minutos observados. A tabela por célula não guarda a linha, então o filtro de linha não muda as células. Trechos após um intervalo > 300 s não contam."],
      en: ["Each ~510 m × 556 m cell coloured by the mean speed of the segments ending in it, at the chosen hour (or all of them), over the area boundary and the GTFS line shapes.",
        "A segment joins two consecutive accepted positions of one vehicle with 0 < Δt ≤ 300 s; it belongs to the cell of its end position (floor(lon/0.005), floor(lat/0.005)). Speed = 3.6 × Σ distance ÷ Σ time (speed_cells, §4 speed). Own Web Mercator projection, no background map.",
        "Cells with few segments are noisy: hover to see the minutes observed. The per-cell table keeps no line, so the line filter does not change the cells. Stretches after a gap > 300 s do not count."] },
    { id: "sp-hour", page: "speed",
      "pt-BR": ["A velocidade média por hora do dia, por modo, da linha escolhida ou da célula escolhida; a linha tracejada marca 10 km/h.",
        "Σ distância ÷ Σ tempo dos segmentos da hora (speed_lines por linha e modo, speed_cells para uma célula, §4 speed) — uma média ponderada pelo tempo, não a média das velocidades.",
        "Inclui o tempo parado entre posições (um ônibus no ponto reduz a média). A linha de um segmento é a da posição final."],
      en: ["Mean speed by hour of the day, by mode, for the chosen line or the chosen cell; the dashed line marks 10 km/h.",
        "Σ distance ÷ Σ time of the hour's segments (speed_lines for lines and modes, speed_cells for a cell, §4 speed) — a time-weighted mean, not the mean of speeds.",
        "It includes time standing between positions (a bus at a stop lowers the mean). A segment's line is that of its end position."] },
    { id: "sp-slow", page: "speed",
      "pt-BR": ["Quantas células tiveram velocidade média abaixo de 10 km/h em cada hora.",
        "Para cada hora, soma distância e tempo por célula (dos modos do filtro) e conta as células com 3,6 × Σd ÷ Σt < 10.",
        "Toda célula com algum segmento conta, mesmo com um só: terminais e garagens aparecem como lentos. Compare horas entre si, não com outra cidade."],
      en: ["How many cells had a mean speed below 10 km/h in each hour.",
        "For each hour, sums distance and time per cell (over the filter's modes) and counts the cells with 3.6 × Σd ÷ Σt < 10.",
        "Every cell with any segment counts, even with one: terminals and depots show as slow. Compare hours with each other, not with another city."] },
    { id: "sp-lines", page: "speed",
      "pt-BR": ["Uma linha por linha de ônibus/BRT: veículos, km, velocidade, paradas ≥ 5 min, parte no terminal e viagens; clique para filtrar.",
        "km e velocidade de speed_lines; veículos distintos de positions; paradas de stops (linha da posição âncora); viagens de trips pela hora da primeira posição.",
        "O nome vem do GTFS pela resolução de rotas (53B → B53); “fora do GTFS” quando não resolve. Linhas que o feed escreve diferente (ex.: com espaço) aparecem separadas."],
      en: ["One row per line: vehicles, km, speed, stops ≥ 5 min, share at terminals and trips; click to filter.",
        "km and speed from speed_lines; distinct vehicles from positions; stops from stops (line of the anchor position); trips from trips by the hour of the first position.",
        "The name comes from the GTFS through route resolution (53B → B53); “not in GTFS” when it does not resolve. Lines the feed spells differently (e.g. with a space) show separately."] },
    { id: "rg-kpis", page: "regularity",
      "pt-BR": ["Partidas encontradas ÷ planejadas, intervalo mediano e p90, parte abaixo de 1 min, agrupamento, buracos, coeficiente de variação com o nível A–F do TCQSM, espera excedente e intervalos excluídos por motivo, para o tipo de dia escolhido.",
        "Uma partida é a última posição a até 1.000 m do início do padrão da linha antes de o veículo passar de 1.000 m nele; intervalo h = diferença entre partidas seguidas da mesma linha, sentido, data e período de serviço, sem falha do feed entre elas; os demais pares são excluídos (pausa planejada, falha do feed) e só contados. Sobre os intervalos medidos: mediana e p90 interpolados; agrupamento h < 0,25 × planejado p; buraco h > 2 × p; CV = dp(h − p) ÷ média(p); espera excedente = Σh² ÷ 2Σh − Σp² ÷ 2Σp (§7). Com menos de 10 intervalos medidos, só contagens, nenhuma estatística.",
        "Partidas perdidas juntam dois intervalos em um e aumentam buracos e espera; uma viagem duplicada no feed cria falso agrupamento e intervalos < 1 min. Intervalos sem planejado entram na mediana, no p90 e em < 1 min, não nas razões ao plano."],
      en: ["Departures found ÷ planned, median and p90 headway, share under 1 min, bunching, gaps, coefficient of variation with the TCQSM A–F band, excess wait and excluded headways by reason, for the chosen day type.",
        "A departure is the last position within 1,000 m of the start of the line's pattern before the vehicle passes 1,000 m along it; headway h = the difference between consecutive departures of one line, direction, date and service period with no feed gap between them; other pairs are excluded (planned break, feed gap) and only counted. Over measured headways: median and p90 interpolated; bunching h < 0.25 × planned p; gap h > 2 × p; CV = sd(h − p) ÷ mean(p); excess wait = Σh² ÷ 2Σh − Σp² ÷ 2Σp (§7). Fewer than 10 measured headways give counts only, no statistic.",
        "Missed departures merge two headways into one and raise gaps and excess wait; a trip duplicated in the feed makes false bunching and headways under 1 min. Headways without a planned one enter the median, p90 and < 1 min, not the ratios to the plan."] },
    { id: "rg-found", page: "regularity",
      "pt-BR": ["Por hora, quantas partidas foram encontradas e quantas o GTFS planejava, no tipo de dia escolhido.",
        "Da tabela de resumo de frota headways (headway_summary: planejadas que o feed podia ver, fora das falhas do feed), ou das tabelas headways e planned_departures num banco mais antigo; planejadas de frequencies.txt (ou dos horários da primeira parada) para os serviços ativos na data (§7).",
        "Uma partida encontrada numa hora pode ser a planejada da hora anterior (atraso). Partidas fora de todo período de serviço (não planejadas) não contam como encontradas."],
      en: ["By hour, how many departures were found and how many the GTFS planned, for the chosen day type.",
        "From frota headways' summary (headway_summary: planned departures the feed could observe, outside feed gaps), or from the headways and planned_departures tables in an older database; planned from frequencies.txt (or the first stop's times) for the services active on the date (§7).",
        "A departure found in one hour may be the previous hour's planned one (late). Departures outside every service period (unplanned) do not count as found."] },
    { id: "rg-dist", page: "regularity",
      "pt-BR": ["A distribuição dos intervalos medidos divididos pelo planejado: 1 é no horário, < 0,25 é agrupamento, > 2 é buraco.",
        "Cada intervalo medido h dividido pelo intervalo planejado no momento da partida (§7), contado em faixas; pares excluídos (pausa planejada, falha do feed) ficam de fora.",
        "Dividir pelo planejado permite juntar horas e linhas diferentes, mas esconde o tamanho absoluto: 2 × 5 min e 2 × 30 min caem na mesma faixa."],
      en: ["The distribution of measured headways divided by the planned one: 1 is on schedule, < 0.25 is bunching, > 2 is a gap.",
        "Each measured headway h divided by the planned headway at its departure (§7), counted in bands; excluded pairs (planned break, feed gap) stay out.",
        "Dividing by the plan lets different hours and lines be pooled, but hides the absolute size: 2 × 5 min and 2 × 30 min fall in the same band."] },
    { id: "rg-strip", page: "regularity",
      "pt-BR": ["Uma faixa de 24 horas por linha: em laranja quando os feeds da linha ficaram cegos, em preto quando a linha ficou em silêncio com o feed funcionando, em azul claro as horas com partidas planejadas; passe o mouse para ver os intervalos.",
        "Falhas do feed: coverage_gaps (≥ 5 min seguidos sem nenhuma posição aceita do feed); silêncios: line_silences (≥ 5 min sem posição da linha, com o feed coberto e serviço planejado), em hora local (§7). Com várias datas do tipo de dia escolhido, a sombra é a parte das datas em que aquele minuto ficou sem dados.",
        "Um feed de uma única linha não distingue feed cego de linha em silêncio: tudo aparece como feed cego. Falhas menores que 5 min não aparecem. Mostra no máximo 60 linhas."],
      en: ["One 24-hour strip per line: orange when the line's feeds were blind, black when the line was silent while the feed was up, light blue the hours with planned departures; hover to see the intervals.",
        "Feed gaps: coverage_gaps (≥ 5 min in a row without any accepted position of the feed); silences: line_silences (≥ 5 min without a position of the line while the feed was covered and service was planned), in local time (§7). Over several dates of the chosen day type, the shade is the share of the dates on which that minute had no data.",
        "A feed of one line cannot tell a blind feed from a silent line: everything shows as a blind feed. Gaps under 5 min do not show. At most 60 lines are shown."] },
    { id: "rg-lines", page: "regularity",
      "pt-BR": ["Regularidade de cada linha e sentido: partidas, mediana e p90 do intervalo, planejado, < 1 min, agrupamento, buracos, CV, nível, excluídos, e cobertura, silêncio e viagens marcadas tarde quando o banco os tem; clique para filtrar.",
        "As mesmas regras dos indicadores (§7), por linha e sentido, no tipo de dia escolhido. Cobertura (minutos cobertos do serviço planejado), minutos de silêncio e partidas marcadas tarde vêm do resumo do dia inteiro de frota headways (headway_summary).",
        "Linhas com poucos intervalos têm CV instável. O nível A–F do TCQSM supõe serviço por intervalo (não por horário). Cobertura, silêncio e marcadas tarde não seguem o filtro de hora."],
      en: ["Regularity of each line and direction: departures, median and p90 headway, planned, < 1 min, bunching, gaps, CV, band, excluded, and coverage, silence and trips tagged late when the database has them; click to filter.",
        "The same rules as the indicators (§7), per line and direction, for the chosen day type. Coverage (covered minutes of planned service), silent minutes and departures tagged late come from frota headways' whole-day summary (headway_summary).",
        "Lines with few headways have an unstable CV. The TCQSM A–F band assumes headway-based (not timetable) service. Coverage, silence and tagged late do not follow the hour filter."] },
    { id: "rg-limits", page: "regularity",
      "pt-BR": ["O que estes números podem e não podem dizer: cobertura do feed, pausas planejadas, um plano mais antigo que o feed, viagens marcadas tarde e feeds de uma só linha.",
        "Texto fixo, que resume as regras de semantics.md §7 que mais mudam a leitura dos indicadores desta página.",
        "Não detecta sozinho um GTFS antigo: compare as datas do calendário do GTFS com o período do painel, e desconfie de partidas encontradas muito abaixo ou acima das planejadas."],
      en: ["What these numbers can and cannot tell: feed coverage, planned breaks, a plan older than the feed, trips tagged late and single-line feeds.",
        "Fixed text summing up the rules of semantics.md §7 that most change how this page's indicators read.",
        "It does not detect a stale GTFS by itself: compare the GTFS calendar's dates with the dashboard's period, and distrust departures found far below or above the planned ones."] },
    { id: "rg-trips", page: "regularity",
      "pt-BR": ["Quantas viagens (trip_id do feed) começaram em cada hora.",
        "Da tabela trips (§4 trips): posições de um veículo com o mesmo (trip_id, data), separadas por menos de 900 s; hora local da primeira posição.",
        "Não são partidas: uma viagem pode começar no meio do trajeto, e GTFS por frequência reutiliza um trip_id o dia todo (o BRT do Rio faz isso), juntando várias voltas numa viagem."],
      en: ["How many trips (the feed's trip_id) started in each hour.",
        "From the trips table (§4 trips): positions of one vehicle with the same (trip_id, date), less than 900 s apart; local hour of the first position.",
        "These are not departures: a trip may start mid-route, and frequency-based GTFS reuses one trip_id all day (Rio's BRT does), merging several runs into one trip."] },
    { id: "st-map", page: "stops",
      "pt-BR": ["Cada parada de 5 minutos ou mais, no local da posição âncora; área do círculo proporcional à duração; azul no terminal, laranja fora, cinza sem GTFS.",
        "Parada = sequência de posições a até 50 m da primeira, com intervalos ≤ 300 s e duração ≥ 300 s; “no terminal” = até 250 m do primeiro ou último ponto de um traçado da linha (stops, §4 stops).",
        "Coordenadas arredondadas a ~11 m. Uma parada na garagem com a linha ainda informada aparece como fora do terminal. GPS parado com ruído > 50 m divide uma parada em várias."],
      en: ["Every stop of 5 minutes or more, at the anchor position; circle area proportional to the duration; blue at a terminal, orange away, grey without GTFS.",
        "Stop = a run of positions within 50 m of the first, gaps ≤ 300 s, lasting ≥ 300 s; “at a terminal” = within 250 m of the first or last point of a shape of the line (stops, §4 stops).",
        "Coordinates are rounded to ~11 m. A stop at a depot while the line is still reported shows as away from terminals. GPS noise > 50 m splits one stop into several."] },
    { id: "st-kpis", page: "stops",
      "pt-BR": ["Quantas paradas, quantas horas paradas, a duração mediana e a parte no terminal.",
        "Contagem, soma e mediana de duration de stops para os filtros; a parte no terminal considera só paradas cuja linha está no GTFS.",
        "A hora de uma parada é a do seu início; uma parada longa conta inteira nessa hora."],
      en: ["How many stops, how many hours stopped, the median duration and the share at terminals.",
        "Count, sum and median of stop durations for the filters; the terminal share only counts stops whose line is in the GTFS.",
        "A stop's hour is its start hour; a long stop counts whole in that hour."] },
    { id: "st-hist", page: "stops",
      "pt-BR": ["Quantas paradas caem em cada faixa de duração, separadas por terminal / fora / sem GTFS.",
        "Duração = fim − início da parada (stops), em minutos, contada em faixas.",
        "A faixa 5–10 min mistura embarque longo e retenção no trânsito: olhe o mapa para separar."],
      en: ["How many stops fall in each duration band, split by terminal / away / no GTFS.",
        "Duration = end − start of the stop (stops), in minutes, counted in bands.",
        "The 5–10 min band mixes long boarding and traffic holds: use the map to tell them apart."] },
    { id: "st-hour", page: "stops",
      "pt-BR": ["Quantas paradas começaram em cada hora; clique para filtrar.",
        "Hora local do início de cada parada (stops), por situação de terminal.",
        "Mostra todas as horas mesmo com uma hora escolhida, para poder trocar."],
      en: ["How many stops started in each hour; click to filter.",
        "Local hour of each stop's start (stops), by terminal status.",
        "It shows every hour even with one chosen, so that another can be picked."] },
    { id: "st-longest", page: "stops",
      "pt-BR": ["As 25 paradas mais longas para os filtros: veículo, linha, início, duração, se no terminal e onde.",
        "Paradas de stops ordenadas pela duração.",
        "Paradas de horas costumam ser garagem ou fim de operação com o rastreador ligado, não retenção."],
      en: ["The 25 longest stops for the filters: vehicle, line, start, duration, whether at a terminal and where.",
        "Stops ordered by duration.",
        "Stops of hours are usually depots or end of service with the tracker on, not holds."] },
    { id: "q-kpis", page: "quality",
      "pt-BR": ["Aceitas, erros, taxa de erro, duplicatas e latência p50/p90 dos feeds do filtro.",
        "Da tabela quality (§4 quality): cada registro recusado tem um motivo, o primeiro que falha (§2); duplicatas ficam fora da taxa de erro.",
        "Qualidade é por feed: filtrar um modo ou linha mostra os feeds inteiros a que pertencem. Recusas das regras 1–3 contam na hora de chegada, as demais na hora do evento."],
      en: ["Accepted, errors, error rate, duplicates and latency p50/p90 of the filter's feeds.",
        "From the quality table (§4 quality): every refused record has one reason, the first rule that fails (§2); duplicates stay out of the error rate.",
        "Quality is per feed: filtering a mode or line shows the whole feeds they belong to. Refusals of rules 1–3 count in the arrival hour, the others in the event hour."] },
    { id: "q-latency", page: "quality",
      "pt-BR": ["Quanto tempo as posições levam da medição no veículo até chegar ao coletor.",
        "Histograma de ingest_time − event_time das posições aceitas, em segundos de −30 a 300 (quality_latency), agrupado em faixas de 10 s; p50 e p90 pela regra do acumulado.",
        "Relógios de veículo errados geram latências negativas ou grandes. Posições com mais de 300 s já foram recusadas como “atrasado” e não aparecem aqui."],
      en: ["How long positions take from measurement in the vehicle to arrival at the collector.",
        "Histogram of ingest_time − event_time of accepted positions, in seconds from −30 to 300 (quality_latency), grouped in 10 s bands; p50 and p90 by the running-count rule.",
        "Wrong vehicle clocks give negative or large latencies. Positions older than 300 s were refused as “stale” and do not show here."] },
    { id: "q-reasons", page: "quality",
      "pt-BR": ["Registros recusados por motivo e hora, e o total de cada motivo.",
        "Colunas de motivos da tabela quality, somadas nos feeds do filtro; duplicatas ficam na tabela de totais, fora das barras.",
        "Um registro recusado por uma regra não é testado pelas seguintes: “fora da área” pode esconder outros problemas do mesmo registro."],
      en: ["Refused records by reason and hour, and the total of each reason.",
        "The reason columns of the quality table, summed over the filter's feeds; duplicates are in the totals table, not in the bars.",
        "A record refused by one rule is not tested by the later ones: “out of area” can hide other problems of the same record."] },
    { id: "q-repeats", page: "quality",
      "pt-BR": ["Quantas respostas do feed repetiram a anterior (mesmo horário de cabeçalho ou mesmo conteúdo).",
        "Da tabela de requisições do coletor (coluna repeat, §4 quality), por hora local.",
        "Só existe para dados coletados ao vivo; uma resposta repetida não gera posições novas, mas pode esconder um feed travado."],
      en: ["How many feed responses repeated the previous one (same header time or same content).",
        "From the collector's request table (column repeat, §4 quality), by local hour.",
        "Only exists for live-collected data; a repeated response adds no new positions but can hide a stuck feed."] },
    { id: "q-collector", page: "quality",
      "pt-BR": ["As requisições do coletor ao feed: quantas, quantas falharam, duração e códigos HTTP.",
        "Da tabela de requisições do coletor (feed_id, http_status, duration_ms, ingest_time), por hora local.",
        "Só respostas 200 entram no arquivo bronze; as falhas só aparecem aqui."],
      en: ["The collector's requests to the feed: how many, how many failed, duration and HTTP status codes.",
        "From the collector's request table (feed_id, http_status, duration_ms, ingest_time), by local hour.",
        "Only 200 responses enter the bronze archive; failures only show here."] },
    { id: "q-slots", page: "quality",
      "pt-BR": ["Horários programados (trip_id, data) vistos com dois ou mais veículos.",
        "Da visão duplicate_slots sobre trips (§4 quality).",
        "Em GTFS por frequência, um trip_id cobre o dia inteiro e vários veículos o usam legitimamente: a contagem deixa de indicar erro (é o caso do BRT do Rio)."],
      en: ["Scheduled slots (trip_id, date) observed with two or more vehicles.",
        "From the duplicate_slots view over trips (§4 quality).",
        "In frequency-based GTFS one trip_id covers the whole day and several vehicles use it legitimately: the count stops meaning an error (Rio's BRT is such a case)."] },
    { id: "q-reports", page: "quality",
      "pt-BR": ["Os relatórios JSON de cada etapa (replay, coletor) passados com --report, como pares chave/valor.",
        "O arquivo JSON lido como está e achatado (a.b[0].c).",
        "Só o que o relatório diz; nada é recalculado aqui."],
      en: ["The JSON reports of each stage (replay, collector) given with --report, as key/value pairs.",
        "The JSON file read as it is and flattened (a.b[0].c).",
        "Only what the report says; nothing is recomputed here."] },
  ];
  const DOC_TITLES = {
    "ov-kpis": "ov_kpis", "ov-fleet": "ov_fleet", "ov-positions": "ov_positions", "ov-health": "ov_health",
    "sp-map": "sp_map", "sp-hour": "sp_hour", "sp-slow": "sp_slow", "sp-lines": "sp_lines",
    "rg-kpis": "rg_kpis", "rg-found": "rg_found", "rg-dist": "rg_dist", "rg-lines": "rg_lines", "rg-trips": "rg_trips",
    "st-map": "st_map", "st-kpis": "st_kpis", "st-hist": "st_hist", "st-hour": "st_hour", "st-longest": "st_longest",
    "q-kpis": "q_kpis", "q-latency": "q_latency", "q-reasons": "q_reasons", "q-repeats": "q_repeats", "q-collector": "q_collector", "q-slots": "q_slots", "q-reports": "q_reports",
  };
  const tour = { open: false, index: -1, visited: [] };
  window.__frotaTourVisited = tour.visited;

  function openDoc(id) {
    const i = DOCS.findIndex((d) => d.id === id);
    tour.open = true;
    tour.index = i;
    showStep(true);
  }
  function showStep(focusPanel) {
    const doc = tour.index >= 0 ? DOCS[tour.index] : null;
    if (doc && S.page !== doc.page) {
      S.page = doc.page;
      writeHash();
    }
    render();
    if (doc) {
      if (!tour.visited.includes(doc.id)) tour.visited.push(doc.id);
      const node = document.querySelector('[data-visual="' + doc.id + '"]');
      if (node) {
        node.classList.add("tour-focus");
        node.scrollIntoView({ block: "center", behavior: "instant" });
      }
    }
    if (focusPanel) {
      const heading = document.getElementById("doc-heading");
      if (heading) heading.focus();
    }
  }
  function closeDoc() {
    tour.open = false;
    tour.index = -1;
    render();
    const button = document.querySelector('[data-fk="docs"]');
    if (button) button.focus();
  }
  function docPanel() {
    const panel = h("aside", { class: "doc-panel", role: "dialog", "aria-modal": "false", "aria-labelledby": "doc-heading", id: "doc-panel" });
    if (!tour.open) {
      panel.hidden = true;
      return panel;
    }
    const doc = tour.index >= 0 ? DOCS[tour.index] : null;
    panel.addEventListener("keydown", (e) => {
      if (e.key === "Escape") {
        e.preventDefault();
        closeDoc();
      }
    });
    if (!doc) {
      const index = h("ol", { class: "doc-index" });
      for (const page of PAGES) {
        for (const d of DOCS.filter((x) => x.page === page)) {
          index.appendChild(h("li", null, h("button", { type: "button", onclick: () => { tour.index = DOCS.indexOf(d); showStep(true); } }, t("tab_" + page) + " · " + t(DOC_TITLES[d.id]))));
        }
      }
      append(panel, [
        h("h2", { id: "doc-heading", tabindex: "-1", text: t("doc_title") }),
        h("p", { text: t("doc_intro") }),
        h("div", { class: "doc-nav" },
          h("button", { type: "button", class: "btn primary", "data-fk": "doc-start", text: t("doc_start"), onclick: () => { tour.index = 0; showStep(true); } }),
          h("button", { type: "button", class: "btn", text: t("doc_close"), onclick: closeDoc })),
        index,
      ]);
      return panel;
    }
    const text = doc[LANG] || doc.en;
    const last = tour.index === DOCS.length - 1;
    append(panel, [
      h("p", { class: "doc-step", text: t("doc_step", { i: tour.index + 1, n: DOCS.length, page: t("tab_" + doc.page) }) }),
      h("h2", { id: "doc-heading", tabindex: "-1", text: t(DOC_TITLES[doc.id]) }),
      h("h3", { text: t("doc_what") }), h("p", { text: text[0] }),
      h("h3", { text: t("doc_how") }), h("p", { text: text[1] }),
      h("h3", { text: t("doc_limits") }), h("p", { text: text[2] }),
      h("div", { class: "doc-nav" },
        h("button", { type: "button", class: "btn", "data-fk": "doc-prev", text: t("doc_prev"), disabled: tour.index === 0, onclick: () => { tour.index--; showStep(false); } }),
        h("button", { type: "button", class: "btn", text: t("doc_close"), onclick: closeDoc }),
        h("button", { type: "button", class: "btn primary", "data-fk": "doc-next", "data-tour": last ? "finish" : "next", text: last ? t("doc_finish") : t("doc_next"), onclick: () => {
          if (last) closeDoc();
          else { tour.index++; showStep(false); }
        } })),
    ]);
    return panel;
  }

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
    const page = { overview: pageOverview, speed: pageSpeed, regularity: pageRegularity, stops: pageStops, quality: pageQuality }[S.page]();
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
