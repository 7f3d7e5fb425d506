-- Destinations beyond HTTP (docs/api.md#broker-destinations): an endpoint publishes to a RabbitMQ exchange or a
-- NATS JetStream subject instead of POSTing. `type` is fixed at create. `destination` holds what the broker needs
-- besides the url ({exchange, routingKey} or {subject}) and the url's credentials sealed by the secrets' key ring
-- ({credentials: {keyId, iv, ciphertext, authTag}}), so the plain `url` column never carries them. A change of
-- either counts in transport_version, so that a worker reconnects for a claim that reads a newer version.
ALTER TABLE "webhook_endpoints"
    ADD COLUMN "type" TEXT NOT NULL DEFAULT 'http',
    ADD COLUMN "destination" JSONB,
    ADD CONSTRAINT "webhook_endpoints_type_check" CHECK ("type" IN ('http', 'rabbitmq', 'nats')),
    ADD CONSTRAINT "webhook_endpoints_destination_check" CHECK (("type" = 'http') = ("destination" IS NULL));
