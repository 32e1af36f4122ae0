import type { Db } from "mongodb";
import { syncCounter } from "../../src/store/ids.ts";

/** What {@link insertExampleUsers} may vary: the insert batch, and a stored password. */
export interface ExampleUserOptions {
  /** Users per insertMany (default 1,000). */
  batch?: number;
  /** A password stored on every user (hidden by the model; default none). */
  password?: string;
}

/**
 * Inserts users 1..count shaped as the framework stores the example User model (integer `_id`,
 * timestamps, `_rev: 1`), in batches, and moves the id counter past them. Few distinct
 * creation times and names, so sorts on them have ties to break.
 */
export async function insertExampleUsers(db: Db, count: number, options: ExampleUserOptions = {}): Promise<void> {
  const users = db.collection("users");
  const batch = options.batch ?? 1000;
  for (let from = 1; from <= count; from += batch) {
    const docs = [];
    for (let id = from; id <= Math.min(count, from + batch - 1); id++) {
      const at = new Date(Date.UTC(2026, 0, 1) + (id % 1000) * 60_000);
      docs.push({
        _id: id,
        email: `user${id}@example.com`,
        name: `Name${(id * 7919) % count}`,
        surname: `Surname${id % 500}`,
        ...(options.password === undefined ? {} : { password: options.password }),
        created_at: at,
        updated_at: at,
        _rev: 1,
      });
    }
    await users.insertMany(docs as never[]);
  }
  await syncCounter(db, "users");
}
