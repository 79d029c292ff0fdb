-- The signed record (docs/security.md, "The signed record"; lib/features/audit/chain-signature.ts).
--
-- 1. chain_seals: a signed head per seal, written in the sealer's transaction (db/queries/hash-chain.ts):
--    the chain of table_name reached chain_seq, whose hash is hash, at signed_at, signed with the
--    instance's Ed25519 ledger key (key_id, signature). The private key is derived from the instance
--    secret key and never stored here: whoever can write to the database can remove a head, not make one.
-- 2. chain_anchors and chain_gaps carry the same signature over what they state, so a bundle's verifier
--    tells retention's anchors and deleted runs' gaps from invented ones; a gap also keeps prev_hash,
--    the hash its first row linked to, so the rows before it stay bound to a signature. Those written
--    before this migration have none (NULL).
-- 3. chain_seals is append-only like the other chain tables: an INSERT must name a sealed row's position
--    and hash; UPDATE and TRUNCATE are refused; DELETE only of heads below the table's newest anchor
--    (retention removes them with the rows they signed: nothing is left to check them against).
CREATE TABLE "chain_seals" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"table_name" text NOT NULL,
	"chain_seq" bigint NOT NULL,
	"hash" text NOT NULL,
	"signed_at" timestamp with time zone NOT NULL,
	"key_id" text NOT NULL,
	"signature" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "chain_anchors" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "chain_anchors" ADD COLUMN "signature" text;--> statement-breakpoint
ALTER TABLE "chain_gaps" ADD COLUMN "prev_hash" text;--> statement-breakpoint
ALTER TABLE "chain_gaps" ADD COLUMN "key_id" text;--> statement-breakpoint
ALTER TABLE "chain_gaps" ADD COLUMN "signature" text;--> statement-breakpoint
CREATE UNIQUE INDEX "chain_seals_table_seq_uq" ON "chain_seals" USING btree ("table_name","chain_seq");--> statement-breakpoint
-- Static queries rather than EXECUTE: PL/pgSQL keeps their plans, so a seal pays an index probe,
-- not the planning of a query over every ledger partition.
CREATE FUNCTION hookplane_chain_seal_guard() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  linked boolean := false;
BEGIN
  IF NEW.table_name = 'hook_invocations' THEN
    linked := EXISTS (SELECT 1 FROM hook_invocations WHERE chain_seq = NEW.chain_seq AND hash = NEW.hash);
  ELSIF NEW.table_name = 'audit_log' THEN
    linked := EXISTS (SELECT 1 FROM audit_log WHERE chain_seq = NEW.chain_seq AND hash = NEW.hash);
  END IF;
  IF NOT linked THEN
    RAISE EXCEPTION 'chain_seals is append-only: INSERT refused (a signed head names a sealed row of a chained table: its position and hash)'
      USING ERRCODE = 'insufficient_privilege';
  END IF;
  RETURN NEW;
END
$$;
--> statement-breakpoint
CREATE FUNCTION hookplane_chain_seal_retention_guard() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF EXISTS (SELECT 1 FROM chain_anchors a WHERE a.table_name = OLD.table_name AND a.chain_seq > OLD.chain_seq) THEN
    RETURN OLD;
  END IF;
  RAISE EXCEPTION 'chain_seals is append-only: DELETE refused (only retention removes signed heads, those below its newest anchor)'
    USING ERRCODE = 'insufficient_privilege';
END
$$;
--> statement-breakpoint
CREATE TRIGGER chain_seals_written_by_sealer BEFORE INSERT ON chain_seals
  FOR EACH ROW EXECUTE FUNCTION hookplane_chain_seal_guard();
--> statement-breakpoint
CREATE TRIGGER chain_seals_append_only BEFORE UPDATE ON chain_seals
  FOR EACH ROW EXECUTE FUNCTION hookplane_refuse_change();
--> statement-breakpoint
CREATE TRIGGER chain_seals_retention BEFORE DELETE ON chain_seals
  FOR EACH ROW EXECUTE FUNCTION hookplane_chain_seal_retention_guard();
--> statement-breakpoint
CREATE TRIGGER chain_seals_append_only_truncate BEFORE TRUNCATE ON chain_seals
  FOR EACH STATEMENT EXECUTE FUNCTION hookplane_refuse_change();
