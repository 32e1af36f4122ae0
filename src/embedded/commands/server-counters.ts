import type { Document } from "bson";
import type { Request } from "../wire/messages.ts";

/** The operation kinds of serverStatus' `opcounters`. */
export interface OpCounters {
  insert: number;
  query: number;
  update: number;
  delete: number;
  getmore: number;
  command: number;
}

/**
 * How many statements (documents of an insert, updates, deletes) a finished write attempted:
 * none when the command failed as a whole, up to the first failure when it was ordered, else all.
 */
function attempted(request: Request, field: string, reply: Document): number {
  if (reply.ok === 0) return 0;
  const { writeErrors } = reply;
  if (request.body.ordered !== false && Array.isArray(writeErrors) && writeErrors.length > 0) {
    return Number(writeErrors[0].index) + 1;
  }
  const value = request.sequences.get(field) ?? request.body[field];
  return Array.isArray(value) ? value.length : 0;
}

/**
 * What the engine has done since it started, for serverStatus: connections, bytes and
 * requests on the wire, operations by kind, and commands that failed through a client's
 * mistake (MongoDB's user assertions). Counted by the wire server and the command dispatcher.
 */
export class ServerCounters {
  /** When the engine started, in ms since the epoch. */
  readonly startedAt = Date.now();
  /** `active`: connections running a command now (counted by the dispatcher, so serverStatus sees its own). */
  readonly connections = { current: 0, totalCreated: 0, rejected: 0, active: 0 };
  readonly network = { bytesIn: 0, bytesOut: 0, numRequests: 0 };
  readonly opcounters: OpCounters = { insert: 0, query: 0, update: 0, delete: 0, getmore: 0, command: 0 };
  /** Failed commands and write errors (MongoDB counts its user assertions, which fail either). */
  userAsserts = 0;

  /**
   * Counts a finished command by kind, as MongoDB's opcounters do: writes by the statements
   * they attempted, reads by command. Commands the engine does not know are not counted.
   */
  countCommand(request: Request, name: string, reply: Document): void {
    const counters = this.opcounters;
    switch (name) {
      case "insert":
        counters.insert += attempted(request, "documents", reply);
        return;
      case "update":
        counters.update += attempted(request, "updates", reply);
        return;
      case "delete":
        counters.delete += attempted(request, "deletes", reply);
        return;
      case "find":
        counters.query++;
        return;
      case "getMore":
        counters.getmore++;
        return;
      default:
        counters.command++;
    }
  }

  /** Counts a finished command's failure, or its statements' write errors. */
  countOutcome(reply: unknown): void {
    const { ok, writeErrors } = (reply ?? {}) as Document;
    if (ok === 0) this.userAsserts++;
    else if (Array.isArray(writeErrors)) this.userAsserts += writeErrors.length;
  }
}
