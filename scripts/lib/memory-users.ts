/**
 * The users the memory benchmarks load: shaped like the example User model as the app stores
 * it, deterministic from their `_id`, so every run and every script holds the same data.
 */

const NAMES = [
  "Ada",
  "Grace",
  "Alan",
  "Edsger",
  "Barbara",
  "Donald",
  "Ken",
  "Dennis",
  "Linus",
  "Margaret",
  "Niklaus",
  "John",
];
const SURNAMES = [
  "Lovelace",
  "Hopper",
  "Turing",
  "Dijkstra",
  "Liskov",
  "Knuth",
  "Thompson",
  "Ritchie",
  "Torvalds",
  "Hamilton",
  "Wirth",
  "Backus",
];

/** One user as the app stores it (integer `_id`, dates, `_rev`), deterministic from `id`. */
export function user(id: number): Record<string, unknown> {
  const name = NAMES[(id * 7) % NAMES.length] + String(id % 997);
  const surname = SURNAMES[(id * 13) % SURNAMES.length];
  const at = new Date(Date.UTC(2025, 0, 1) + id * 1000);
  const password = `pw-${(id * 2654435761 >>> 0).toString(36)}-${(id * 40503 >>> 0).toString(36)}`;
  return {
    _id: id,
    email: `${name}.${surname}.${id}@example.com`.toLowerCase(),
    name,
    surname,
    password,
    created_at: at,
    updated_at: at,
    _rev: 1,
  };
}

/** The example User model's four indexes, as the engine's store takes their specs. */
export const USER_INDEXES = [
  { name: "email_unique", key: { email: 1 }, unique: true },
  { name: "name_1__id_1", key: { name: 1, _id: 1 } },
  { name: "created_at_-1_name_1__id_1", key: { created_at: -1, name: 1, _id: 1 } },
  { name: "surname_1_name_1__id_1", key: { surname: 1, name: 1, _id: 1 } },
] as const;
