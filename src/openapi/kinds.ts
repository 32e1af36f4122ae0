import type { Model, Relation } from "../model/define.ts";
import type { ModelRegistry } from "../model/registry.ts";
import type { QueryLimits } from "../query/limits.ts";

/** What an operation does; the parameter and response tables are keyed by it. */
export type OperationKind = "list" | "show" | "create" | "replace" | "patch" | "delete" | "forceDelete" | "options";

/** Kinds that read (GET) and so answer 304 to a matching If-None-Match. */
export const READS: readonly OperationKind[] = ["list", "show"];

/** Kinds that take a JSON body. */
export const BODY_WRITES: readonly OperationKind[] = ["create", "replace", "patch"];

/** Kinds that write: the embedded engine's full disk refuses them (507). */
export const WRITES: readonly OperationKind[] = ["create", "replace", "patch", "delete", "forceDelete"];

/** Kinds that address one stored record and honour If-Match. */
export const RECORD_WRITES: readonly OperationKind[] = ["replace", "patch", "delete", "forceDelete"];

/** What a table entry may look at to decide whether it applies and how it reads. */
export interface OperationInfo {
  kind: OperationKind;
  model: Model;
  registry: ModelRegistry;
  limits: QueryLimits;
  /** True on nested routes (`/users/{userId}/posts`). */
  nested: boolean;
  /** On nested routes, the relation they follow: its `limit` and `sort` shape the list's parameters. */
  relation?: Relation;
  /**
   * True when a hook runs for this operation (the model's for its handler, or `onBeforeRelation`
   * of a model `with` can reach), which may throw an `ApiError` of any status.
   */
  hooked: boolean;
  /** True when a `rateLimit` (app-wide, the model's, or its handler's) counts this operation's requests. */
  rateLimited: boolean;
  /** True when a serializer (the model's or the app's) shapes the records, which may drop or add fields. */
  serialized: boolean;
  /**
   * With access rules: the roles that may call it ("everyone" on a public model), and whether
   * credentials are checked at all (`auth`), which makes bad ones a 401.
   */
  access?: { roles: readonly string[] | "everyone"; credentials: boolean };
}
