CREATE TABLE "alert_events" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"rule_id" uuid NOT NULL,
	"state" text NOT NULL,
	"reminder" boolean DEFAULT false NOT NULL,
	"value" double precision NOT NULL,
	"threshold" double precision NOT NULL,
	"message" text NOT NULL,
	"at" timestamp with time zone NOT NULL,
	"notified" jsonb
);
--> statement-breakpoint
CREATE TABLE "alert_rules" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"name" text NOT NULL,
	"kind" text NOT NULL,
	"agent_id" uuid,
	"window_minutes" integer,
	"wait_minutes" integer,
	"threshold" double precision NOT NULL,
	"cooldown_minutes" integer NOT NULL,
	"targets" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"state" text DEFAULT 'ok' NOT NULL,
	"state_changed_at" timestamp with time zone,
	"last_fired_at" timestamp with time zone,
	"last_notified_at" timestamp with time zone,
	"last_value" double precision,
	"last_evaluated_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "alert_rules_name_unique" UNIQUE("name")
);
--> statement-breakpoint
ALTER TABLE "alert_events" ADD CONSTRAINT "alert_events_rule_id_alert_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."alert_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "alert_rules" ADD CONSTRAINT "alert_rules_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alert_events_rule_idx" ON "alert_events" USING btree ("rule_id","at");--> statement-breakpoint
CREATE INDEX "hook_invocations_failures_idx" ON "hook_invocations" USING btree ("created_at") WHERE failed or timed_out;--> statement-breakpoint
CREATE INDEX "hook_invocations_blocks_idx" ON "hook_invocations" USING btree ("created_at") WHERE verdict = 'block' and not ignored;--> statement-breakpoint
CREATE INDEX "runs_failed_finished_idx" ON "runs" USING btree ("finished_at") WHERE outcome in ('failed', 'timeout');