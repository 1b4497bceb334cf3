-- Rule 7 exactly: one round of the fixed point that finds the late records.
--
-- The watermark (semantics §3, engine::WatermarkTracker) after arrival s is
--   W(s) = max over arrivals s' <= s that moved it of C(s'),
--   C(s') = min over partitions p active at s' of M_p(s') - max_lateness,
-- where M_p is the largest event time of p's observed records so far, and p is active
-- while (largest ingest time of any observed record) - (largest ingest time of p's)
-- <= idle_timeout. Observed records are the candidates that are not late. A candidate is
-- late when its event time <= W just before it arrives.
--
-- Which records are late depends on W, and W on which records are not late. Given a
-- guess `late_records`, this round computes W from the candidates outside the guess and
-- writes the records that W finds late into `late_records_next`. The true set is the
-- only fixed point, and every round agrees with it on a longer prefix of arrivals, so
-- reconcile.cc repeats the round until the set stops changing: once when nothing is
-- late (the usual case), twice when something is.
--
-- C(s') only needs evaluating where a maximum moves (a partition's largest event time
-- or the largest ingest time): anywhere else the active set can only have grown, so C
-- cannot exceed what W already is. For the same reason evaluating it at a few more
-- places changes nothing, which keeps this cheap: one sort of the observed records by
-- partition and arrival gives each partition's running maxima, and the moves kept are
-- the records that equal their partition's largest event time so far or raise its
-- largest ingest time (every record that raises the overall largest ingest time does).
-- A partition's maxima change only at its moves, so its state at any record is the one
-- at its last move, and the overall largest ingest time is the largest of those.

-- Most records cannot be moves: one whose event time is below, and whose ingest time is
-- not above, its partition's maxima over the earlier blocks of 256 arrivals is neither.
-- Those are left out before the sort. That changes no running maximum at the records
-- kept: the first record to reach each new maximum is always kept.
CREATE OR REPLACE TABLE wm_moves AS
WITH observed AS (
  SELECT seq, partition_id, event_us, ingest_us, seq // 256 AS block
  FROM candidates ANTI JOIN late_records USING (seq)
), block_maxima AS (
  SELECT partition_id, block, max(event_us) AS block_max_event_us,
         max(ingest_us) AS block_max_ingest_us
  FROM observed GROUP BY ALL
), earlier_maxima AS (
  SELECT partition_id, block,
         max(block_max_event_us) OVER earlier AS earlier_max_event_us,
         max(block_max_ingest_us) OVER earlier AS earlier_max_ingest_us
  FROM block_maxima
  WINDOW earlier AS (PARTITION BY partition_id ORDER BY block
                     ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
), contenders AS (
  SELECT o.seq, o.partition_id, o.event_us, o.ingest_us
  FROM observed o JOIN earlier_maxima e USING (partition_id, block)
  WHERE e.earlier_max_event_us IS NULL OR o.event_us >= e.earlier_max_event_us
     OR o.ingest_us > e.earlier_max_ingest_us
)
SELECT seq, partition_id, partition_max_event_us, partition_max_ingest_us
FROM (
  SELECT seq, partition_id, event_us, ingest_us,
         max(event_us) OVER by_arrival AS partition_max_event_us,
         max(ingest_us) OVER by_arrival AS partition_max_ingest_us,
         max(ingest_us) OVER (PARTITION BY partition_id ORDER BY seq
                              ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
           AS partition_max_ingest_before_us
  FROM contenders
  WINDOW by_arrival AS (PARTITION BY partition_id ORDER BY seq ROWS UNBOUNDED PRECEDING))
WHERE event_us = partition_max_event_us
   OR partition_max_ingest_before_us IS NULL OR ingest_us > partition_max_ingest_before_us;

CREATE OR REPLACE TABLE wm_steps AS
WITH partitions AS (
  SELECT DISTINCT partition_id FROM wm_moves
), partition_states AS (
  -- Every partition's maxima as they stood at each move.
  SELECT m.seq, o.partition_max_event_us, o.partition_max_ingest_us
  FROM (SELECT seq, partition_id FROM (SELECT seq FROM wm_moves) CROSS JOIN partitions) m
  ASOF JOIN wm_moves o ON m.partition_id = o.partition_id AND m.seq >= o.seq
), candidate_watermarks AS (
  SELECT seq,
         min(partition_max_event_us) FILTER (
           WHERE max_ingest_us - partition_max_ingest_us <= getvariable('idle_timeout_us'))
           - getvariable('max_lateness_us') AS candidate_us
  FROM (SELECT *, max(partition_max_ingest_us) OVER (PARTITION BY seq) AS max_ingest_us
        FROM partition_states)
  GROUP BY seq
)
SELECT seq, max(candidate_us) OVER (ORDER BY seq ROWS UNBOUNDED PRECEDING) AS watermark_us
FROM candidate_watermarks;

-- Only suspects can be late (admission.sql).
CREATE OR REPLACE TABLE late_records_next AS
SELECT s.seq, w.watermark_us
FROM late_suspects s ASOF JOIN wm_steps w ON s.seq > w.seq
WHERE s.event_us <= w.watermark_us;

-- How many records this round changed (0: the fixed point is reached).
CREATE OR REPLACE TABLE late_round_changes AS
SELECT count(*) AS changes FROM (
  (SELECT seq FROM late_records_next EXCEPT SELECT seq FROM late_records)
  UNION ALL
  (SELECT seq FROM late_records EXCEPT SELECT seq FROM late_records_next));

CREATE OR REPLACE TABLE late_records AS SELECT * FROM late_records_next;
