-- CreateEnum
CREATE TYPE "Plan" AS ENUM ('FREE', 'PRO', 'ENTERPRISE');

-- CreateEnum
CREATE TYPE "Role" AS ENUM ('OWNER', 'ADMIN', 'MODERATOR', 'MEMBER');

-- CreateEnum
CREATE TYPE "Visibility" AS ENUM ('PUBLIC', 'PRIVATE');

-- CreateEnum
CREATE TYPE "TaskStatus" AS ENUM ('OPEN', 'IN_PROGRESS', 'DONE');

-- CreateEnum
CREATE TYPE "ParentType" AS ENUM ('tweets', 'tasks');

-- CreateEnum
CREATE TYPE "DeliveryStatus" AS ENUM ('PENDING', 'SUCCESS', 'FAILED');

-- CreateTable
CREATE TABLE "users" (
    "id" UUID NOT NULL,
    "email" TEXT NOT NULL,
    "name" TEXT NOT NULL DEFAULT '',
    "password_hash" TEXT,
    "is_platform_admin" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "users_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "refresh_tokens" (
    "id" UUID NOT NULL,
    "family_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "community_id" UUID,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "refresh_tokens_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "communities" (
    "id" UUID NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "visibility" "Visibility" NOT NULL DEFAULT 'PUBLIC',
    "allow_member_posts" BOOLEAN NOT NULL DEFAULT true,
    "plan" "Plan" NOT NULL DEFAULT 'FREE',
    "custom_domain" TEXT,
    "feature_overrides" JSONB NOT NULL DEFAULT '{}',
    "logo_url" TEXT,
    "favicon_url" TEXT,
    "primary_color" TEXT,
    "accent_color" TEXT,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "communities_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "community_counters" (
    "community_id" UUID NOT NULL,
    "scope" TEXT NOT NULL,
    "value" BIGINT NOT NULL DEFAULT 0,

    CONSTRAINT "community_counters_pkey" PRIMARY KEY ("community_id","scope")
);

-- CreateTable
CREATE TABLE "memberships" (
    "id" UUID NOT NULL,
    "community_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "role" "Role" NOT NULL DEFAULT 'MEMBER',
    "joined_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "memberships_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL,
    "community_id" UUID NOT NULL,
    "key_id" TEXT NOT NULL,
    "secret_hash" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "scopes" TEXT[],
    "created_by_id" UUID NOT NULL,
    "last_used_at" TIMESTAMPTZ(3),
    "revoked_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tweets" (
    "id" UUID NOT NULL,
    "community_id" UUID NOT NULL,
    "author_id" UUID NOT NULL,
    "content" TEXT NOT NULL,
    "like_count" INTEGER NOT NULL DEFAULT 0,
    "comment_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tweets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tasks" (
    "id" UUID NOT NULL,
    "community_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "status" "TaskStatus" NOT NULL DEFAULT 'OPEN',
    "due_at" TIMESTAMPTZ(3),
    "created_by_id" UUID NOT NULL,
    "like_count" INTEGER NOT NULL DEFAULT 0,
    "comment_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "comments" (
    "id" UUID NOT NULL,
    "community_id" UUID NOT NULL,
    "parent_type" "ParentType" NOT NULL,
    "parent_id" UUID NOT NULL,
    "author_id" UUID NOT NULL,
    "content" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "comments_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "likes" (
    "id" UUID NOT NULL,
    "community_id" UUID NOT NULL,
    "parent_type" "ParentType" NOT NULL,
    "parent_id" UUID NOT NULL,
    "user_id" UUID NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "likes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "customizations" (
    "community_id" UUID NOT NULL,
    "sidebar" JSONB NOT NULL DEFAULT '[]',
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "customizations_pkey" PRIMARY KEY ("community_id")
);

-- CreateTable
CREATE TABLE "advertisements" (
    "id" UUID NOT NULL,
    "community_id" UUID NOT NULL,
    "title" TEXT NOT NULL,
    "image_url" TEXT NOT NULL,
    "target_url" TEXT NOT NULL,
    "placement" TEXT NOT NULL DEFAULT 'sidebar',
    "starts_at" TIMESTAMPTZ(3) NOT NULL,
    "ends_at" TIMESTAMPTZ(3) NOT NULL,
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "advertisements_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "embed_sessions" (
    "id" UUID NOT NULL,
    "community_id" UUID NOT NULL,
    "created_by_id" UUID NOT NULL,
    "allowed_origin" TEXT,
    "user_ref" TEXT,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "embed_sessions_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "outbox_events" (
    "id" BIGSERIAL NOT NULL,
    "community_id" UUID NOT NULL,
    "message_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "relayed_at" TIMESTAMPTZ(3),

    CONSTRAINT "outbox_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL,
    "community_id" UUID NOT NULL,
    "url" TEXT NOT NULL,
    "events" TEXT[],
    "description" TEXT NOT NULL DEFAULT '',
    "is_active" BOOLEAN NOT NULL DEFAULT true,
    "disabled_at" TIMESTAMPTZ(3),
    "consecutive_failures" INTEGER NOT NULL DEFAULT 0,
    "last_success_at" TIMESTAMPTZ(3),
    "failing_since" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_secrets" (
    "id" UUID NOT NULL,
    "community_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "key_id" TEXT NOT NULL,
    "iv" BYTEA NOT NULL,
    "ciphertext" BYTEA NOT NULL,
    "auth_tag" BYTEA NOT NULL,
    "expires_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_secrets_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL,
    "community_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "message_id" TEXT NOT NULL,
    "event_type" TEXT NOT NULL,
    "attempt" INTEGER NOT NULL,
    "status" "DeliveryStatus" NOT NULL DEFAULT 'PENDING',
    "response_status" INTEGER,
    "response_body" TEXT,
    "duration_ms" INTEGER,
    "error" TEXT,
    "next_attempt_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "users_email_key" ON "users"("email");

-- CreateIndex
CREATE UNIQUE INDEX "refresh_tokens_token_hash_key" ON "refresh_tokens"("token_hash");

-- CreateIndex
CREATE INDEX "refresh_tokens_family_id_idx" ON "refresh_tokens"("family_id");

-- CreateIndex
CREATE INDEX "refresh_tokens_user_id_idx" ON "refresh_tokens"("user_id");

-- CreateIndex
CREATE UNIQUE INDEX "communities_slug_key" ON "communities"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "communities_custom_domain_key" ON "communities"("custom_domain");

-- CreateIndex
CREATE INDEX "memberships_community_id_joined_at_id_idx" ON "memberships"("community_id", "joined_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "memberships_community_id_role_idx" ON "memberships"("community_id", "role");

-- CreateIndex
CREATE INDEX "memberships_user_id_joined_at_idx" ON "memberships"("user_id", "joined_at");

-- CreateIndex
CREATE UNIQUE INDEX "memberships_community_id_id_key" ON "memberships"("community_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "memberships_community_id_user_id_key" ON "memberships"("community_id", "user_id");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_id_key" ON "api_keys"("key_id");

-- CreateIndex
CREATE INDEX "api_keys_community_id_created_at_idx" ON "api_keys"("community_id", "created_at" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_community_id_id_key" ON "api_keys"("community_id", "id");

-- CreateIndex
CREATE INDEX "tweets_community_id_created_at_id_idx" ON "tweets"("community_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "tweets_community_id_id_key" ON "tweets"("community_id", "id");

-- CreateIndex
CREATE INDEX "tasks_community_id_created_at_id_idx" ON "tasks"("community_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "tasks_community_id_id_key" ON "tasks"("community_id", "id");

-- CreateIndex
CREATE INDEX "comments_community_id_parent_type_parent_id_created_at_id_idx" ON "comments"("community_id", "parent_type", "parent_id", "created_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "comments_community_id_id_key" ON "comments"("community_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "likes_community_id_parent_type_parent_id_user_id_key" ON "likes"("community_id", "parent_type", "parent_id", "user_id");

-- CreateIndex
CREATE INDEX "advertisements_community_id_is_active_starts_at_idx" ON "advertisements"("community_id", "is_active", "starts_at");

-- CreateIndex
CREATE UNIQUE INDEX "advertisements_community_id_id_key" ON "advertisements"("community_id", "id");

-- CreateIndex
CREATE INDEX "embed_sessions_community_id_created_at_idx" ON "embed_sessions"("community_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "embed_sessions_community_id_id_key" ON "embed_sessions"("community_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "outbox_events_message_id_key" ON "outbox_events"("message_id");

-- CreateIndex
CREATE INDEX "outbox_events_community_id_created_at_idx" ON "outbox_events"("community_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_endpoints_community_id_created_at_idx" ON "webhook_endpoints"("community_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_endpoints_community_id_is_active_idx" ON "webhook_endpoints"("community_id", "is_active");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_endpoints_community_id_id_key" ON "webhook_endpoints"("community_id", "id");

-- CreateIndex
CREATE INDEX "webhook_secrets_community_id_endpoint_id_created_at_idx" ON "webhook_secrets"("community_id", "endpoint_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_community_id_endpoint_id_created_at_id_idx" ON "webhook_deliveries"("community_id", "endpoint_id", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "webhook_deliveries_community_id_endpoint_id_status_created__idx" ON "webhook_deliveries"("community_id", "endpoint_id", "status", "created_at" DESC, "id" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_community_id_id_key" ON "webhook_deliveries"("community_id", "id");

-- CreateIndex
CREATE UNIQUE INDEX "webhook_deliveries_endpoint_id_message_id_attempt_key" ON "webhook_deliveries"("endpoint_id", "message_id", "attempt");

-- AddForeignKey
ALTER TABLE "refresh_tokens" ADD CONSTRAINT "refresh_tokens_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "community_counters" ADD CONSTRAINT "community_counters_community_id_fkey" FOREIGN KEY ("community_id") REFERENCES "communities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_community_id_fkey" FOREIGN KEY ("community_id") REFERENCES "communities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "memberships" ADD CONSTRAINT "memberships_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_community_id_fkey" FOREIGN KEY ("community_id") REFERENCES "communities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tweets" ADD CONSTRAINT "tweets_community_id_fkey" FOREIGN KEY ("community_id") REFERENCES "communities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "tasks" ADD CONSTRAINT "tasks_community_id_fkey" FOREIGN KEY ("community_id") REFERENCES "communities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "comments" ADD CONSTRAINT "comments_community_id_fkey" FOREIGN KEY ("community_id") REFERENCES "communities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "likes" ADD CONSTRAINT "likes_community_id_fkey" FOREIGN KEY ("community_id") REFERENCES "communities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "customizations" ADD CONSTRAINT "customizations_community_id_fkey" FOREIGN KEY ("community_id") REFERENCES "communities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "advertisements" ADD CONSTRAINT "advertisements_community_id_fkey" FOREIGN KEY ("community_id") REFERENCES "communities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "embed_sessions" ADD CONSTRAINT "embed_sessions_community_id_fkey" FOREIGN KEY ("community_id") REFERENCES "communities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_community_id_fkey" FOREIGN KEY ("community_id") REFERENCES "communities"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_secrets" ADD CONSTRAINT "webhook_secrets_community_id_endpoint_id_fkey" FOREIGN KEY ("community_id", "endpoint_id") REFERENCES "webhook_endpoints"("community_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_community_id_endpoint_id_fkey" FOREIGN KEY ("community_id", "endpoint_id") REFERENCES "webhook_endpoints"("community_id", "id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ---------------------------------------------------------------------------------------------
-- Hand-written below: what Prisma's schema language cannot express.

-- Exact list totals without count(*): each insert/delete adjusts a per-community counter row in
-- the same transaction (a rolled-back insert leaves the counter untouched).
CREATE FUNCTION bump_community_counter() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  scope_name text := TG_ARGV[0];
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO community_counters (community_id, scope, value)
      SELECT community_id, scope_name, count(*) FROM new_rows GROUP BY community_id
    ON CONFLICT (community_id, scope) DO UPDATE SET value = community_counters.value + EXCLUDED.value;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE community_counters c SET value = c.value - d.n
      FROM (SELECT community_id, count(*) AS n FROM old_rows GROUP BY community_id) d
     WHERE c.community_id = d.community_id AND c.scope = scope_name;
  END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER tweets_count_ins AFTER INSERT ON tweets REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_community_counter('tweets');
CREATE TRIGGER tweets_count_del AFTER DELETE ON tweets REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_community_counter('tweets');
CREATE TRIGGER tasks_count_ins AFTER INSERT ON tasks REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_community_counter('tasks');
CREATE TRIGGER tasks_count_del AFTER DELETE ON tasks REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_community_counter('tasks');
CREATE TRIGGER memberships_count_ins AFTER INSERT ON memberships REFERENCING NEW TABLE AS new_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_community_counter('members');
CREATE TRIGGER memberships_count_del AFTER DELETE ON memberships REFERENCING OLD TABLE AS old_rows
  FOR EACH STATEMENT EXECUTE FUNCTION bump_community_counter('members');

-- likeCount / commentCount of the parent: one atomic UPDATE per change, so concurrent likers
-- never lose an increment (row lock on the parent serialises them).
CREATE FUNCTION bump_parent_counter() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  col text := TG_ARGV[0];
  delta int := CASE WHEN TG_OP = 'INSERT' THEN 1 ELSE -1 END;
  r record := CASE WHEN TG_OP = 'INSERT' THEN NEW ELSE OLD END;
BEGIN
  EXECUTE format('UPDATE %I SET %I = %I + $1 WHERE community_id = $2 AND id = $3',
                 r.parent_type::text, col, col)
    USING delta, r.community_id, r.parent_id;
  RETURN NULL;
END $$;

CREATE TRIGGER likes_parent_count AFTER INSERT OR DELETE ON likes
  FOR EACH ROW EXECUTE FUNCTION bump_parent_counter('like_count');
CREATE TRIGGER comments_parent_count AFTER INSERT OR DELETE ON comments
  FOR EACH ROW EXECUTE FUNCTION bump_parent_counter('comment_count');

-- Comments and likes point at a tweet or a task (no polymorphic FK): remove them with the parent.
CREATE FUNCTION delete_parent_children() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM comments WHERE community_id = OLD.community_id AND parent_type = TG_TABLE_NAME::"ParentType" AND parent_id = OLD.id;
  DELETE FROM likes    WHERE community_id = OLD.community_id AND parent_type = TG_TABLE_NAME::"ParentType" AND parent_id = OLD.id;
  RETURN OLD;
END $$;

CREATE TRIGGER tweets_delete_children BEFORE DELETE ON tweets
  FOR EACH ROW EXECUTE FUNCTION delete_parent_children();
CREATE TRIGGER tasks_delete_children BEFORE DELETE ON tasks
  FOR EACH ROW EXECUTE FUNCTION delete_parent_children();

-- The relay scans only what is still to be relayed.
CREATE INDEX outbox_events_unrelayed_idx ON outbox_events (id) WHERE relayed_at IS NULL;

-- Member search by e-mail or name prefix.
-- Expression indexes (Prisma leaves them alone in its drift check); emails are stored lower-cased.
CREATE INDEX users_email_prefix_idx ON users (lower(email) text_pattern_ops);
CREATE INDEX users_name_prefix_idx ON users (lower(name) text_pattern_ops);
