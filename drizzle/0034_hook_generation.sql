CREATE TABLE "hook_generation" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"n" bigint DEFAULT 0 NOT NULL
);
--> statement-breakpoint
-- One row, the counter; every statement that changes `hooks` moves it, in its own transaction.
INSERT INTO "hook_generation" ("id", "n") VALUES (1, 0) ON CONFLICT DO NOTHING;
--> statement-breakpoint
ALTER TABLE "hook_generation" ADD CONSTRAINT "hook_generation_one_row" CHECK ("id" = 1);
--> statement-breakpoint
CREATE OR REPLACE FUNCTION hp_bump_hook_generation() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "hook_generation" SET "n" = "n" + 1 WHERE "id" = 1;
  RETURN NULL;
END
$$;
--> statement-breakpoint
CREATE TRIGGER "hooks_move_generation" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "hooks" FOR EACH STATEMENT EXECUTE FUNCTION hp_bump_hook_generation();
