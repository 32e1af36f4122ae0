/**
 * How far the embedded engine's memory could come down, measured rather than guessed (issue 10
 * §2): the users `bench-memory.ts` loads, held three ways in a bare process.
 *
 *   node --expose-gc --import tsx scripts/bench-memory-floor.ts [--docs 1000000]
 *
 * 1. As the engine holds them today: one decoded object per document.
 * 2. As BSON bytes only (chunks of 16 MiB, one offset per document): what a store that keeps
 *    documents encoded and decodes them on read would hold. Integer `_id`s ascend with the
 *    offsets, so the `_id` lookup is a binary search over the offsets and costs nothing more.
 * 3. The example User model's four secondary indexes (email, name+_id, created_at+name+_id,
 *    surname+name+_id) in their least costly form for JS values: one column per indexed field
 *    (equal strings shared, dates as numbers) and one Int32Array of document numbers per index in
 *    key order, instead of key tuples and document references per entry.
 *
 * Each figure is the heap plus off-heap bytes the structure adds, after a forced collection,
 * as a multiple of the users' BSON size. The app's fixed cost (the empty app's RSS) comes from
 * `bench-memory.ts`; the floor of a redesigned engine is that plus 2 and 3.
 */
import process from "node:process";
import { parseArgs } from "node:util";
import { BSON, type Document } from "bson";
import { compareStrings } from "../src/embedded/store/strings.ts";
import { user } from "./lib/memory-users.ts";

const { values: args } = parseArgs({ options: { docs: { type: "string", default: "1000000" } } });
const DOCS = Number(args.docs);
const CHUNK = 16 << 20;
const MIB = 1024 * 1024;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");

/** Heap plus off-heap bytes in use after a full collection. */
function inUse(): number {
  gc!();
  gc!();
  const { heapUsed, external, arrayBuffers } = process.memoryUsage();
  return heapUsed + Math.max(external, arrayBuffers);
}

/** The users as BSON: chunks of bytes, and where each document starts (chunk × CHUNK + offset). */
interface EncodedUsers {
  chunks: Buffer[];
  starts: Float64Array;
  bytes: number;
}

function encodeUsers(): EncodedUsers {
  const chunks: Buffer[] = [];
  const starts = new Float64Array(DOCS);
  let chunk = Buffer.allocUnsafeSlow(CHUNK);
  let used = 0;
  let bytes = 0;
  for (let i = 0; i < DOCS; i++) {
    const encoded = BSON.serialize(user(i + 1));
    if (used + encoded.length > CHUNK) {
      chunks.push(chunk.subarray(0, used));
      chunk = Buffer.allocUnsafeSlow(CHUNK);
      used = 0;
    }
    chunk.set(encoded, used);
    starts[i] = chunks.length * CHUNK + used;
    used += encoded.length;
    bytes += encoded.length;
  }
  chunks.push(chunk.subarray(0, used));
  return { chunks, starts, bytes };
}

/** Document `i` decoded from its bytes. */
function decodeAt(users: EncodedUsers, i: number): Document {
  const start = users.starts[i]!;
  const chunk = users.chunks[Math.floor(start / CHUNK)]!;
  const offset = start % CHUNK;
  return BSON.deserialize(chunk.subarray(offset, offset + chunk.readInt32LE(offset)));
}

/** The indexed fields as columns, equal strings stored once. */
interface Columns {
  email: string[];
  name: string[];
  surname: string[];
  createdAt: Float64Array;
}

function columnsOf(users: EncodedUsers): Columns {
  const shared = new Map<string, string>();
  const share = (value: string): string => {
    const known = shared.get(value);
    if (known !== undefined) return known;
    shared.set(value, value);
    return value;
  };
  const columns: Columns = { email: [], name: [], surname: [], createdAt: new Float64Array(DOCS) };
  for (let i = 0; i < DOCS; i++) {
    const doc = decodeAt(users, i);
    columns.email.push(doc.email);
    columns.name.push(share(doc.name));
    columns.surname.push(share(doc.surname));
    columns.createdAt[i] = (doc.created_at as Date).getTime();
  }
  shared.clear();
  return columns;
}

/** Document numbers in the order of `compare` (ties by document number, which is `_id` order here). */
function indexOrder(compare: (a: number, b: number) => number): Int32Array {
  const order = new Int32Array(DOCS);
  for (let i = 0; i < DOCS; i++) order[i] = i;
  return order.sort((a, b) => compare(a, b) || a - b);
}

function indexesOf({ email, name, surname, createdAt }: Columns): Int32Array[] {
  return [
    indexOrder((a, b) => compareStrings(email[a]!, email[b]!)),
    indexOrder((a, b) => compareStrings(name[a]!, name[b]!)),
    indexOrder((a, b) => createdAt[b]! - createdAt[a]! || compareStrings(name[a]!, name[b]!)),
    indexOrder((a, b) => compareStrings(surname[a]!, surname[b]!) || compareStrings(name[a]!, name[b]!)),
  ];
}

function row(label: string, bytes: number, bson: number): string {
  return `| ${label} | ${(bytes / MIB).toFixed(0)} MiB | ${(bytes / bson).toFixed(2)}x |`;
}

const base = inUse();
const users = encodeUsers();
const encodedBytes = inUse() - base;

/** What the documents add as decoded objects (they are dropped again before returning). */
function decodedSize(): number {
  const before = inUse();
  const decoded: Document[] = [];
  for (let i = 0; i < DOCS; i++) decoded.push(decodeAt(users, i));
  const bytes = inUse() - before;
  // Read after measuring: otherwise optimised code may treat the array as dead during the collection.
  if (decoded.length !== DOCS) throw new Error("not every document was decoded");
  return bytes;
}
const decodedBytes = decodedSize();

const beforeIndexes = inUse();
const columns = columnsOf(users);
const columnBytes = inUse() - beforeIndexes;
const indexes = indexesOf(columns);
const orderBytes = inUse() - beforeIndexes - columnBytes;

console.log(`${DOCS.toLocaleString("en-US")} users, ${(users.bytes / MIB).toFixed(0)} MiB of BSON\n`);
console.log("| held as | adds | vs BSON |\n|---|---:|---:|");
console.log(row("decoded objects, one per document (the engine today)", decodedBytes, users.bytes));
console.log(row("BSON bytes in 16 MiB chunks + one offset per document", encodedBytes, users.bytes));
console.log(row("index key columns (email, name, surname, created_at)", columnBytes, users.bytes));
console.log(row(`${indexes.length} index orders (Int32Array each)`, orderBytes, users.bytes));
console.log(row("floor of the data: BSON + columns + orders", encodedBytes + columnBytes + orderBytes, users.bytes));
console.log(
  `\n(${process.version}, ${process.platform}/${process.arch}; add the empty app's RSS from bench-memory.ts)`,
);
