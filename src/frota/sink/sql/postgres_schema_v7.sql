-- Migration to version 7: each Kafka partition's watermark beside its state, so that a
-- follower (the regularity jobs of a consumer group, docs/scale-out.md "Regularity") can
-- tell which committed positions are final without unsealing the state. NULL: none yet
-- (no record, a row written before this version, or the embedded replay's states); a
-- partition past its end-of-input marker is `finished` in source_progress.
ALTER TABLE engine_state ADD COLUMN watermark timestamp;
