CREATE TABLE "run_messages" (
	"run_id" uuid NOT NULL,
	"stage" integer NOT NULL,
	"idx" integer NOT NULL,
	"message" jsonb NOT NULL,
	CONSTRAINT "run_messages_run_id_stage_idx_pk" PRIMARY KEY("run_id","stage","idx")
);
--> statement-breakpoint
ALTER TABLE "run_messages" ADD CONSTRAINT "run_messages_run_id_runs_id_fk" FOREIGN KEY ("run_id") REFERENCES "public"."runs"("id") ON DELETE cascade ON UPDATE no action;