ALTER TABLE "hook_invocations" ADD COLUMN "action" text;--> statement-breakpoint
ALTER TABLE "hook_invocations" ADD COLUMN "failed" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "hook_invocations" ADD COLUMN "timed_out" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "hook_invocations" ADD COLUMN "ignored" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "hook_invocations" ADD COLUMN "approval" jsonb;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "cancel_requested" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "lease_owner" text;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "lease_expires_at" timestamp with time zone;