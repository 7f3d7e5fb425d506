-- Custom domains are verified before they resolve: a requested domain waits in custom_domain_pending
-- with the token of its DNS TXT challenge. Domains already in custom_domain stay active (they were set
-- before verification existed); the service's own names never resolve whatever this column holds.
-- AlterTable
ALTER TABLE "communities" ADD COLUMN     "custom_domain_pending" TEXT,
ADD COLUMN     "custom_domain_requested_at" TIMESTAMPTZ(3),
ADD COLUMN     "custom_domain_token" TEXT;
