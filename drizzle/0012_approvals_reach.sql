CREATE TABLE "approval_notices" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"approval_id" uuid NOT NULL,
	"service" text NOT NULL,
	"channel" text NOT NULL,
	"message_id" text NOT NULL,
	"token_secret" text NOT NULL,
	"hook_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"settled_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "slack_request_nonces" (
	"signature" text PRIMARY KEY NOT NULL,
	"seen_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "approvals" ADD COLUMN "approvers" jsonb;--> statement-breakpoint
ALTER TABLE "users" ADD COLUMN "slack_user_id" text;--> statement-breakpoint
ALTER TABLE "approval_notices" ADD CONSTRAINT "approval_notices_approval_id_approvals_id_fk" FOREIGN KEY ("approval_id") REFERENCES "public"."approvals"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "approval_notices_approval_idx" ON "approval_notices" USING btree ("approval_id");--> statement-breakpoint
CREATE INDEX "slack_request_nonces_seen_idx" ON "slack_request_nonces" USING btree ("seen_at");--> statement-breakpoint
ALTER TABLE "users" ADD CONSTRAINT "users_slack_user_id_unique" UNIQUE("slack_user_id");