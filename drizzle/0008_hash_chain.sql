CREATE TABLE "chain_anchors" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"table_name" text NOT NULL,
	"chain_seq" bigint NOT NULL,
	"hash" text NOT NULL,
	"before" timestamp with time zone NOT NULL,
	"deleted_rows" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "hook_invocations" DROP CONSTRAINT "hook_invocations_run_id_runs_id_fk";
--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "chain_seq" bigint;--> statement-breakpoint
ALTER TABLE "audit_log" ADD COLUMN "hash" text;--> statement-breakpoint
ALTER TABLE "hook_invocations" ADD COLUMN "chain_seq" bigint;--> statement-breakpoint
ALTER TABLE "hook_invocations" ADD COLUMN "hash" text;--> statement-breakpoint
CREATE UNIQUE INDEX "chain_anchors_table_seq_uq" ON "chain_anchors" USING btree ("table_name","chain_seq");--> statement-breakpoint
CREATE UNIQUE INDEX "audit_log_chain_seq_uq" ON "audit_log" USING btree ("chain_seq") WHERE chain_seq is not null;--> statement-breakpoint
CREATE INDEX "audit_log_unsealed_idx" ON "audit_log" USING btree ("id") WHERE chain_seq is null;--> statement-breakpoint
CREATE UNIQUE INDEX "hook_invocations_chain_seq_uq" ON "hook_invocations" USING btree ("chain_seq") WHERE chain_seq is not null;--> statement-breakpoint
CREATE INDEX "hook_invocations_unsealed_idx" ON "hook_invocations" USING btree ("id") WHERE chain_seq is null;--> statement-breakpoint
ALTER TABLE "audit_log" ADD CONSTRAINT "audit_log_chain_sealed_ck" CHECK ((chain_seq is null) = (hash is null));--> statement-breakpoint
ALTER TABLE "hook_invocations" ADD CONSTRAINT "hook_invocations_chain_sealed_ck" CHECK ((chain_seq is null) = (hash is null));