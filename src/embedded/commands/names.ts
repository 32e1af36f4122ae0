import { CommandError } from "../errors.ts";

// Database and collection names as MongoDB 7.0 accepts them (on Linux). Checked before a
// command runs, so no name can reach the catalog, the journal or a snapshot that MongoDB
// would refuse: a NUL in a name, for one, would blur where one namespace ends.

/** Longest database name. */
const MAX_DB_NAME = 63;
/** Longest `db.collection`, in bytes. */
const MAX_NAMESPACE_BYTES = 255;

/** Refuses a database name MongoDB refuses: empty, too long, or with one of `/\. "$` or NUL. */
export function checkDatabaseName(db: string): void {
  if (db.length > MAX_DB_NAME) {
    throw new CommandError(
      "InvalidNamespace",
      `db name must be at most ${MAX_DB_NAME} characters, found: ${db.length}`,
    );
  }
  if (db === "" || /[/\\. "$\0]/.test(db)) throw new CommandError("InvalidNamespace", `Invalid database name: '${db}'`);
}

/**
 * Refuses a collection name MongoDB refuses: empty, starting with a dot, with `$` or NUL, or
 * making `db.collection` longer than 255 bytes.
 */
export function checkCollectionName(db: string, name: string): void {
  const ns = `${db}.${name}`;
  if (name === "" || name.startsWith(".") || /[$\0]/.test(name)) {
    throw new CommandError("InvalidNamespace", `Invalid namespace specified '${ns}'`);
  }
  if (new TextEncoder().encode(ns).length > MAX_NAMESPACE_BYTES) {
    throw new CommandError(
      "InvalidNamespace",
      `Fully qualified namespace is too long. Namespace: ${ns} Max: ${MAX_NAMESPACE_BYTES}`,
    );
  }
}
