import { Buffer } from "node:buffer";
import type { Batch } from "../cursors.ts";
import { finishMsg, MSG_PREFIX } from "./messages.ts";

const T_DOUBLE = 0x01;
const T_STRING = 0x02;
const T_DOCUMENT = 0x03;
const T_ARRAY = 0x04;
const T_INT64 = 0x12;

/** Writes an element's type byte and name; returns the position after them. */
function element(out: Buffer, p: number, type: number, key: string): number {
  out[p] = type;
  const end = p + 1 + out.write(key, p + 1, "latin1");
  out[end] = 0;
  return end + 1;
}

/**
 * Encodes `{ cursor: { <firstBatch|nextBatch>: [...], id, ns }, ok: 1 }` as an OP_MSG straight
 * from the already-serialised documents: sizes are computed first, so the reply is one
 * allocation and each document is copied once.
 */
export function encodeBatch(batch: Batch, responseTo: number): Buffer {
  const ns = Buffer.from(batch.ns, "utf8");
  const field = batch.field;
  const keys = batch.docs.map((_, i) => String(i));
  let arraySize = 4 + 1;
  for (let i = 0; i < batch.docs.length; i++) arraySize += 1 + keys[i].length + 1 + batch.docs[i].length;
  const cursorSize = 4 + (1 + field.length + 1 + arraySize) + (1 + 3 + 8) + (1 + 3 + 4 + ns.length + 1) + 1;
  const bodySize = 4 + (1 + 7 + cursorSize) + (1 + 3 + 8) + 1;
  const out = Buffer.allocUnsafe(MSG_PREFIX + bodySize);
  let p = MSG_PREFIX;
  out.writeInt32LE(bodySize, p);
  p += 4;
  p = element(out, p, T_DOCUMENT, "cursor");
  out.writeInt32LE(cursorSize, p);
  p += 4;
  p = element(out, p, T_ARRAY, field);
  out.writeInt32LE(arraySize, p);
  p += 4;
  for (let i = 0; i < batch.docs.length; i++) {
    p = element(out, p, T_DOCUMENT, keys[i]);
    out.set(batch.docs[i], p);
    p += batch.docs[i].length;
  }
  out[p++] = 0;
  p = element(out, p, T_INT64, "id");
  out.writeInt32LE(batch.cursorId.low, p);
  out.writeInt32LE(batch.cursorId.high, p + 4);
  p += 8;
  p = element(out, p, T_STRING, "ns");
  out.writeInt32LE(ns.length + 1, p);
  p += 4;
  out.set(ns, p);
  p += ns.length;
  out[p++] = 0;
  out[p++] = 0;
  p = element(out, p, T_DOUBLE, "ok");
  out.writeDoubleLE(1, p);
  p += 8;
  out[p++] = 0;
  return finishMsg(out, responseTo);
}
