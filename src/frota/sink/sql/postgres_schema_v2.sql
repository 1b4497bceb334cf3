-- Migration to version 2: the index on refusals leaves out `duplicate`.
-- On a day of simulated feeds, 7.1 M of the 12.2 M records are duplicates (a vehicle
-- seen again in the next snapshot of its feed) and every one is a row of `rejected`; the
-- full (feed_id, reason) index more than doubled what writing them cost the server
-- (1 M rows by COPY: 1.5 s without it, 3.5 s with it). What the index is for is finding
-- the rare refusals of a feed (bad_payload, out_of_area, ...) among them; the partial
-- index still serves every query with `reason = '<any other reason>'` (the planner
-- proves it implies the predicate), and costs duplicates nothing. Counts per reason
-- are in `quality`.
DROP INDEX IF EXISTS rejected_feed_reason;
CREATE INDEX rejected_feed_reason_rare ON rejected (feed_id, reason) WHERE reason <> 'duplicate';
