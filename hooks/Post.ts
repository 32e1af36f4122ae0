import { ApiError, defineHooks, type DeleteContext, type UpdateContext } from "../src/mod.ts";

/** The caller's user id. A real app would read it from a verified session or token. */
function caller(request: Request): string | null {
  return request.headers.get("x-user-id");
}

function ownPostsOnly(ctx: UpdateContext | DeleteContext): void {
  if (caller(ctx.request) !== String(ctx.item.user_id)) {
    throw new ApiError("You can only change your own posts.", 403);
  }
  // An owner must not hand a post to somebody else either.
  if ("body" in ctx && ctx.body.user_id !== undefined && caller(ctx.request) !== String(ctx.body.user_id)) {
    throw new ApiError("You can only change your own posts.", 403);
  }
}

/** Posts can only be written as yourself, and changed or deleted by their owner. */
export default defineHooks({
  onBeforeInsert(ctx) {
    if (caller(ctx.request) !== String(ctx.body.user_id)) {
      throw new ApiError("You can only write posts as yourself.", 403);
    }
  },
  onBeforeUpdate: ownPostsOnly,
  onBeforePatch: ownPostsOnly,
  onBeforeDelete: ownPostsOnly,
});
