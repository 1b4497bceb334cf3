-- Migration to version 8: engine_state.state stored as it is, not compressed. The
-- regularity follower (docs/scale-out.md "Regularity") writes its whole state each epoch,
-- several megabytes that compress about 3 to 1, and PostgreSQL's default compression
-- (pglz) of them was two thirds of that commit's time on the server; the states are
-- rewritten every epoch, never scanned. Rows written before keep their compressed form
-- until their next write.
ALTER TABLE engine_state ALTER COLUMN state SET STORAGE EXTERNAL;
