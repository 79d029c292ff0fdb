ALTER TABLE "agents" ADD COLUMN "code_hooks" jsonb;--> statement-breakpoint
ALTER TABLE "runs" ADD COLUMN "code_hooks" jsonb;