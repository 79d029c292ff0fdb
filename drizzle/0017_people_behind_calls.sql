ALTER TABLE "api_tokens" ADD COLUMN "kind" text DEFAULT 'api' NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "actor_key" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "actor_user_id" uuid;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "actor_label" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "actor_host" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "actor_os_user" text;--> statement-breakpoint
CREATE INDEX "runs_project_actor_created_idx" ON "runs" USING btree ("project_id","actor_user_id","created_at");--> statement-breakpoint
-- Bridged runs from before: the credential that sent them is the only actor on record.
UPDATE "runs" SET "actor_label" = "created_by" WHERE "external_session_id" IS NOT NULL AND "actor_label" IS NULL;
