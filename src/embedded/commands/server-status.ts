import { type Document, Double, Long } from "bson";
import { readFileSync } from "node:fs";
import process from "node:process";
import { isPlainObject, trueValue } from "../bson.ts";
import type { CommandContext, Handler } from "./context.ts";
import { VERSION } from "./handshake.ts";

// serverStatus, as MongoDB 7.0 answers it on a standalone, with the sections an engine of this
// kind has: the header, asserts, catalogStats, connections, mem, network, opLatencies,
// opcounters and storageEngine (MongoDB's metrics, locks, WiredTiger, replication and the
// rest describe machinery the engine does not have).

const MIB = 1024 * 1024;

/** The process's virtual size in MiB where the system tells it (Linux's /proc), else undefined. */
function virtualMiB(): number | undefined {
  try {
    const pages = Number(readFileSync("/proc/self/statm", "utf8").split(" ")[0]);
    return Number.isFinite(pages) ? Math.floor((pages * 4096) / MIB) : undefined;
  } catch {
    return undefined;
  }
}

function memory(): Document {
  const out: Document = { bits: 64, resident: Math.floor(process.memoryUsage().rss / MIB) };
  const virtual = virtualMiB();
  if (virtual !== undefined) out.virtual = virtual;
  out.supported = true;
  return out;
}

function catalogStats(ctx: CommandContext): Document {
  let collections = 0;
  let views = 0;
  const { catalog } = ctx.engine;
  for (const db of catalog.databases()) {
    for (const coll of catalog.collections(db)) {
      if (coll.options.viewOn === undefined) collections++;
      else views++;
    }
  }
  return { collections, capped: 0, clustered: 0, timeseries: 0, views, internalCollections: 0, internalViews: 0 };
}

/** Each section, made only when asked for. */
const SECTIONS: Record<string, (ctx: CommandContext, option: unknown) => Document> = {
  asserts: (ctx) => ({
    regular: 0,
    warning: 0,
    msg: 0,
    user: ctx.engine.counters.userAsserts,
    tripwire: 0,
    rollovers: 0,
  }),
  catalogStats,
  connections: (ctx) => {
    const { current, totalCreated, rejected, active } = ctx.engine.counters.connections;
    return {
      current,
      available: Math.max(0, ctx.engine.server.maxConnections - current),
      totalCreated: Long.fromNumber(totalCreated),
      rejected: Long.fromNumber(rejected),
      active,
      threaded: true,
    };
  },
  mem: memory,
  network: (ctx) => {
    const { bytesIn, bytesOut, numRequests } = ctx.engine.counters.network;
    return {
      bytesIn: Long.fromNumber(bytesIn),
      bytesOut: Long.fromNumber(bytesOut),
      physicalBytesIn: Long.fromNumber(bytesIn),
      physicalBytesOut: Long.fromNumber(bytesOut),
      numSlowDNSOperations: Long.fromNumber(0),
      numSlowSSLOperations: Long.fromNumber(0),
      numRequests: Long.fromNumber(numRequests),
    };
  },
  opLatencies: (ctx, option) =>
    ctx.engine.latency.reportAll(isPlainObject(option) && trueValue((option as Document).histograms)),
  opcounters: (ctx) =>
    Object.fromEntries(Object.entries(ctx.engine.counters.opcounters).map(([kind, n]) => [kind, Long.fromNumber(n)])),
  storageEngine: (ctx) => ({
    name: "embedded",
    supportsCommittedReads: false,
    supportsPendingDrops: false,
    dropPendingIdents: Long.fromNumber(0),
    supportsSnapshotReadConcern: false,
    readOnly: false,
    persistent: ctx.engine.server.dataDir !== undefined,
    backupCursorOpen: false,
  }),
};

/** Whether a section's option leaves it out: one given as a false value (`{mem: 0}`, `{mem: null}`). */
function excluded(option: unknown): boolean {
  return option !== undefined && !trueValue(option);
}

function serverStatus(ctx: CommandContext): Document {
  const { counters } = ctx.engine;
  const uptimeMs = Date.now() - counters.startedAt;
  const out: Document = {
    host: ctx.engine.server.host,
    version: VERSION,
    process: "mongod",
    pid: Long.fromNumber(process.pid),
    uptime: new Double(Math.floor(uptimeMs / 1000)), // whole seconds, as MongoDB counts them
    uptimeMillis: Long.fromNumber(uptimeMs),
    uptimeEstimate: Long.fromNumber(Math.floor(uptimeMs / 1000)),
    localTime: new Date(),
  };
  for (const [name, section] of Object.entries(SECTIONS)) {
    const option = ctx.body[name];
    if (!excluded(option)) out[name] = section(ctx, option);
  }
  out.ok = 1;
  return out;
}

/** The server's own statistics. */
export const serverStatusCommands: Record<string, Handler> = { serverStatus, serverstatus: serverStatus };
