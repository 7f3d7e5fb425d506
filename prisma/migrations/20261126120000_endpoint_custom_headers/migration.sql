-- An endpoint's custom headers (docs/security.md#security-model), the whole set sealed as one
-- AES-256-GCM value by the secrets' key ring: {keyId, iv, ciphertext, authTag}, base64 each. NULL:
-- no custom headers. The re-encryption finds rows by keyId.
-- AlterTable
ALTER TABLE "webhook_endpoints" ADD COLUMN "custom_headers" JSONB;
