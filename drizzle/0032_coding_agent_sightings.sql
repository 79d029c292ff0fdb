CREATE TABLE "coding_agent_sightings" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"actor_key" text NOT NULL,
	"actor_label" text NOT NULL,
	"coding_agent" text NOT NULL,
	"external_session_id" text NOT NULL,
	"cli_version" text DEFAULT '' NOT NULL,
	"hook_inventory" jsonb,
	"safe_mode" boolean DEFAULT false NOT NULL,
	"tool_calls" integer DEFAULT 0 NOT NULL,
	"hook_runs" integer DEFAULT 0 NOT NULL,
	"first_seen_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_seen_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "coding_agent_sightings" ADD CONSTRAINT "coding_agent_sightings_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "coding_agent_sightings" ADD CONSTRAINT "coding_agent_sightings_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "coding_agent_sightings_session_uq" ON "coding_agent_sightings" USING btree ("agent_id","actor_key","coding_agent","external_session_id");--> statement-breakpoint
CREATE INDEX "coding_agent_sightings_project_seen_idx" ON "coding_agent_sightings" USING btree ("project_id","last_seen_at");