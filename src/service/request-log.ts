import type { LogLevel, LogRecord, Sink } from "@logtape/logtape";

/**
 * The one line per request, kept off LogTape's per-call path: a LogTape record (template
 * parsing, sink tree walk, formatter) cost more CPU than a whole cached request. Lines are
 * built from a fixed template in the same shapes LogTape's formatters write, gathered, and
 * written a batch at a time, off the request path; {@link RequestLog.flush} (called by
 * `app.close()` and at process exit) writes whatever is still pending.
 */

/** What one request's line says. */
export interface RequestFields {
  method: string;
  path: string;
  status: number;
  durationMs: number;
  /**
   * Written into JSON lines as it is, unescaped: the service's ids are always sane (letters,
   * digits and `._:@-` only, see request-id.ts), which JSON never escapes.
   */
  requestId: string;
  /** With `auth`: the principal's subject (never its credentials); absent for anonymous requests. */
  subject?: string;
}

/** Where batches of lines go: each call gets whole lines, each ending in "\n". */
export type LineWriter = (text: string) => void;

/** How the request log is set up by `configureLogging`. */
export interface RequestLogSetup {
  /** The lowest level written. */
  level: LogLevel;
  /** JSON lines instead of readable text. */
  json: boolean;
  /** Batches of formatted lines go here. */
  write?: LineWriter;
  /** A LogTape sink to hand each request's record to instead (no batching, no formatting). */
  sink?: Sink;
}

/**
 * Characters pending before a batch is written at once rather than on the timer: about 100
 * JSON lines. A batch's text must stay well under V8's largest regular object (128 KiB):
 * joined into a larger string, which V8 places in its large-object space, a batch cost over
 * three times as much per line to join, and a cached request with the log on took 17-21% more
 * CPU than one without, against 1-4% with batches under 40 KiB (A/B, docs/benchmarks.md).
 */
const BATCH_CHARS = 32 * 1024;
/** How long a line may wait for its batch, in ms. */
const BATCH_DELAY_MS = 20;

const LEVEL_ORDER: Record<LogLevel, number> = { trace: 0, debug: 1, info: 2, warning: 3, error: 4, fatal: 5 };
const CATEGORY = ["mongorest", "request"] as const;
// Everything JSON writes unescaped (printable ASCII but `"` and `\`); anything else goes through JSON.stringify.
const JSON_PLAIN = /^[\x20\x21\x23-\x5b\x5d-\x7e]*$/;
// deno-lint-ignore no-control-regex -- finding control characters is the point: they must be escaped
const CONTROL = /[\x00-\x1f\x7f]/;

// What follows the timestamp in a JSON line, up to the message's method.
const INFO_MESSAGE = '","level":"INFO","message":"';
const DEBUG_MESSAGE = '","level":"DEBUG","message":"';

/** A JSON line's text that follows from its method and path: the message's start, and the properties' up to the status. */
interface RouteParts {
  message: string;
  properties: string;
}

/**
 * The parts of a JSON line that change less often than every request, for the last
 * millisecond, level, route and status logged: everything before the duration (`head`) and
 * everything between the message's request id and the properties' duration (`middle`).
 */
interface LineParts {
  stampMs: number;
  level: string;
  route: RouteParts | undefined;
  status: number;
  head: string;
  middle: string;
}

/**
 * `String(ms)`, made from whole hundredths when `ms` has no more decimals than that (as the
 * service rounds durations): converting a fraction to text took ~200 ns on Node 20, the
 * integers ~50. Any other number goes through `String`.
 * @example durationText(12.3) // "12.3", as String(12.3)
 */
export function durationText(ms: number): string {
  const hundredths = Math.round(ms * 100);
  if (hundredths / 100 !== ms || !(hundredths >= 0 && hundredths < 1e9)) return String(ms);
  const cents = hundredths % 100;
  const whole = (hundredths - cents) / 100;
  return cents === 0 ? String(whole) : String(whole) + FRACTIONS[cents]!;
}

/** A duration's text where a JSON line shows it: in the message, and as the durationMs property. */
interface DurationParts {
  /** `12.3 ms ` */
  message: string;
  /** `12.3,"requestId":"` */
  property: string;
}

/** Durations up to this many hundredths of a millisecond have their parts kept (100 ms). */
const DURATIONS_KEPT = 10_000;
const durations = new Array<DurationParts | undefined>(DURATIONS_KEPT);

/** The {@link DurationParts} of `ms`: made once for the durations of a fast service, and for any other made each time. */
function durationParts(ms: number): DurationParts {
  const hundredths = Math.round(ms * 100);
  const kept = hundredths / 100 === ms && hundredths >= 0 && hundredths < DURATIONS_KEPT;
  let parts = kept ? durations[hundredths] : undefined;
  if (parts === undefined) {
    const took = durationText(ms);
    parts = { message: flattened(`${took} ms `), property: flattened(`${took},"requestId":"`) };
    if (kept) durations[hundredths] = parts;
  }
  return parts;
}

/** The text after the whole milliseconds for each number of hundredths: "", ".01" … ".1" … ".99". */
const FRACTIONS = Array.from({ length: 100 }, (_, cents) => String(cents / 100).slice(1));

/**
 * `text` laid out as one run of characters. V8 keeps a concatenation as a tree of its parts
 * until something reads it, and every join that copies a tree walks it again; converting the
 * text to a number flattens it where it is, once, for the parts many lines share.
 */
function flattened(text: string): string {
  void Number(text);
  return text;
}

/** `value` as the inside of a JSON string. */
function jsonText(value: string): string {
  return JSON_PLAIN.test(value) ? value : JSON.stringify(value).slice(1, -1);
}

/** `value` with control characters escaped, so a line cannot be split or forged. */
function plainText(value: string): string {
  return CONTROL.test(value) ? JSON.stringify(value).slice(1, -1) : value;
}

/** The request log: off until configured, then one line per request at info (probes at debug). */
export class RequestLog {
  #threshold = Infinity;
  #json = false;
  #write: LineWriter | undefined;
  #sink: Sink | undefined;
  #pending: string[] = [];
  #pendingChars = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #stampMs = NaN;
  #stamp = "";
  #secondMs = NaN;
  #secondText = "";
  #lastMethod = "";
  #lastPath = "";
  #lastRoute: RouteParts = { message: "", properties: "" };
  #parts: LineParts = { stampMs: NaN, level: "", route: undefined, status: 0, head: "", middle: "" };

  /** Replaces the setup, writing what the previous one still held; `undefined` switches the log off. */
  configure(setup: RequestLogSetup | undefined): void {
    this.flush();
    this.#threshold = setup === undefined ? Infinity : LEVEL_ORDER[setup.level];
    this.#json = setup?.json ?? false;
    this.#sink = setup?.write === undefined ? setup?.sink : undefined;
    this.#write = setup === undefined ? undefined : setup.write ?? consoleWriter;
  }

  /** True when a line at `level` ("info", or "debug" for probes) would be written: a comparison. */
  enabled(level: "info" | "debug"): boolean {
    return LEVEL_ORDER[level] >= this.#threshold;
  }

  /** Logs one request; call only when {@link enabled}. */
  log(level: "info" | "debug", fields: RequestFields): void {
    const now = Date.now();
    if (this.#sink !== undefined) return this.#sink(recordOf(level, fields, now));
    const line = this.#json ? this.#jsonLine(level, fields, now) : this.#textLine(level, fields, now);
    this.#pending.push(line);
    this.#pendingChars += line.length;
    if (this.#pendingChars >= BATCH_CHARS) this.flush();
    else this.#timer ??= setTimeout(() => this.flush(), BATCH_DELAY_MS);
  }

  /** Writes every pending line now. */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending.length === 0) return;
    const text = this.#pending.join("");
    this.#pending = [];
    this.#pendingChars = 0;
    this.#write?.(text);
  }

  /**
   * The ISO time of `ms`, remade only when the millisecond changes (many requests share one),
   * and then from the second's text made once per second: `toISOString` cost ~1 µs a call.
   */
  #iso(ms: number): string {
    if (ms !== this.#stampMs) {
      this.#stampMs = ms;
      const second = ms - (ms % 1000);
      if (second !== this.#secondMs) {
        this.#secondMs = second;
        this.#secondText = new Date(second).toISOString().slice(0, 20); // "2026-01-01T00:00:00."
      }
      this.#stamp = `${this.#secondText}${String(ms - second).padStart(3, "0")}Z`;
    }
    return this.#stamp;
  }

  /**
   * The parts of a JSON line that follow from its method and path alone, kept for the last
   * pair: a busy route logs the same ones line after line, and a line made of fewer, longer
   * parts is cheaper to make and to join into its batch.
   */
  #routeParts(method: string, path: string): RouteParts {
    if (method !== this.#lastMethod || path !== this.#lastPath) {
      this.#lastMethod = method;
      this.#lastPath = path;
      const m = jsonText(method), p = jsonText(path);
      this.#lastRoute = {
        message: `${m} ${p} `,
        properties: `","logger":"mongorest.request","properties":{"method":"${m}","path":"${p}","status":`,
      };
    }
    return this.#lastRoute;
  }

  /**
   * The line LogTape's JSON Lines formatter writes for the same record. It is made of seven
   * parts, where writing it out in full took sixteen: V8 keeps a concatenation as a tree of its
   * parts, and the batch's join walks every tree, so parts cost twice.
   */
  #jsonLine(
    level: "info" | "debug",
    { method, path, status, durationMs, requestId, subject }: RequestFields,
    now: number,
  ): string {
    const { head, middle } = this.#lineParts(level, this.#routeParts(method, path), status, now);
    const took = durationParts(durationMs);
    const who = subject === undefined ? "" : `,"subject":${JSON.stringify(subject)}`;
    return `${head}${took.message}${requestId}${middle}${took.property}${requestId}"${who}}}\n`;
  }

  /** The {@link LineParts} for this line, remade only when its millisecond, level, route or status changes. */
  #lineParts(level: "info" | "debug", route: RouteParts, status: number, now: number): LineParts {
    const parts = this.#parts;
    if (parts.stampMs === now && parts.level === level && parts.route === route && parts.status === status) {
      return parts;
    }
    const middle = parts.route === route && parts.status === status
      ? parts.middle
      : flattened(`${route.properties}${status},"durationMs":`);
    const head = flattened(
      `{"@timestamp":"${this.#iso(now)}${level === "info" ? INFO_MESSAGE : DEBUG_MESSAGE}${route.message}${status} `,
    );
    this.#parts = { stampMs: now, level, route, status, head, middle };
    return this.#parts;
  }

  /** The line LogTape's text formatter (UTC date-time-timezone) writes for the same record. */
  #textLine(
    level: "info" | "debug",
    { method, path, status, durationMs, requestId, subject }: RequestFields,
    now: number,
  ): string {
    const iso = this.#iso(now);
    const who = subject === undefined ? "" : ` ${plainText(subject)}`;
    return `${iso.slice(0, 10)} ${iso.slice(11, 23)} +00:00 [${level === "info" ? "INF" : "DBG"}] mongorest·request: ` +
      `${plainText(method)} ${plainText(path)} ${status} ${durationText(durationMs)} ms ${
        plainText(requestId)
      }${who}\n`;
  }
}

/** The record LogTape would make for the line, for a sink of the application's own. */
function recordOf(level: "info" | "debug", fields: RequestFields, timestamp: number): LogRecord {
  const line = `${fields.method} ${fields.path} ${fields.status} ${fields.durationMs} ms ${fields.requestId}`;
  return { category: CATEGORY, level, message: [line], rawMessage: line, timestamp, properties: { ...fields } };
}

/** The default destination: standard output, through the console so it runs on Node and Deno. */
function consoleWriter(text: string): void {
  console.log(text.slice(0, -1));
}

/** The process's request log, set up by `configureLogging`. */
export const requestLog = new RequestLog();

// Lines still pending when the process ends are written then (app.close() writes them earlier).
const runtime = globalThis as { process?: { once?(event: string, listener: () => void): unknown } };
if (typeof runtime.process?.once === "function") runtime.process.once("exit", () => requestLog.flush());
