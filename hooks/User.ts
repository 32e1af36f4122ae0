import { randomBytes, scrypt, type ScryptOptions } from "node:crypto";
import { defineHooks, type InsertContext, type UpdateContext } from "../src/mod.ts";

/**
 * scrypt's cost, as OWASP's password storage cheat sheet recommends at least (N = 2^17 would be
 * its first choice; 2^15 with r = 8 keeps a hash near 50 ms and 32 MiB here).
 */
const COST: ScryptOptions = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_BYTES = 32;

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_BYTES, COST, (error, key) => (error ? reject(error) : resolve(key)))
  );
}

/**
 * The stored form of a password: `scrypt$N$r$p$salt$key`, salt and key in base64. node:crypto's
 * scrypt runs on Node and on Deno, off the event loop; a real app would check a password against
 * it with the same parameters and `timingSafeEqual`.
 */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt);
  return ["scrypt", COST.N, COST.r, COST.p, salt.toString("base64"), key.toString("base64")].join("$");
}

async function hashSent(ctx: InsertContext | UpdateContext): Promise<void> {
  if (typeof ctx.body.password === "string") ctx.body.password = await hashPassword(ctx.body.password);
}

/** Users' passwords are stored hashed, never as sent: the README's "a password hash" is true of the example. */
export default defineHooks({
  onBeforeInsert: hashSent,
  onBeforeUpdate: hashSent,
  onBeforePatch: hashSent,
});
