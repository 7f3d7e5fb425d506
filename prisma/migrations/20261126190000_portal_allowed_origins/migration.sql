-- The https origins allowed to frame the community's webhook portal (its page's frame-ancestors); empty:
-- none may. A constant default: PostgreSQL adds the column without rewriting the table.
ALTER TABLE "communities" ADD COLUMN "portal_allowed_origins" TEXT[] NOT NULL DEFAULT '{}';
