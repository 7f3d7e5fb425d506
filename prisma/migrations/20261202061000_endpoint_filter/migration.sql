-- An endpoint's content filter (docs/api.md#content-filters): the filter document as the API validated
-- it, or NULL for every subscribed event. filter_version counts its changes: the relay writes an
-- endpoint's attempt only when the worker's decision names the version the row holds in that statement,
-- so a decision taken on a filter changed since is never applied.
ALTER TABLE "webhook_endpoints" ADD COLUMN "filter" JSONB;
ALTER TABLE "webhook_endpoints" ADD COLUMN "filter_version" INTEGER NOT NULL DEFAULT 0;
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_filter_is_object"
  CHECK ("filter" IS NULL OR jsonb_typeof("filter") = 'object');
