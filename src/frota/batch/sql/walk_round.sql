-- One round of the pointer-doubling walk over the jump breaks (key_rules.sql explains
-- it). Before round k, walk_nodes holds the walk's breaks hop^i(b0) for i < 2^k and
-- walk_hop maps each break to hop^(2^k); the round adds hop^(2^k) of every known node
-- (i from 2^k to 2^(k+1) - 1), then squares walk_hop. The walk's breaks are distinct
-- (rn grows along it), so a round that adds none means the walk has ended.
CREATE OR REPLACE TABLE walk_round_new AS
SELECT DISTINCT h.vehicle_key, h.target AS rn
FROM walk_nodes n
JOIN walk_hop h ON h.vehicle_key = n.vehicle_key AND h.rn = n.rn
WHERE h.target IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM walk_nodes w WHERE w.vehicle_key = h.vehicle_key
                                               AND w.rn = h.target);

INSERT INTO walk_nodes SELECT vehicle_key, rn FROM walk_round_new;

CREATE OR REPLACE TABLE walk_hop AS
SELECT a.vehicle_key, a.rn, b.target
FROM walk_hop a
LEFT JOIN walk_hop b ON b.vehicle_key = a.vehicle_key AND b.rn = a.target;

CREATE OR REPLACE TABLE walk_round_added AS SELECT count(*)::BIGINT AS added FROM walk_round_new;
