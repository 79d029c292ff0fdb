CREATE TABLE "self_governance_grants" (
	"project_id" uuid NOT NULL,
	"user_id" uuid NOT NULL,
	"granted_by" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "self_governance_grants_project_id_user_id_pk" PRIMARY KEY("project_id","user_id")
);
--> statement-breakpoint
ALTER TABLE "self_governance_grants" ADD CONSTRAINT "self_governance_grants_project_id_projects_id_fk" FOREIGN KEY ("project_id") REFERENCES "public"."projects"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "self_governance_grants" ADD CONSTRAINT "self_governance_grants_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Upgrading keeps the instance's admins able to change the rules over their own coding agents in
-- every project (as before); anyone else needs another admin's explicit grant from now on.
INSERT INTO "self_governance_grants" ("project_id", "user_id", "granted_by")
  SELECT p."id", u."id", 'upgrade: an instance admin before 0027' FROM "projects" p CROSS JOIN "users" u WHERE u."instance_admin";
