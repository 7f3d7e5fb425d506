-- A member's name now belongs to the membership: a community never writes the global user row
-- (one community could rename, or probe, another community's members through it).
-- AlterTable
ALTER TABLE "memberships" ADD COLUMN     "display_name" TEXT NOT NULL DEFAULT '';

-- Existing members keep the name every community showed until now.
UPDATE memberships m SET display_name = u.name FROM users u WHERE u.id = m.user_id AND u.name <> '';

-- Member search matches the display name now, within one community (Prisma leaves expression
-- indexes alone in its drift check): the users.name prefix index has no reader left.
DROP INDEX IF EXISTS users_name_prefix_idx;
CREATE INDEX memberships_display_name_prefix_idx ON memberships (community_id, lower(display_name) text_pattern_ops);
