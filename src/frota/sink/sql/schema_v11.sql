-- Version 11: garages. The edges of the garage polygons a run was given (`--garages`,
-- docs/semantics-notes.md "Depots"), numbered in ring order; horizontal edges, which the
-- even-odd rule never counts, are left out. Empty: the depots are found in the data.

CREATE TABLE garage_edges (
  edge INTEGER PRIMARY KEY,
  lat_a DOUBLE NOT NULL,
  lon_a DOUBLE NOT NULL,
  lat_b DOUBLE NOT NULL,
  lon_b DOUBLE NOT NULL
);
