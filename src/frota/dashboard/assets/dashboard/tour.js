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
    { id: "ac-kpis", page: "aircraft",
      "pt-BR": ["Quantas aeronaves passam pelos filtros desta página, de quantas no banco, e quantas estão em voo, no solo ou sem altitude.",
        "Uma aeronave é um (feed, icao24) com posições de modo aircraft; conta-se a sua última posição aceita (maior horário de evento). Em voo / no solo: o campo on_ground do vetor de estado do OpenSky. Faixas de altitude: no solo (on_ground verdadeiro), < 3.000 m, 3.000–9.000 m, > 9.000 m, sobre a altitude barométrica, ou a geométrica quando a barométrica é nula (assim o decodificador guarda altitude_m, semantics §8).",
        "Uma aeronave sem on_ground só aparece com “Todas”. O país de origem é o que o vetor de estado deu com essa posição, guardado no banco (aircraft_positions); “País desconhecido” para posições gravadas antes dessa tabela."],
      en: ["How many aircraft pass this page's filters, out of how many in the database, and how many are airborne, on ground or without altitude.",
        "An aircraft is a (feed, icao24) with positions of mode aircraft; its latest accepted position (largest event time) is what counts. Airborne / on ground: the on_ground field of OpenSky's state vector. Altitude bands: on ground (on_ground true), < 3,000 m, 3,000–9,000 m, > 9,000 m, on the barometric altitude, or the geometric one when barometric is null (as the decoder stores altitude_m, semantics §8).",
        "An aircraft without on_ground shows only under “All”. The origin country is the one the state vector gave with that position, kept in the database (aircraft_positions); “Country unknown” for positions written before that table."] },
    { id: "ac-map", page: "aircraft",
      "pt-BR": ["A última posição de cada aeronave filtrada, colorida pela faixa de altitude; em voo, uma seta no rumo verdadeiro.",
        "Latitude e longitude da última posição aceita (arredondadas a 1e-4°), na mesma projeção Web Mercator própria dos outros mapas, enquadrando todas as aeronaves do banco, com meridianos e paralelos para orientação; o rumo é true_track.",
        "Uma posição por aeronave, não a trajetória. Aeronaves de horários diferentes aparecem juntas: veja o horário na tabela ou passando o mouse."],
      en: ["Each filtered aircraft's latest position, coloured by altitude band; airborne ones as an arrow along the true track.",
        "Latitude and longitude of the latest accepted position (rounded to 1e-4°), in the same own Web Mercator projection as the other maps, framing every aircraft of the database, with meridians and parallels for orientation; the track is true_track.",
        "One position per aircraft, not its path. Aircraft seen at different times show together: read the time in the table or by hovering."] },
    { id: "ac-table", page: "aircraft",
      "pt-BR": ["Uma linha por aeronave filtrada: icao24, indicativo, país de origem, altitude, no solo, velocidade, horário da posição, último contato, posições aceitas e feed; clique num cabeçalho para ordenar.",
        "Da última posição aceita: o indicativo é o callsign (sem espaços), a velocidade é velocity × 3,6, o horário da posição é time_position, ou last_contact quando time_position é nulo (o horário de evento, §8), em UTC. País de origem e último contato (origin_country, last_contact) são os que o vetor de estado deu com essa posição, guardados no banco (aircraft_positions); desconhecidos para posições gravadas antes dessa tabela.",
        "Mostra até 1.000 linhas na ordem escolhida."],
      en: ["One row per filtered aircraft: icao24, callsign, origin country, altitude, on ground, speed, position time, last contact, accepted positions and feed; click a header to sort.",
        "From the latest accepted position: the callsign trimmed, speed = velocity × 3.6, the position time is time_position, or last_contact when time_position is null (the event time, §8), in UTC. Origin country and last contact (origin_country, last_contact) are those the state vector gave with that position, kept in the database (aircraft_positions); unknown for positions written before that table.",
        "Shows up to 1,000 rows in the chosen order."] },
    { id: "ac-quality", page: "aircraft",
      "pt-BR": ["Os números da página Qualidade só para os feeds que trazem aeronaves: aceitas, erros, taxa de erro, duplicatas, saltos, fora da área, latência p50/p90, respostas repetidas e rejeições por motivo.",
        "Das mesmas tabelas quality e quality_latency (§4 quality), somadas sobre os feeds com posições de modo aircraft e, com uma hora escolhida, só nessa hora; repetidas vêm da tabela do coletor quando ela existe.",
        "Qualidade é medida por feed: um feed que misturasse aeronaves e outros modos entraria inteiro. Fora da área só conta quando a replay teve --area."],
      en: ["The Quality page's figures for the feeds that carry aircraft only: accepted, errors, error rate, duplicates, jumps, out of area, latency p50/p90, repeated responses and rejections by reason.",
        "From the same quality and quality_latency tables (§4 quality), summed over the feeds with positions of mode aircraft and, with an hour chosen, that hour only; repeats come from the collector's table when it exists.",
        "Quality is measured per feed: a feed mixing aircraft and other modes would count whole. Out of area counts only when the replay had --area."] },
  ];
  const DOC_TITLES = {
    "ov-kpis": "ov_kpis", "ov-fleet": "ov_fleet", "ov-positions": "ov_positions", "ov-health": "ov_health",
    "sp-map": "sp_map", "sp-hour": "sp_hour", "sp-slow": "sp_slow", "sp-lines": "sp_lines",
    "rg-kpis": "rg_kpis", "rg-found": "rg_found", "rg-dist": "rg_dist", "rg-lines": "rg_lines", "rg-trips": "rg_trips",
    "st-map": "st_map", "st-kpis": "st_kpis", "st-hist": "st_hist", "st-hour": "st_hour", "st-longest": "st_longest",
    "q-kpis": "q_kpis", "q-latency": "q_latency", "q-reasons": "q_reasons", "q-repeats": "q_repeats", "q-collector": "q_collector", "q-slots": "q_slots", "q-reports": "q_reports",
    "ac-kpis": "ac_kpis", "ac-map": "ac_map", "ac-table": "ac_table", "ac-quality": "ac_quality",
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

