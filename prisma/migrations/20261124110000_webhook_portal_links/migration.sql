-- Single-use portal links (issue 15): only the SHA-256 of the token is kept; the exchange is one
-- conditional UPDATE (used_at IS NULL AND expires_at > now()), so of two concurrent uses one wins.
-- CreateTable
CREATE TABLE "webhook_portal_links" (
    "id" UUID NOT NULL,
    "community_id" UUID NOT NULL,
    "created_by_id" UUID NOT NULL,
    "token_hash" TEXT NOT NULL,
    "expires_at" TIMESTAMPTZ(3) NOT NULL,
    "used_at" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "webhook_portal_links_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "webhook_portal_links_token_hash_key" ON "webhook_portal_links"("token_hash");

-- CreateIndex
CREATE INDEX "webhook_portal_links_community_id_created_at_idx" ON "webhook_portal_links"("community_id", "created_at");

-- AddForeignKey
ALTER TABLE "webhook_portal_links" ADD CONSTRAINT "webhook_portal_links_community_id_fkey" FOREIGN KEY ("community_id") REFERENCES "communities"("id") ON DELETE CASCADE ON UPDATE CASCADE;
