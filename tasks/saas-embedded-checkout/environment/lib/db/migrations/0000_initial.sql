CREATE TABLE "users" (
  "id" serial PRIMARY KEY,
  "email" varchar(255) NOT NULL UNIQUE,
  "name" varchar(100),
  "password_hash" text NOT NULL,
  "created_at" timestamp NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE TABLE "teams" (
  "id" serial PRIMARY KEY,
  "name" varchar(100) NOT NULL,
  "stripe_customer_id" text UNIQUE,
  "stripe_subscription_id" text UNIQUE,
  "stripe_product_id" text,
  "plan_name" varchar(50),
  "subscription_status" varchar(20),
  "created_at" timestamp NOT NULL DEFAULT now(),
  "updated_at" timestamp NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE TABLE "team_members" (
  "id" serial PRIMARY KEY,
  "user_id" integer NOT NULL REFERENCES "users"("id"),
  "team_id" integer NOT NULL REFERENCES "teams"("id"),
  "role" varchar(50) NOT NULL,
  "joined_at" timestamp NOT NULL DEFAULT now()
);
--> statement-breakpoint
CREATE TABLE "sessions" (
  "token" varchar(64) PRIMARY KEY,
  "user_id" integer NOT NULL REFERENCES "users"("id"),
  "expires_at" timestamp NOT NULL
);
