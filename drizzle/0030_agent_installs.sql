CREATE TABLE "agent_installs" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"project_id" uuid NOT NULL,
	"agent_id" uuid NOT NULL,
	"actor_key" text NOT NULL,
	"actor_label" text NOT NULL,
	"coding_agent" text NOT NULL,
	"host" text DEFAULT '' NOT NULL,
	"os_user" text DEFAULT '' NOT NULL,
	"cli_version" text DEFAULT '' NOT NULL,
	"level" text NOT NULL,
	"settings_path" text NOT NULL,
	"settings_sha256" text NOT NULL,
	"installed_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "agent_installs" ADD CONSTRAINT "agent_installs_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_installs" ADD CONSTRAINT "agent_installs_agent_id_agents_id_fk" FOREIGN KEY ("agent_id") REFERENCES "public"."agents"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_installs_machine_uq" ON "agent_installs" USING btree ("agent_id","actor_key","coding_agent","host","os_user","settings_path");--> statement-breakpoint
CREATE INDEX "agent_installs_project_agent_idx" ON "agent_installs" USING btree ("project_id","agent_id","installed_at");