/**
 * SCRAM-SHA-256 (RFC 5802, RFC 7677) for connections that must authenticate: the TCP port an
 * engine opens to tools (`tcp` in EmbeddedEngineOptions), never the app's private socket.
 * The driver and mongosh speak it as they do to mongod: `hello` lists the mechanism, then
 * `saslStart` and `saslContinue` carry the exchange. Until it succeeds a connection may run
 * only the handshake commands; anything else is MongoDB's Unauthorized (13).
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";
import { Buffer } from "node:buffer";
import { Binary, type Document } from "bson";

/** The one user a tools port accepts. */
export interface EngineCredential {
  user: string;
  password: string;
}

/** What the server keeps of the password: never the password itself. */
export interface ScramKeys {
  readonly user: string;
  readonly salt: Buffer;
  readonly iterations: number;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
}

const ITERATIONS = 15_000; // mongod's default for SCRAM-SHA-256
const MECHANISM = "SCRAM-SHA-256";
/** What an unauthenticated connection may still run: the handshake, as on mongod. */
const OPEN_COMMANDS = new Set([
  "hello",
  "isMaster",
  "ismaster",
  "saslStart",
  "saslContinue",
  "buildInfo",
  "buildinfo",
  "ping",
]);

const hmac = (key: Buffer, text: string) => createHmac("sha256", key).update(text).digest();
const sha256 = (data: Buffer) => createHash("sha256").update(data).digest();

/** The server's keys for a credential, salted afresh. */
export function scramKeys({ user, password }: EngineCredential): ScramKeys {
  const salt = randomBytes(28);
  const salted = pbkdf2Sync(password.normalize("NFKC"), salt, ITERATIONS, 32, "sha256");
  return {
    user,
    salt,
    iterations: ITERATIONS,
    storedKey: sha256(hmac(salted, "Client Key")),
    serverKey: hmac(salted, "Server Key"),
  };
}

/** `a=1,b=2` as a map (values may hold `=`). */
function attributes(text: string): Map<string, string> {
  return new Map(text.split(",").map((part) => [part.slice(0, 1), part.slice(2)]));
}

/** A SCRAM user name as the client escapes it (`=2C` for `,`, `=3D` for `=`). */
function unescapeName(name: string): string {
  return name.replace(/=2C/g, ",").replace(/=3D/g, "=");
}

const failed = (): Document => ({
  ok: 0,
  errmsg: "Authentication failed.",
  code: 18,
  codeName: "AuthenticationFailed",
});

function payloadText(body: Document): string {
  const payload = body.payload;
  if (payload instanceof Binary) return Buffer.from(payload.buffer).toString("utf8");
  return typeof payload === "string" ? payload : "";
}

const reply = (id: number, text: string, done: boolean): Document => ({
  conversationId: id,
  done,
  payload: new Binary(Buffer.from(text, "utf8")),
  ok: 1,
});

/** One connection's authentication: its SCRAM conversation, then whether it may run commands. */
export class ScramSession {
  readonly #keys: ScramKeys;
  #authenticated = false;
  #conversation: { clientFirstBare: string; serverFirst: string; nonce: string; skipEmpty: boolean } | undefined;

  constructor(keys: ScramKeys) {
    this.#keys = keys;
  }

  /**
   * The reply to a command this session answers itself (the SASL exchange, or the refusal of
   * a command before authentication), or undefined for one the engine runs as usual.
   */
  answer(name: string, body: Document): Document | undefined {
    if (name === "saslStart") return this.#start(body);
    if (name === "saslContinue") return this.#continue(body);
    if (this.#authenticated || OPEN_COMMANDS.has(name)) return undefined;
    return { ok: 0, errmsg: `Command ${name} requires authentication`, code: 13, codeName: "Unauthorized" };
  }

  /** `hello` with `saslSupportedMechs`: the mechanism this port speaks. */
  mechanisms(body: Document): readonly string[] | undefined {
    return typeof body.saslSupportedMechs === "string" ? [MECHANISM] : undefined;
  }

  #start(body: Document): Document {
    if (body.mechanism !== MECHANISM) {
      return {
        ok: 0,
        errmsg: `Unsupported mechanism ${String(body.mechanism)}; use ${MECHANISM}`,
        code: 2,
        codeName: "BadValue",
      };
    }
    const text = payloadText(body);
    if (!text.startsWith("n,,")) return failed();
    const clientFirstBare = text.slice(3);
    const fields = attributes(clientFirstBare);
    const clientNonce = fields.get("r");
    if (unescapeName(fields.get("n") ?? "") !== this.#keys.user || !clientNonce) return failed();
    const nonce = clientNonce + randomBytes(24).toString("base64");
    const serverFirst = `r=${nonce},s=${this.#keys.salt.toString("base64")},i=${this.#keys.iterations}`;
    // Drivers that ask skip the empty last exchange: the server's signature then ends it.
    const skipEmpty = (body.options as Document | undefined)?.skipEmptyExchange === true;
    this.#conversation = { clientFirstBare, serverFirst, nonce, skipEmpty };
    return reply(1, serverFirst, false);
  }

  #continue(body: Document): Document {
    const conversation = this.#conversation;
    if (conversation === undefined) return failed();
    if (this.#authenticated) return reply(1, "", true); // the empty last step of drivers that send one
    this.#conversation = undefined;
    const text = payloadText(body);
    const proofAt = text.lastIndexOf(",p=");
    if (proofAt < 0) return failed();
    const withoutProof = text.slice(0, proofAt);
    const fields = attributes(withoutProof);
    if (fields.get("r") !== conversation.nonce || fields.get("c") !== "biws") return failed();
    const auth = `${conversation.clientFirstBare},${conversation.serverFirst},${withoutProof}`;
    const signature = hmac(this.#keys.storedKey, auth);
    const proof = Buffer.from(text.slice(proofAt + 3), "base64");
    if (proof.length !== signature.length) return failed();
    const clientKey = Buffer.from(proof.map((byte, i) => byte ^ signature[i]!));
    if (!timingSafeEqual(sha256(clientKey), this.#keys.storedKey)) return failed();
    this.#authenticated = true;
    this.#conversation = conversation;
    const serverSignature = hmac(this.#keys.serverKey, auth).toString("base64");
    return reply(1, `v=${serverSignature}`, conversation.skipEmpty);
  }
}
