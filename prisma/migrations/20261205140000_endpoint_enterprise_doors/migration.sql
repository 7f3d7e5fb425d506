-- Receivers behind enterprise doors (docs/api.md#mutual-tls, docs/api.md#oauth-20-client-credentials): an endpoint's
-- client certificate (its key sealed by the secrets' key ring) and its OAuth 2.0 client credentials (the client secret
-- sealed). transport_version counts their changes, so that a worker's cached copy is reloaded for a claim that
-- reads a newer version; tls_not_after and tls_expiry_announced drive webhook.endpoint.certificate_expiring.
ALTER TABLE "webhook_endpoints"
    ADD COLUMN "tls" JSONB,
    ADD COLUMN "tls_not_after" TIMESTAMPTZ(3),
    ADD COLUMN "tls_expiry_announced" BOOLEAN NOT NULL DEFAULT false,
    ADD COLUMN "auth" JSONB,
    ADD COLUMN "transport_version" INTEGER NOT NULL DEFAULT 0;

-- the expiry check looks only at certificates not yet announced
CREATE INDEX "webhook_endpoints_tls_not_after_idx" ON "webhook_endpoints"("tls_not_after")
    WHERE "tls_not_after" IS NOT NULL AND NOT "tls_expiry_announced";
