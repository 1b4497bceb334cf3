-- Version 11: garages, as schema_v11.sql (DuckDB) says.

CREATE TABLE garage_edges (
  edge integer PRIMARY KEY,
  lat_a double precision NOT NULL,
  lon_a double precision NOT NULL,
  lat_b double precision NOT NULL,
  lon_b double precision NOT NULL
);
