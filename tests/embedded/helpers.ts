import process from "node:process";
import { connect as netConnect, type Socket } from "node:net";
import { Buffer } from "node:buffer";
import { BSON, type Document } from "bson";
import assert from "node:assert/strict";
import { type Db, MongoClient, type MongoClientOptions, MongoServerError } from "mongodb";
import type { Change, ChangeSink } from "../../src/embedded/changes.ts";
import { type EmbeddedEngineOptions, startEmbeddedEngine } from "../../src/embedded/mod.ts";

/** Where a test file's commands go: a fresh embedded engine, or MONGODB_URI when set. */
export interface Target {
  uri: string;
  /** A database name unique to the test file (and run, on a shared server). */
  dbName: string;
  /** False when running against a real MongoDB (MONGODB_URI). */
  embedded: boolean;
  close(): Promise<void>;
}

/** The real MongoDB to test against instead of the engine, if any. */
export const externalUri: string | undefined = process.env.MONGODB_URI || undefined;

/** Starts the target for one test file. Engine options only apply to the embedded engine. */
export async function startTarget(name: string, options: EmbeddedEngineOptions = {}): Promise<Target> {
  if (externalUri) {
    const dbName = `embedded_${name}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
    return {
      uri: externalUri,
      dbName,
      embedded: false,
      async close() {
        const client = new MongoClient(externalUri!);
        await client.db(dbName).dropDatabase();
        await client.close();
      },
    };
  }
  const engine = await startEmbeddedEngine(options);
  return { uri: engine.uri, dbName: `embedded_${name}`, embedded: true, close: () => engine.close() };
}

/** A connected client on the target's database. */
export interface Connected {
  target: Target;
  client: MongoClient;
  db: Db;
  /** Closes the client, then the target. */
  close(): Promise<void>;
}

/** Starts a target and connects a driver client to it. */
export async function connectTarget(
  name: string,
  options: EmbeddedEngineOptions = {},
  clientOptions: MongoClientOptions = {},
): Promise<Connected> {
  const target = await startTarget(name, options);
  const client = new MongoClient(target.uri, { serverSelectionTimeoutMS: 5000, ...clientOptions });
  await client.connect();
  return {
    target,
    client,
    db: client.db(target.dbName),
    async close() {
      await client.close();
      await target.close();
    },
  };
}

/** Host and port of a mongodb:// URI (first host). */
export function hostPort(uri: string): { host: string; port: number } {
  const authority = uri.replace(/^mongodb:\/\//, "").split("/")[0].split(",")[0].replace(/^.*@/, "");
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(authority);
  return match ? { host: match[1], port: Number(match[2]) } : { host: authority, port: 27017 };
}

/** Opens a raw TCP socket to the target. */
export function rawSocket(uri: string): Promise<Socket> {
  const { host, port } = hostPort(uri);
  return new Promise((resolve, reject) => {
    const socket = netConnect(port, host, () => resolve(socket));
    socket.once("error", reject);
  });
}

/** Sends bytes and resolves once the server closes the socket, with everything it sent back. */
export function sendUntilClosed(socket: Socket, bytes: Uint8Array): Promise<Buffer> {
  const received: Buffer[] = [];
  return new Promise((resolve) => {
    socket.on("data", (chunk: Buffer) => received.push(chunk));
    socket.on("error", () => {});
    socket.on("close", () => resolve(Buffer.concat(received)));
    socket.write(bytes);
  });
}

/** An OP_MSG frame carrying one command document (for raw-socket tests). */
export function opMsg(command: Document, requestId = 1, opCode = 2013): Buffer {
  const body = BSON.serialize(command);
  const frame = Buffer.alloc(21 + body.length);
  frame.writeInt32LE(frame.length, 0);
  frame.writeInt32LE(requestId, 4);
  frame.writeInt32LE(0, 8);
  frame.writeInt32LE(opCode, 12);
  frame.writeUInt32LE(0, 16);
  frame[20] = 0;
  frame.set(body, 21);
  return frame;
}

/** Sends one frame; resolves with the first reply frame's body document and the bytes that frame took. */
export function exchange(socket: Socket, frame: Uint8Array): Promise<{ doc: Document; bytes: number }> {
  return new Promise((resolve, reject) => {
    let buffered = Buffer.alloc(0);
    const onData = (chunk: Buffer): void => {
      buffered = Buffer.concat([buffered, chunk]);
      if (buffered.length < 4 || buffered.length < buffered.readInt32LE(0)) return;
      socket.off("data", onData);
      const bytes = buffered.readInt32LE(0);
      resolve({ doc: BSON.deserialize(buffered.subarray(21, bytes)), bytes });
    };
    socket.on("data", onData);
    socket.once("close", () => reject(new Error("closed before replying")));
    socket.write(frame);
  });
}

/** Sends one frame and resolves with the first reply frame's body document. */
export async function roundTrip(socket: Socket, frame: Uint8Array): Promise<Document> {
  return (await exchange(socket, frame)).doc;
}

/**
 * A sink standing in for the journal: it keeps the changes it accepted (what a restart would
 * recover, replayed into a Catalog) and refuses appends while `failing`.
 */
export class KeepingSink implements ChangeSink {
  readonly accepted: Change[] = [];
  failing = false;

  append(changes: readonly Change[]): Promise<void> {
    if (this.failing) return Promise.reject(new Error("disk full"));
    this.accepted.push(...changes);
    return Promise.resolve();
  }

  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** For `assert.rejects`: the error is a server error with this code. */
export const withCode = (expected: number) => (error: unknown): true => {
  assert.ok(error instanceof MongoServerError, String(error));
  assert.equal(error.code, expected, error.message);
  return true;
};

/** Runs a command that must fail with server error `code`, and with `message` (exactly, or matching) when given. */
export async function refused(run: () => Promise<unknown>, code: number, message?: string | RegExp): Promise<void> {
  await assert.rejects(run, (error: unknown) => {
    assert.ok(error instanceof MongoServerError, String(error));
    assert.equal(error.code, code, error.message);
    if (typeof message === "string") assert.equal(error.message, message);
    else if (message) assert.match(error.message, message);
    return true;
  });
}
