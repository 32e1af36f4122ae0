import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { connect, type Socket } from "node:net";
import { reply } from "../../src/http/reply.ts";
import { serveNode } from "../../src/adapters/node/node-adapter.ts";
import { listen } from "../../src/adapters/serve.ts";
import { handleShutdownSignals, SAME_SIGNAL_WINDOW_MS } from "../../src/http/shutdown.ts";
import { resolveTimeouts, timeoutsFromEnv } from "../../src/http/timeouts.ts";
import { replyHandler } from "../helpers/reply-handler.ts";

const isDeno = typeof (globalThis as { Deno?: unknown }).Deno !== "undefined";

/** Settles from outside: for handlers that must wait on the test. */
function deferred<T = void>(): { promise: Promise<T>; resolve(value: T): void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Opens a raw connection; resolves once connected. */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => resolve(socket));
    socket.on("error", reject);
  });
}

/** Everything the server sends on `socket` until the connection closes, as latin1 text. */
function received(socket: Socket): Promise<string> {
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  return new Promise((resolve) => socket.on("close", () => resolve(Buffer.concat(chunks).toString("latin1"))));
}

/** A few turns of the event loop: lets I/O callbacks that are already due run. */
async function turns(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("serveNode close()", () => {
  test("ends after a client pipelined requests and half-closed, within no deadline", { timeout: 20_000 }, async () => {
    const entered: string[] = [];
    const allEntered = deferred();
    const release = deferred();
    const logged: string[] = [];
    const server = await serveNode(
      replyHandler(async (request) => {
        entered.push(new URL(request.url).pathname);
        if (entered.length === 3) allEntered.resolve();
        await release.promise;
        return reply("x".repeat(100_000), 200, {});
      }),
      { port: 0, host: "127.0.0.1", shutdownTimeout: 3_600_000, log: (line) => logged.push(line) },
    );
    const socket = await open(server.port);
    const gone = received(socket);
    socket.end(["/1", "/2", "/3"].map((path) => `GET ${path} HTTP/1.1\r\nHost: a\r\n\r\n`).join(""));
    await allEntered.promise;
    await gone; // the server has closed the half-closed connection, with two responses still queued
    release.resolve();
    await server.close();
    assert.deepEqual(entered, ["/1", "/2", "/3"]);
    assert.deepEqual(logged, [], "drained without the deadline");
  });

  test("waits for a handler whose client went away, so the database outlives it", async () => {
    const entered = deferred();
    const aborted = deferred();
    const release = deferred();
    const events: string[] = [];
    const server = await serveNode(
      replyHandler(async (request) => {
        request.signal.addEventListener("abort", () => aborted.resolve());
        entered.resolve();
        await release.promise;
        events.push("handler done");
        return reply("late", 200, {});
      }),
      { port: 0, host: "127.0.0.1" },
    );
    const socket = await open(server.port);
    socket.write("GET /slow HTTP/1.1\r\nHost: a\r\n\r\n");
    socket.on("error", () => {});
    await entered.promise;
    const closing = server.close().then(() => events.push("closed"));
    socket.destroy();
    await aborted.promise; // the server saw the client go
    await turns(5);
    events.push("released");
    release.resolve();
    await closing;
    assert.deepEqual(events, ["released", "handler done", "closed"]);
  });

  test("past the deadline logs what it cut and destroys the connections", async () => {
    const entered = deferred();
    const logged: string[] = [];
    const server = await serveNode(async () => {
      entered.resolve();
      return await new Promise<Response>(() => {}); // never answers
    }, { port: 0, host: "127.0.0.1", shutdownTimeout: 1, log: (line) => logged.push(line) });
    const socket = await open(server.port);
    const reply = received(socket);
    socket.write("GET /stuck?page=2 HTTP/1.1\r\nHost: a\r\n\r\n");
    await entered.promise;
    await server.close();
    assert.equal(await reply, "", "the connection was dropped without an answer");
    assert.deepEqual(logged, ["Shutdown deadline of 1 ms passed: cutting 1 unfinished request(s): GET /stuck?page=2"]);
  });
});

describe("serveNode timeouts", () => {
  test("a client that never finishes its body is answered 408 after requestTimeout", {
    skip: isDeno && "Deno serves through Deno.serve, whose timeouts are its own",
  }, async () => {
    const server = await serveNode(replyHandler(async (request) => reply(await request.text(), 200, {})), {
      port: 0,
      host: "127.0.0.1",
      headersTimeout: 50,
      requestTimeout: 100,
    });
    try {
      const socket = await open(server.port);
      const reply = received(socket);
      socket.write(
        "POST /upload HTTP/1.1\r\nHost: a\r\nContent-Type: text/plain\r\nContent-Length: 1000\r\n\r\nonly a few bytes",
      );
      const raw = await reply;
      assert.match(raw, /^HTTP\/1\.1 408 /);
      // node's own 408 has no body; the adapter answers it in the spec's shape.
      assert.deepEqual(JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4)), {
        error:
          "The request was not received in time: the server allows 50 ms for its headers and 100 ms for the whole request.",
      });
    } finally {
      await server.close();
    }
  });

  test("a client that never finishes its headers is cut after headersTimeout", {
    skip: isDeno && "Deno serves through Deno.serve, whose timeouts are its own",
  }, async () => {
    const server = await serveNode(replyHandler(() => reply("never", 200, {})), {
      port: 0,
      host: "127.0.0.1",
      headersTimeout: 50,
      requestTimeout: 100,
    });
    try {
      const socket = await open(server.port);
      const reply = received(socket);
      socket.write("GET / HTTP/1.1\r\nHost: a\r\nX-Slow: ");
      assert.match(await reply, /^(HTTP\/1\.1 408 |$)/);
    } finally {
      await server.close();
    }
  });

  test("defaults, and refusals that name the option", () => {
    assert.deepEqual(resolveTimeouts({}), {
      shutdownTimeout: 10_000,
      headersTimeout: 10_000,
      requestTimeout: 30_000,
      keepAliveTimeout: 5_000,
    });
    assert.throws(
      () => resolveTimeouts({ shutdownTimeout: -1 }),
      /^RangeError: shutdownTimeout must be a number of milliseconds, 0 or more; got -1$/,
    );
    assert.throws(
      () => resolveTimeouts({ headersTimeout: 40_000 }),
      /headersTimeout \(40000 ms\) must not exceed requestTimeout \(30000 ms\)/,
    );
    assert.deepEqual(timeoutsFromEnv({ SHUTDOWN_TIMEOUT_MS: "2500", REQUEST_TIMEOUT_MS: "" }).shutdownTimeout, 2500);
    assert.throws(
      () => timeoutsFromEnv({ KEEP_ALIVE_TIMEOUT_MS: "5s" }),
      /^RangeError: KEEP_ALIVE_TIMEOUT_MS must be a whole number of milliseconds, 0 or more; got "5s"$/,
    );
  });
});

describe(`listen() on ${isDeno ? "Deno.serve" : "Node"}: shutdown deadline`, () => {
  test("past the deadline, close() resolves and logs the request it cut", async () => {
    const entered = deferred();
    const logged: string[] = [];
    const server = await listen(async () => {
      entered.resolve();
      return await new Promise<Response>(() => {});
    }, { port: 0, host: "127.0.0.1", shutdownTimeout: 1, log: (line) => logged.push(line) });
    const port = Number(new URL(server.url).port);
    const socket = await open(port);
    const reply = received(socket);
    socket.write("GET /stuck HTTP/1.1\r\nHost: a\r\n\r\n");
    await entered.promise;
    await server.close();
    // Node drops the connection; Deno.serve cannot, so it answers 503 and closes.
    const answer = await reply;
    if (isDeno) {
      assert.match(answer, /^HTTP\/1\.1 503 [^]*"error":"The server is shutting down; retry the request shortly\."/);
    } else assert.equal(answer, "");
    assert.deepEqual(logged, ["Shutdown deadline of 1 ms passed: cutting 1 unfinished request(s): GET /stuck"]);
  });
});

describe("handleShutdownSignals", () => {
  function fakeHost() {
    const handlers = new Map<string, () => void>();
    const exits: number[] = [];
    const lines: string[] = [];
    const clock = { ms: 0 };
    return {
      handlers,
      exits,
      lines,
      clock,
      host: {
        on: (signal: string, handler: () => void) => void handlers.set(signal, handler),
        exit: (code: number) => void exits.push(code),
        log: (line: string) => void lines.push(line),
        now: () => clock.ms,
      },
    };
  }

  test("the first signal shuts down and exits 0", async () => {
    const fake = fakeHost();
    const done = deferred();
    handleShutdownSignals(fake.host, () => Promise.resolve(done.resolve()));
    fake.handlers.get("SIGTERM")!();
    await done.promise;
    await turns(1);
    assert.deepEqual(fake.exits, [0]);
    assert.match(fake.lines[0]!, /^SIGTERM: finishing in-flight requests/);
    assert.equal(fake.lines.at(-1), "Closed.");
  });

  test("a second SIGTERM or SIGINT while shutting down exits 1 at once", () => {
    for (const second of ["SIGTERM", "SIGINT"]) {
      const fake = fakeHost();
      handleShutdownSignals(fake.host, () => new Promise<void>(() => {})); // a shutdown that never ends
      fake.handlers.get("SIGINT")!();
      assert.deepEqual(fake.exits, []);
      fake.clock.ms += SAME_SIGNAL_WINDOW_MS;
      fake.handlers.get(second)!();
      assert.deepEqual(fake.exits, [1]);
      assert.equal(fake.lines.at(-1), `${second} again: exiting now without waiting for in-flight requests`);
    }
  });

  test("the same stop delivered twice at once (process group plus a forwarding wrapper) is one signal", () => {
    const fake = fakeHost();
    handleShutdownSignals(fake.host, () => new Promise<void>(() => {}));
    fake.handlers.get("SIGTERM")!();
    fake.clock.ms += 5; // deno task forwarding the SIGTERM its child already got from the group
    fake.handlers.get("SIGTERM")!();
    assert.deepEqual(fake.exits, [], "still draining");
    assert.equal(fake.lines.filter((line) => line.startsWith("SIGTERM")).length, 1);
  });
});
