import { type AccessDefinition, principal } from "../src/mod.ts";

/**
 * The example's access rules for a record owned by the user in `user_id` (posts, comments):
 * everyone reads; a signed-in user writes as themselves (`user_id` is set from the token's
 * subject, whatever the body says) and changes or deletes only their own; an admin may do
 * everything. Kept outside models/, where every file must be a model.
 */
export function ownedByCaller(): AccessDefinition {
  const own = { user_id: principal("subject") };
  return {
    admin: { all: true },
    authenticated: {
      read: true,
      insert: { set: own },
      update: { where: own, set: own },
      patch: { where: own, set: own },
      delete: { where: own },
    },
    anonymous: { read: true },
  };
}
