ALTER TABLE "agents" ADD COLUMN "fail_mode" text;--> statement-breakpoint
ALTER TABLE "offline_decisions" ADD COLUMN "fail_mode" text;--> statement-breakpoint
ALTER TABLE "offline_decisions" ADD COLUMN "against_policy" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "agents" ADD CONSTRAINT "agents_fail_mode_ck" CHECK ("agents"."fail_mode" is null or "agents"."fail_mode" in ('closed', 'open'));