-- A limit hook's counts are a throttle, not a record (each refusal is in the ledger): the buckets
-- need no WAL, so a take commits without waiting for a WAL flush (an fsync on the embedded
-- database, which blocks its process). After a crash of the database the table starts empty: the
-- windows open at that moment start again from zero (docs/operations.md).
ALTER TABLE "rate_limit_buckets" SET UNLOGGED;
