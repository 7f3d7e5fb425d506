-- POST /api/auth/refresh consumes the access token it is called with: each refresh-token row records
-- the jti of the access token minted with it, and the refresh is one conditional UPDATE of that row.
-- Rows minted before this migration have no jti: their access tokens can no longer refresh (the
-- refresh token itself still works through POST /api/auth/refresh-token).
-- AlterTable
ALTER TABLE "refresh_tokens" ADD COLUMN     "access_jti" UUID;

-- CreateIndex
CREATE UNIQUE INDEX "refresh_tokens_access_jti_key" ON "refresh_tokens"("access_jti");
